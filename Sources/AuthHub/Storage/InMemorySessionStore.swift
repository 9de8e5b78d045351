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
