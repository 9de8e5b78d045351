import Foundation

/// Email actions through the hub (``EmailActionProvider``).
extension AuthHub {
    /// The ``EmailActionProvider`` behind `id`, or ``AuthErrorCode/unsupported`` naming `operation`.
    private func emailActions(_ p: any AuthProvider, _ operation: String) throws -> any EmailActionProvider {
        guard let actions = p as? any EmailActionProvider else {
            throw AuthError(.unsupported, message: "'\(p.id)' does not support \(operation) from the app (its emailed links complete on the provider's own pages).",
                            provider: p.id)
        }
        return actions
    }

    /// Sets a new password with the code from a password-reset message (``EmailActionProvider``).
    /// No session results: sign in with the new password.
    public func confirmPasswordReset(provider id: String? = nil, email: String? = nil, code: Secret<String>,
                                     newPassword: Secret<String>) async throws {
        let p = try provider(id)
        let actions = try emailActions(p, "confirming a password reset")
        try await mapped(p) { try await actions.confirmPasswordReset(email: email, code: code, newPassword: newPassword) }
    }

    /// Sends the signed-in user a message to verify their email address.
    public func sendEmailVerification(provider id: String? = nil, account: String = SessionKey.defaultAccount) async throws {
        let p = try provider(id)
        let actions = try emailActions(p, "email verification")
        let session = try await self.session(provider: p.id, account: account)
        try await mapped(p) { try await actions.sendEmailVerification(session) }
    }

    /// Verifies the email address with the code from the verification message; a stored session
    /// is then renewed, so that its claims show the verified address.
    /// - Returns: the renewed session, or nil when none is stored or it cannot be renewed.
    @discardableResult
    public func confirmEmailVerification(provider id: String? = nil, account: String = SessionKey.defaultAccount,
                                         code: Secret<String>) async throws -> Session? {
        let p = try provider(id)
        let actions = try emailActions(p, "email verification")
        let m = try manager(provider: p.id, account: account)
        let stored = try await m.current()
        try await mapped(p) { try await actions.confirmEmailVerification(code: code, session: stored) }
        guard let stored, stored.canRenew else { return nil }
        return try? await m.renew(scope: nil)
    }
}
