import Foundation

/// Signing in and up through the hub: one rule for a stored session (``SignInPolicy``), applied by the
/// key's ``SessionManager``.
extension AuthHub {
    /// Signs in, stores the session and publishes `signedIn`.
    ///
    /// **Signing in while signed in** (a session is stored for the same provider and account) follows
    /// one rule for every provider and every entry point (``SignInPolicy``, applied by
    /// ``SessionManager/signIn(method:policy:upgradesGuest:isolation:_:)``): the new session
    /// *replaces* the old one, and the old one is revoked at the provider in the background —
    /// bounded, logged and counted when it fails, never delaying the new session — the way
    /// Firebase and Auth0.swift replace the current user. One exception: signing in with an emailed
    /// code while signed in as a *guest* of a ``GuestUpgradingProvider`` (Openfort) upgrades that
    /// guest — the same user — instead. To keep several sessions of one provider, use `account`.
    @discardableResult
    public func signIn(_ request: SignInRequest, provider id: String? = nil, account: String = SessionKey.defaultAccount) async throws -> Session {
        // The second step of AuthHub-held factors (its token names the waiting sign-in).
        if case .mfa(let requirement, let response) = request, requirement.token.revealed().hasPrefix(HeldFactorGate.tokenPrefix) {
            switch response {
            case .otp(let code): return try await completeHeldSecondStep(token: requirement.token, response: .totp(code))
            case .recoveryCode(let code): return try await completeHeldSecondStep(token: requirement.token, response: .recoveryCode(code))
            case .oob: throw AuthError(.invalidRequest, message: "AuthHub-held factors take a code from an authenticator app or a recovery code.")
            }
        }
        let p = try provider(id)
        let upgrading = p as? any GuestUpgradingProvider
        var upgradesGuest = false
        if case .emailCode = request { upgradesGuest = upgrading != nil }
        return try await manager(provider: p.id, account: account).signIn(method: request.methodName, policy: signInPolicy,
                                                                         upgradesGuest: upgradesGuest) { guest in
            if let guest, let upgrading { return try await upgrading.signIn(request, upgrading: guest) }
            return try await p.signIn(request)
        }
    }

    /// Starts a passwordless sign-in (sends a code).
    public func startSignIn(_ request: SignInStartRequest, provider id: String? = nil) async throws -> SignInChallenge {
        let p = try provider(id)
        return try await mapped(p) { try await p.startSignIn(request) }
    }

    /// Creates an account; stores the session when the provider signs the user in at once.
    ///
    /// While signed in as a guest of a ``GuestUpgradingProvider`` (Openfort), the guest is upgraded:
    /// the same user gets the email and password. Otherwise a stored session is replaced by the new
    /// account's (and revoked), as for ``signIn(_:provider:account:)``.
    @discardableResult
    public func signUp(_ request: SignUpRequest, provider id: String? = nil, account: String = SessionKey.defaultAccount) async throws -> SignUpResult {
        let p = try provider(id)
        let upgrading = p as? any GuestUpgradingProvider
        return try await manager(provider: p.id, account: account).signUp(policy: signInPolicy, upgradesGuest: upgrading != nil) { guest in
            if let guest, let upgrading { return try await upgrading.signUp(request, upgrading: guest) }
            return try await p.signUp(request)
        }
    }
}
