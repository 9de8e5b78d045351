import Foundation

/// AuthHub-held factors in memory: for tests, demos and apps whose sessions live in memory too
/// (``InMemorySessionStore`` keeps one).
public final class InMemoryHeldFactorStore: HeldFactorStore {
    private let records = Mutex<[HeldFactorOwner: HeldFactorRecord]>([:])

    public init() {}

    public func load(_ owner: HeldFactorOwner) async throws -> HeldFactorRecord? {
        records.withLock { $0[owner] }
    }

    @discardableResult
    public func save(_ record: HeldFactorRecord, expectedVersion: UInt64?) async throws -> HeldFactorRecord {
        try records.withLock { table in
            let stored = try record.storedCopy(found: table[record.owner]?.version, expectedVersion: expectedVersion)
            table[record.owner] = stored
            return stored
        }
    }

    public func remove(_ owner: HeldFactorOwner) async throws {
        _ = records.withLock { $0.removeValue(forKey: owner) }
    }
}
