import enum AuthHub.Base64URL
import enum AuthHub.JSONValue
import struct AuthHub.Secret
import func AuthHub.constantTimeEquals
import AuthHubFactors
import Crypto
import Foundation
import HTTPTypes
import Hummingbird

extension Auth0Service {
    // MARK: - MFA

    /// The MFA transaction of `token` for `clientId` (nil client: any).
    func mfaTransaction(_ token: String, clientId: String?) async throws -> Auth0MFATransaction {
        let tenant = await state.get(Auth0Tenant.key)
        guard let transaction = tenant.mfaTokens[Auth0Tenant.digest(token)],
              clientId == nil || transaction.grant.clientId == clientId
        else { throw Auth0Failure.malformedMFAToken }
        guard transaction.expiresAt > now else { throw Auth0Failure.expiredMFAToken }
        return transaction
    }

    private enum MFAOutcome: Sendable {
        case verified(extra: [String: JSONValue])
        case refused(Auth0Failure)
    }

    /// `mfa-otp`: verifies a TOTP code with ``TOTP`` at the emulator's clock, refusing replays,
    /// confirms a pending enrollment, spends the MFA token and issues tokens.
    func mfaOTPGrant(_ parameters: Auth0Parameters, clientId: String, request: Request, dpop: Auth0DPoPProof?) async throws -> Response {
        let mfaToken = try parameters.required("mfa_token")
        let otp = try parameters.required("otp")
        let transaction = try await mfaTransaction(mfaToken, clientId: clientId)
        let at = now
        let outcome: MFAOutcome = await state.update(Auth0Tenant.key) { tenant in
            guard let user = tenant.users[transaction.grant.userId], var authenticator = user.totp else {
                return .refused(.invalidGrant("User is not enrolled. You can use /mfa/associate endpoint to enroll the first authenticator."))
            }
            guard let step = try? authenticator.totp.verify(Secret(otp), at: at, after: authenticator.lastStep) else {
                return .refused(.invalidOTP)
            }
            authenticator.lastStep = step
            authenticator.confirmed = true
            tenant.users[user.userId]?.totp = authenticator
            tenant.mfaTokens[Auth0Tenant.digest(mfaToken)] = nil
            return .verified(extra: [:])
        }
        switch outcome {
        case .refused(let failure): throw failure
        case .verified(let extra): return try await issue(transaction.grant, request: request, dpop: dpop, extra: extra)
        }
    }

    /// `mfa-recovery-code`: spends a recovery code and answers with tokens and a new
    /// `recovery_code` (Auth0 replaces a used code).
    func mfaRecoveryGrant(_ parameters: Auth0Parameters, clientId: String, request: Request, dpop: Auth0DPoPProof?) async throws -> Response {
        let mfaToken = try parameters.required("mfa_token")
        let code = try parameters.required("recovery_code")
        let transaction = try await mfaTransaction(mfaToken, clientId: clientId)
        let replacement = try RecoveryCodeSet.generate(count: 1, random: environment.random)
        let outcome: MFAOutcome = await state.update(Auth0Tenant.key) { tenant in
            guard var recovery = tenant.users[transaction.grant.userId]?.recovery else {
                return .refused(.invalidGrant("Invalid recovery_code."))
            }
            guard recovery.consume(code) else {
                return .refused(.invalidGrant("Invalid recovery_code."))
            }
            recovery.codes = replacement.set
            recovery.codeDigests = []
            tenant.users[transaction.grant.userId]?.recovery = recovery
            tenant.mfaTokens[Auth0Tenant.digest(mfaToken)] = nil
            return .verified(extra: ["recovery_code": .string(replacement.codes.first?.revealed() ?? "")])
        }
        switch outcome {
        case .refused(let failure): throw failure
        case .verified(let extra): return try await issue(transaction.grant, request: request, dpop: dpop, extra: extra)
        }
    }

    /// The MFA token of the `Authorization: Bearer` header.
    func bearerMFATransaction(_ request: Request) async throws -> Auth0MFATransaction {
        guard let token = request.bearerToken else { throw Auth0Failure.invalidToken("Missing mfa_token in the Authorization header.") }
        return try await mfaTransaction(token, clientId: nil)
    }

    /// `GET /mfa/authenticators`: the user's authenticators (TOTP, SMS/email OOB, recovery code,
    /// and push authenticators enrolled through the My Account API as `{authenticator_type:"oob",
    /// oob_channel:"auth0", type:"push-notification"}`); `active` is false for an enrollment not
    /// yet confirmed by a code.
    func listAuthenticators(_ request: Request) async throws -> Response {
        let transaction = try await bearerMFATransaction(request)
        let user = await state.get(Auth0Tenant.key).users[transaction.grant.userId]
        var list: [JSONValue] = []
        if let totp = user?.totp {
            list.append(["id": .string(totp.id), "authenticator_type": "otp", "type": "otp", "active": .bool(totp.confirmed)])
        }
        for authenticator in user?.oob ?? [] {
            list.append(Self.authenticatorJSON(authenticator))
        }
        for push in user?.push ?? [] {
            list.append([
                "id": .string(push.id), "authenticator_type": "oob", "oob_channel": "auth0", "type": "push-notification",
                "active": true,
            ])
        }
        if let recovery = user?.recovery {
            list.append(["id": .string(recovery.id), "authenticator_type": "recovery-code", "type": "recovery-code", "active": true])
        }
        return EmulatorResponse.json(.array(list))
    }

    /// `POST /mfa/challenge` `{client_id, mfa_token, challenge_type, authenticator_id?}`
    /// (`challenge_type` may list several types, space-separated, as v2 sent it).
    ///
    /// - `oob`: with the `authenticator_id` of a confirmed SMS or email authenticator (or, without
    ///   one, the first such authenticator) it answers `{challenge_type:"oob", oob_code,
    ///   binding_method:"prompt"}` and "sends" a 6-digit binding code (read it with
    ///   `GET /auth0/__emulator/mfa-binding-code?oob_code=…`).
    /// - `otp`: there is nothing to send, so it answers `{"challenge_type":"otp"}`.
    ///
    /// An `authenticator_id` the user does not have is `400 invalid_request`; a user without an
    /// authenticator of a requested type gets `400 unsupported_challenge_type`.
    func challenge(_ request: Request) async throws -> Response {
        let parameters = try await Auth0Parameters.body(of: request)
        let clientId = try parameters.required("client_id")
        let mfaToken = try parameters.required("mfa_token")
        let transaction = try await mfaTransaction(mfaToken, clientId: clientId)
        let types = Auth0Grant.scopes(parameters.string("challenge_type") ?? "otp")
        let authenticatorId = parameters.string("authenticator_id")
        guard let user = await state.get(Auth0Tenant.key).users[transaction.grant.userId] else { throw Auth0Failure.malformedMFAToken }
        if types.contains("oob"),
           let authenticator = user.oob.first(where: { $0.confirmed && (authenticatorId == nil || $0.id == authenticatorId) }) {
            return await oobChallenge(mfaToken: mfaToken, user: user, authenticator: authenticator)
        }
        if types.contains("otp"), let totp = user.totp, authenticatorId == nil || authenticatorId == totp.id {
            return EmulatorResponse.json(["challenge_type": "otp"])
        }
        guard types.contains("otp") || types.contains("oob") else {
            throw Auth0Failure.invalidRequest("challenge_type must be otp or oob.")
        }
        if authenticatorId != nil { throw Auth0Failure.invalidRequest("Invalid authenticator_id.") }
        throw Auth0Failure.oauth("unsupported_challenge_type", "User is not enrolled with an authenticator of the requested type.",
                                 status: .badRequest)
    }

    private enum AssociateOutcome: Sendable {
        case associated(account: String, recoveryCode: String?)
        case refused(Auth0Failure)
    }

    /// `POST /mfa/associate` for `authenticator_types: ["otp"]`: a fresh TOTP secret (base32) and
    /// its `otpauth://` URI, plus a recovery code with the first enrollment. The authenticator
    /// becomes active once an `mfa-otp` grant accepts a code. `["oob"]` enrolls an SMS or email
    /// authenticator (``associateOOB(_:transaction:mfaToken:)``); other factor types are refused.
    func associate(_ request: Request) async throws -> Response {
        let transaction = try await bearerMFATransaction(request)
        let parameters = try await Auth0Parameters.body(of: request)
        let types = parameters["authenticator_types"]?.arrayValue?.compactMap(\.stringValue) ?? []
        guard !types.isEmpty else { throw Auth0Failure.missing("authenticator_types") }
        if types == ["oob"], let mfaToken = request.bearerToken {
            return try await associateOOB(parameters, transaction: transaction, mfaToken: mfaToken)
        }
        guard types == ["otp"] else {
            throw Auth0Failure.invalidRequest("The emulator supports only the otp and oob authenticator types.")
        }
        let secret = environment.random.bytes(20)
        let totp = try TOTP(secret: Secret(secret))
        let authenticatorId = "totp|dev_" + randomToken(bytes: 12)
        let recoveryId = "recovery-code|dev_" + randomToken(bytes: 12)
        let recovery = try RecoveryCodeSet.generate(count: 1, random: environment.random)
        let outcome: AssociateOutcome = await state.update(Auth0Tenant.key) { tenant in
            guard let user = tenant.users[transaction.grant.userId] else { return .refused(.malformedMFAToken) }
            if user.totp?.confirmed == true || user.oob.contains(where: \.confirmed) {
                return .refused(.oauth("access_denied", "User is already enrolled.", status: .forbidden))
            }
            tenant.users[user.userId]?.totp = Auth0TOTPAuthenticator(id: authenticatorId, totp: totp, confirmed: false, lastStep: nil)
            var code: String?
            if user.recovery == nil {
                tenant.users[user.userId]?.recovery = Auth0RecoveryAuthenticator(id: recoveryId, codes: recovery.set)
                code = recovery.codes.first?.revealed()
            }
            return .associated(account: user.email, recoveryCode: code)
        }
        switch outcome {
        case .refused(let failure):
            throw failure
        case .associated(let account, let recoveryCode):
            let uri = try OTPAuthURI(totp: totp, account: account, issuer: "AuthHub Emulator")
            var body: [String: JSONValue] = [
                "authenticator_type": "otp",
                "secret": .string(Base32.encode(secret)),
                "barcode_uri": .string(uri.string.revealed()),
            ]
            if let recoveryCode { body["recovery_codes"] = [.string(recoveryCode)] }
            return EmulatorResponse.json(.object(body), headers: [.cacheControl: "no-store"])
        }
    }
}
