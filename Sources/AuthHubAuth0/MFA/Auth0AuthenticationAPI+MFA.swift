import AuthHub

extension Auth0AuthenticationAPI {
    /// The enrolled authenticators of the user an `mfa_required` error is about (<doc:Auth0Endpoints>: “MFA”), keeping
    /// only those whose `type` is in `factorsAllowed`.
    /// - Throws: ``AuthErrorCode/invalidRequest`` before sending when `factorsAllowed` is empty.
    public func listAuthenticators(mfaToken: Secret<String>, factorsAllowed: [String]) async throws -> [Auth0Authenticator] {
        guard !factorsAllowed.isEmpty else {
            throw AuthError(.invalidRequest, message: "factorsAllowed must name at least one factor type.", provider: api.provider,
                            providerCode: "invalid_request")
        }
        var request = APIRequest(.get, "mfa/authenticators", operation: .mfa)
        request.headerFields[.authorization] = "Bearer \(mfaToken.revealed())"
        let list = try await api.send(request, as: [Auth0Authenticator].self)
        return list.filter { factorsAllowed.contains($0.type ?? $0.authenticatorType) }
    }

    /// Asks Auth0 to send an out-of-band challenge to an authenticator (`POST /mfa/challenge`).
    public func challenge(mfaToken: Secret<String>, authenticatorID: String, options: Options = .none) async throws -> Auth0MFAChallenge {
        try await post("mfa/challenge", Auth0MFAChallengeRequest(mfaToken: mfaToken.revealed(), challengeType: "oob",
                                                                 authenticatorID: authenticatorID),
                       as: Auth0MFAChallenge.self, options: options, retry: .never, operation: .mfa)
    }

    /// Enrolls a factor for the user of an `mfa_required` error (`POST /mfa/associate`).
    public func enroll(mfaToken: Secret<String>, _ factor: Auth0MFAEnrollmentRequest,
                       options: Options = .none) async throws -> Auth0MFAEnrollment {
        let body = try Self.members(Auth0MFAAssociateRequest(factor))
        var request = try APIRequest.json(.post, "mfa/associate",
                                          JSONValue.object(body.merging(options.parameters) { _, caller in caller }), retry: .never,
                                          operation: .mfa)
        request.headerFields[.authorization] = "Bearer \(mfaToken.revealed())"
        request.headerFields.merge(options.headerFields)
        return try await api.send(request, as: Auth0MFAEnrollment.self)
    }

    /// Completes an `mfa_required` login with a one-time password (authenticator app).
    public func verify(mfaToken: Secret<String>, otp: Secret<String>, options: Options = .none) async throws -> Auth0Credentials {
        try await token(Auth0TokenRequest(grantType: GrantType.mfaOTP, otp: otp.revealed(), mfaToken: mfaToken.revealed()),
                        options: options, ensureOpenID: false, retry: .never, operation: .mfa)
    }

    /// Completes an `mfa_required` login with an out-of-band code (SMS, email, push), and the
    /// binding code the user typed when the challenge asked for one.
    public func verify(mfaToken: Secret<String>, oobCode: Secret<String>, bindingCode: Secret<String>? = nil,
                       options: Options = .none) async throws -> Auth0Credentials {
        try await token(Auth0TokenRequest(grantType: GrantType.mfaOOB, mfaToken: mfaToken.revealed(), oobCode: oobCode.revealed(),
                                          bindingCode: bindingCode?.revealed()),
                        options: options, ensureOpenID: false, retry: .never, operation: .mfa)
    }

    /// Completes an `mfa_required` login with a recovery code; the credentials may carry a new
    /// ``Auth0Credentials/recoveryCode``.
    public func verify(mfaToken: Secret<String>, recoveryCode: Secret<String>, options: Options = .none) async throws -> Auth0Credentials {
        try await token(Auth0TokenRequest(grantType: GrantType.mfaRecoveryCode, mfaToken: mfaToken.revealed(),
                                          recoveryCode: recoveryCode.revealed()),
                        options: options, ensureOpenID: false, retry: .never, operation: .mfa)
    }
}
