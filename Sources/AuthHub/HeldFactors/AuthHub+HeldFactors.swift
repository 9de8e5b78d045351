import Foundation

/// AuthHub's own factors (TOTP, passkeys, recovery codes) for providers without them: turned on
/// with a ``HeldFactorService`` (`AuthHubFactors`' `HeldFactors`), kept in the session store's
/// ``HeldFactorStore``, listed and enrolled through the account API beside the provider's own
/// methods, and asked for as a second step after the provider's sign-in.
extension AuthHub {
    /// Turns AuthHub-held factors on (or off, with nil) for the providers `service` covers: from
    /// now on, a sign-in at such a provider whose user holds a confirmed factor throws
    /// ``AuthErrorCode/mfaRequired`` (its ``MFARequirement/token`` starts `authhub-held.`) and the
    /// session is stored only after ``completeHeldSecondStep(token:response:)``.
    public func useHeldFactors(_ service: (any HeldFactorService)?) {
        heldFactorGate.use(service)
    }

    /// The service turned on with ``useHeldFactors(_:)``.
    public var heldFactors: (any HeldFactorService)? { heldFactorGate.current }

    /// Where this hub's session store keeps AuthHub-held factors (memory, file and PostgreSQL stores
    /// have one), nil for a store without.
    public var heldFactorStore: (any HeldFactorStore)? { (store as? any HeldFactorStoring)?.heldFactorStore }

    /// Whether `error` is a sign-in waiting for an AuthHub-held second step.
    public static func isHeldSecondStep(_ error: AuthError) -> Bool {
        error.code == .mfaRequired && error.mfa?.token.revealed().hasPrefix(HeldFactorGate.tokenPrefix) == true
    }

    /// The second step a waiting sign-in asks for (its passkey options included), nil when `token`
    /// names none (unknown, answered, expired).
    public func heldSecondStep(token: Secret<String>) -> HeldSecondStep? {
        heldFactorGate.step(token.revealed())
    }

    /// Answers the second step of a sign-in that threw ``AuthErrorCode/mfaRequired`` with an
    /// `authhub-held.` token, then stores its session (replacing and revoking a stored one as any
    /// sign-in does) and returns it.
    /// - Throws: ``AuthErrorCode/invalidMFACode`` for a wrong answer (up to five, then
    ///   ``AuthErrorCode/sessionExpired``); ``AuthErrorCode/sessionExpired`` when the sign-in is
    ///   unknown, answered already or older than five minutes.
    @discardableResult
    public func completeHeldSecondStep(token: Secret<String>, response: HeldSecondStepResponse) async throws -> Session {
        let answered = try await heldFactorGate.answer(token.revealed(), response: response)
        let manager = try manager(provider: answered.key.provider, account: answered.key.account)
        return try await manager.finishSignIn(answered.session, after: answered.start, policy: answered.policy, secondStepPassed: true)
    }

    /// The held-factor service for provider `p` and the signed-in user's owner, for the account API.
    func heldFactorOwner(_ p: any AuthProvider, _ manager: SessionManager) async throws -> (any HeldFactorService, HeldFactorOwner)? {
        guard let service = heldFactorGate.service(for: p) else { return nil }
        let session = try await manager.session(minTTL: 0)
        guard let owner = HeldFactorOwner(session) else {
            throw AuthError(.invalidConfiguration, message: "The session of provider '\(p.id)' names no user to keep factors for.", provider: p.id)
        }
        return (service, owner)
    }
}
