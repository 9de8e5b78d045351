import Foundation

/// Account operations of every provider through the hub.
extension AuthHub {
    /// Sends a password-reset email.
    public func sendPasswordReset(email: String, provider id: String? = nil) async throws {
        let p = try provider(id)
        try await mapped(p) { try await p.sendPasswordReset(email: email) }
    }

    /// The signed-in user, fetched from the provider.
    public func userInfo(provider id: String? = nil, account: String = SessionKey.defaultAccount) async throws -> UserInfo {
        let p = try provider(id)
        let session = try await self.session(provider: p.id, account: account)
        return try await mapped(p) { try await p.userInfo(session) }
    }

    /// Deletes the signed-in user's account at the provider and removes the local session.
    public func deleteAccount(provider id: String? = nil, account: String = SessionKey.defaultAccount) async throws {
        let p = try provider(id)
        let session = try await self.session(provider: p.id, account: account)
        try await mapped(p) { try await p.deleteAccount(session) }
        try await manager(provider: p.id, account: account).clear()
    }
}
