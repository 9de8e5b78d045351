import Foundation

/// Sessions through the hub: each key's ``SessionManager``.
extension AuthHub {
    /// A session valid for at least `minTTL` seconds, renewed when needed (see ``SessionManager``).
    public func session(provider id: String? = nil, account: String = SessionKey.defaultAccount, minTTL: TimeInterval = 60,
                        scope: String? = nil) async throws -> Session {
        try await manager(provider: id, account: account).session(minTTL: minTTL, scope: scope)
    }

    /// Renews the session now.
    @discardableResult
    public func refresh(provider id: String? = nil, account: String = SessionKey.defaultAccount, scope: String? = nil) async throws -> Session {
        try await manager(provider: id, account: account).renew(scope: scope)
    }

    /// The keys of the stored sessions of one user at provider `id` (their browser sessions on a
    /// server, …), through the store's index by user (``UserIndexedSessionStore``): for "your
    /// signed-in sessions" and signing a user out everywhere.
    /// - Throws: ``AuthErrorCode/unsupported`` when the store keeps no index by user.
    public func sessionKeys(ofUser userID: String, provider id: String? = nil) async throws -> [SessionKey] {
        let p = try provider(id)
        guard let indexed = store as? any UserIndexedSessionStore else {
            throw AuthError(.unsupported, message: "The session store keeps no index by user.")
        }
        return try await indexed.keys(provider: p.id, userID: userID)
    }
}
