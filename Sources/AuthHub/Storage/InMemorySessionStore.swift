import Foundation

/// A store that keeps sessions in memory for the life of the process.
public actor InMemorySessionStore: SessionStore {
    private var sessions: [SessionKey: Session] = [:]
    private nonisolated let lock = InProcessRefreshLock()

    public init() {}

    public func load(_ key: SessionKey) -> Session? { sessions[key] }

    @discardableResult
    public func save(_ session: Session, for key: SessionKey, expectedVersion: UInt64?) throws -> Session {
        let stored = try session.storedCopy(for: key, currentVersion: sessions[key]?.version ?? 0, expectedVersion: expectedVersion)
        sessions[key] = stored
        return stored
    }

    public func remove(_ key: SessionKey) { sessions[key] = nil }

    public func keys() -> [SessionKey] { sessions.keys.sorted() }

    public nonisolated func makeRefreshLock() -> any RefreshLock { lock }
}

extension AuthError {
    /// The conflict error of a failed compare-and-swap.
    public static func storeConflict(key: SessionKey, expected: UInt64, found: UInt64) -> AuthError {
        AuthError(.conflict,
                  message: "Session \(key) is at version \(found), expected \(expected): another writer changed it.",
                  details: ["expectedVersion": String(expected), "foundVersion": String(found)])
    }
}
