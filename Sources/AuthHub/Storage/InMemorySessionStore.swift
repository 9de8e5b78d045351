import Foundation

/// A store that keeps sessions in memory for the life of the process, with an index by user
/// (``UserIndexedSessionStore``).
public actor InMemorySessionStore: UserIndexedSessionStore, HeldFactorStoring {
    private var sessions: [SessionKey: Session] = [:]
    /// The keys of each user's sessions, by provider and user id.
    private var byUser: [SessionKey: Set<SessionKey>] = [:]
    private nonisolated let lock = InProcessRefreshLock()
    /// AuthHub-held factors, in memory with the sessions.
    public nonisolated let heldFactorStore: any HeldFactorStore = InMemoryHeldFactorStore()

    public init() {}

    public func load(_ key: SessionKey) -> Session? { sessions[key] }

    @discardableResult
    public func save(_ session: Session, for key: SessionKey, expectedVersion: UInt64?) throws -> Session {
        let previous = sessions[key]
        let stored = try session.storedCopy(for: key, currentVersion: previous?.version ?? 0, expectedVersion: expectedVersion)
        sessions[key] = stored
        if previous?.userID != stored.userID { unindex(key, previous) }
        if let userID = stored.userID { byUser[Self.user(key.provider, userID), default: []].insert(key) }
        return stored
    }

    public func remove(_ key: SessionKey) {
        unindex(key, sessions.removeValue(forKey: key))
    }

    public func keys(provider: String, userID: String) -> [SessionKey] {
        (byUser[Self.user(provider, userID)] ?? []).sorted()
    }

    /// A user's entry in the index: a key whose account is the user id.
    private static func user(_ provider: String, _ userID: String) -> SessionKey { SessionKey(provider: provider, account: userID) }

    private func unindex(_ key: SessionKey, _ session: Session?) {
        guard let userID = session?.userID else { return }
        let user = Self.user(key.provider, userID)
        byUser[user]?.remove(key)
        if byUser[user]?.isEmpty == true { byUser[user] = nil }
    }

    public func keys() -> [SessionKey] { sessions.keys.sorted() }

    public nonisolated func makeRefreshLock() -> any RefreshLock { lock }
}
