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
}
