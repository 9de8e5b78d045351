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

    /// Deletes the signed-in user's account at the provider, then what AuthHub keeps of the user:
    /// this session, the user's other sessions with the provider in the store (another device's, a
    /// web app's browser sessions — found through the store's index by user, removed without a
    /// revocation: the provider has forgotten the user) and the user's AuthHub-held factors.
    public func deleteAccount(provider id: String? = nil, account: String = SessionKey.defaultAccount) async throws {
        let p = try provider(id)
        let session = try await self.session(provider: p.id, account: account)
        try await mapped(p) { try await p.deleteAccount(session) }
        try await manager(provider: p.id, account: account).clear()
        guard let owner = HeldFactorOwner(session) else { return }
        // The account is gone: what is left is cleaned up as far as the store allows, each step
        // logged when it fails (the deletion itself stands).
        do {
            try await heldFactorStore?.remove(owner)
        } catch {
            context.logger.warning("the deleted user's held factors could not be removed",
                                   metadata: ["provider": "\(p.id)", "error": "\(AuthError.wrap(error).code)"])
        }
        guard store is any UserIndexedSessionStore else { return }
        do {
            for key in try await sessionKeys(ofUser: owner.user, provider: p.id) where key.account != account {
                try await manager(provider: key.provider, account: key.account).clear()
            }
        } catch {
            context.logger.warning("the deleted user's other sessions could not all be removed",
                                   metadata: ["provider": "\(p.id)", "error": "\(AuthError.wrap(error).code)"])
        }
    }
}
