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
        var request = APIRequest(.get, "mfa/authenticators")
        request.headers["Authorization"] = "Bearer \(mfaToken.revealed())"
        guard let list = try json(try await api.send(request)).arrayValue else {
            throw AuthError(.invalidRequest, message: "The authenticator list from '\(api.provider)' is not an array.", provider: api.provider)
        }
        return try list.compactMap { entry in
            guard let id = entry["id"]?.stringValue, let kind = entry["authenticator_type"]?.stringValue else {
                throw AuthError(.invalidRequest, message: "An authenticator from '\(api.provider)' has no id or type.", provider: api.provider)
            }
            let authenticator = Auth0Authenticator(id: id, authenticatorType: kind, oobChannel: entry["oob_channel"]?.stringValue,
                                                   name: entry["name"]?.stringValue, active: entry["active"]?.boolValue ?? false,
                                                   type: entry["type"]?.stringValue)
            return factorsAllowed.contains(authenticator.type ?? kind) ? authenticator : nil
        }
    }

    /// Asks Auth0 to send an out-of-band challenge to an authenticator (`POST /mfa/challenge`).
    public func challenge(mfaToken: Secret<String>, authenticatorID: String, options: Options = .none) async throws -> Auth0MFAChallenge {
        let reply = try json(try await post("mfa/challenge", [
            "mfa_token": .string(mfaToken.revealed()), "challenge_type": "oob", "authenticator_id": .string(authenticatorID),
        ], options: options, retry: .never))
        return Auth0MFAChallenge(challengeType: try required("challenge_type", in: reply, of: "MFA challenge"),
                                 oobCode: reply["oob_code"]?.stringValue.map(Secret.init),
                                 bindingMethod: reply["binding_method"]?.stringValue)
    }

    /// Enrolls a factor for the user of an `mfa_required` error (`POST /mfa/associate`).
    public func enroll(mfaToken: Secret<String>, _ factor: Auth0MFAEnrollmentRequest,
                       options: Options = .none) async throws -> Auth0MFAEnrollment {
        let body: [String: JSONValue]
        switch factor {
        case .sms(let phone): body = ["authenticator_types": ["oob"], "oob_channels": ["sms"], "phone_number": .string(phone)]
        case .email(let email): body = ["authenticator_types": ["oob"], "oob_channels": ["email"], "email": .string(email)]
        case .otp: body = ["authenticator_types": ["otp"]]
        case .push: body = ["authenticator_types": ["oob"], "oob_channels": ["auth0"]]
        }
        var request = try APIRequest.json(.post, "mfa/associate",
                                          JSONValue.object(body.merging(options.parameters) { _, caller in caller }), retry: .never)
        request.headers["Authorization"] = "Bearer \(mfaToken.revealed())"
        for (name, value) in options.headers { request.headers[name] = value }
        let reply = try json(try await api.send(request))
        return Auth0MFAEnrollment(
            authenticatorType: try required("authenticator_type", in: reply, of: "MFA enrollment"),
            oobChannel: reply["oob_channel"]?.stringValue, oobCode: reply["oob_code"]?.stringValue.map(Secret.init),
            bindingMethod: reply["binding_method"]?.stringValue, secret: reply["secret"]?.stringValue.map(Secret.init),
            barcodeURI: reply["barcode_uri"]?.stringValue.map(Secret.init),
            recoveryCodes: reply["recovery_codes"]?.arrayValue?.compactMap { $0.stringValue.map(Secret.init) } ?? [])
    }

    /// Completes an `mfa_required` login with a one-time password (authenticator app).
    public func verify(mfaToken: Secret<String>, otp: Secret<String>, options: Options = .none) async throws -> Auth0Credentials {
        try await token(["grant_type": .string(GrantType.mfaOTP), "mfa_token": .string(mfaToken.revealed()),
                         "otp": .string(otp.revealed())], options: options, ensureOpenID: false, retry: .never)
    }

    /// Completes an `mfa_required` login with an out-of-band code (SMS, email, push), and the
    /// binding code the user typed when the challenge asked for one.
    public func verify(mfaToken: Secret<String>, oobCode: Secret<String>, bindingCode: Secret<String>? = nil,
                       options: Options = .none) async throws -> Auth0Credentials {
        try await token(Self.body([
            "grant_type": .string(GrantType.mfaOOB), "mfa_token": .string(mfaToken.revealed()),
            "oob_code": .string(oobCode.revealed()), "binding_code": bindingCode.map { .string($0.revealed()) },
        ]), options: options, ensureOpenID: false, retry: .never)
    }

    /// Completes an `mfa_required` login with a recovery code; the credentials may carry a new
    /// ``Auth0Credentials/recoveryCode``.
    public func verify(mfaToken: Secret<String>, recoveryCode: Secret<String>, options: Options = .none) async throws -> Auth0Credentials {
        try await token(["grant_type": .string(GrantType.mfaRecoveryCode), "mfa_token": .string(mfaToken.revealed()),
                         "recovery_code": .string(recoveryCode.revealed())], options: options, ensureOpenID: false, retry: .never)
    }
}
