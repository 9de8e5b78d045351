import Foundation

/// Passkey sign-up through the hub (``PasskeySignUpProvider``).
extension AuthHub {
    /// Creates an account whose credential is a new passkey (``PasskeySignUpProvider``: Turnkey) and
    /// stores the session (replacing a stored one, as ``signIn(_:provider:account:)`` does).
    @discardableResult
    public func signUpWithPasskey(email: String, displayName: String? = nil, provider id: String? = nil,
                                  account: String = SessionKey.defaultAccount) async throws -> Session {
        let p = try provider(id)
        guard let passkeys = p as? any PasskeySignUpProvider else {
            throw AuthError(.unsupported, message: "'\(p.id)' does not create accounts with passkeys.", provider: p.id)
        }
        let result = try await manager(provider: p.id, account: account).signUp(method: "passkey", policy: signInPolicy, upgradesGuest: false) { _ in
            SignUpResult.signedIn(try await passkeys.signUpWithPasskey(email: email, displayName: displayName))
        }
        guard case .signedIn(let session) = result else {
            throw AuthError(.unknown, message: "The passkey sign-up did not sign in.", provider: p.id)
        }
        return session
    }
}
