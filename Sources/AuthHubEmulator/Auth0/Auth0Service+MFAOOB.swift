import enum AuthHub.JSONValue
import func AuthHub.constantTimeEquals
import AuthHubFactors
import Foundation
import HTTPTypes
import Hummingbird

/// Out-of-band MFA (AuthHubAuth0 docs, Auth0Endpoints: “MFA”): SMS and email authenticators whose codes are never sent
/// anywhere. Every `oob_code` comes with a 6-digit binding code (`binding_method: "prompt"`) that
/// the emulator-only hook `GET /auth0/__emulator/mfa-binding-code?oob_code=…` reveals.
extension Auth0Service {
    /// How long an `oob_code` stays valid.
    static let oobCodeLifetime: TimeInterval = 300
    /// Wrong binding codes after which an `oob_code` is dropped.
    static let oobMaximumFailures = 5
    /// The refusal for an unknown, spent, expired or foreign `oob_code`.
    static let invalidOOBCode = Auth0Failure.invalidGrant("Invalid oob_code.")
    /// A wrong binding code (AuthHubAuth0 docs, Auth0Errors: “Helpers and canonical codes”: `isMultifactorCodeInvalid`).
    static let invalidBindingCode = Auth0Failure.invalidGrant("Invalid binding_code.")

    /// The `/mfa/authenticators` entry of an OOB authenticator.
    static func authenticatorJSON(_ authenticator: Auth0OOBAuthenticator) -> JSONValue {
        [
            "id": .string(authenticator.id), "authenticator_type": "oob", "oob_channel": .string(authenticator.channel),
            "name": .string(authenticator.maskedName), "active": .bool(authenticator.confirmed),
            "type": .string(authenticator.factorType),
        ]
    }

    /// A new pending `oob_code` for `authenticatorId`, bound to the MFA token with `mfaTokenDigest`.
    func newOOBCode(mfaTokenDigest: String, userId: String, authenticatorId: String) -> (code: String, entry: Auth0OOBCode) {
        let entry = Auth0OOBCode(
            mfaTokenDigest: mfaTokenDigest, userId: userId, authenticatorId: authenticatorId, bindingCode: sixDigitCode(),
            failures: 0, expiresAt: now.addingTimeInterval(Self.oobCodeLifetime)
        )
        return (randomToken(), entry)
    }

    /// The reply of an OOB challenge: `{challenge_type:"oob", oob_code, binding_method:"prompt"}`.
    func oobChallenge(mfaToken: String, user: Auth0User, authenticator: Auth0OOBAuthenticator) async -> Response {
        let (code, entry) = newOOBCode(mfaTokenDigest: Auth0Tenant.digest(mfaToken), userId: user.userId, authenticatorId: authenticator.id)
        let at = now
        await state.update(Auth0Tenant.key) { tenant in
            tenant.purge(now: at)
            tenant.oobCodes[Auth0Tenant.digest(code)] = entry
        }
        return EmulatorResponse.json(
            ["challenge_type": "oob", "oob_code": .string(code), "binding_method": "prompt"],
            headers: [.cacheControl: "no-store"]
        )
    }

    private enum OOBAssociateOutcome: Sendable {
        case associated(recoveryCode: String?)
        case refused(Auth0Failure)
    }

    /// `POST /mfa/associate` for `authenticator_types: ["oob"]` with `oob_channels: ["sms"]` and
    /// `phone_number`, or `["email"]` and `email`: a pending authenticator and an `oob_code`
    /// (binding code "sent" to the target), plus a recovery code with the first enrollment. The
    /// `mfa-oob` grant with the binding code confirms it. Push (`auth0`) is refused.
    func associateOOB(_ parameters: Auth0Parameters, transaction: Auth0MFATransaction, mfaToken: String) async throws -> Response {
        let channels = parameters["oob_channels"]?.arrayValue?.compactMap(\.stringValue) ?? []
        guard !channels.isEmpty else { throw Auth0Failure.missing("oob_channels") }
        let channel: String
        let target: String
        switch channels {
        case ["sms"]:
            let phone = try parameters.required("phone_number")
            guard phone.filter(\.isNumber).count >= 4, phone.allSatisfy({ $0.isNumber || "+ -()".contains($0) }) else {
                throw Auth0Failure.invalidRequest("phone_number must be a phone number.")
            }
            channel = "sms"
            target = phone
        case ["email"]:
            guard let email = Self.validEmail(try parameters.required("email")) else {
                throw Auth0Failure.invalidRequest("email must be an email address.")
            }
            channel = "email"
            target = email
        default:
            throw Auth0Failure.invalidRequest("The emulator supports only the sms and email oob channels, one at a time.")
        }
        let authenticator = Auth0OOBAuthenticator(id: channel + "|dev_" + randomToken(bytes: 12), channel: channel, target: target,
                                                  confirmed: false)
        let (code, entry) = newOOBCode(mfaTokenDigest: Auth0Tenant.digest(mfaToken), userId: transaction.grant.userId,
                                       authenticatorId: authenticator.id)
        let recoveryId = "recovery-code|dev_" + randomToken(bytes: 12)
        let recovery = try RecoveryCodeSet.generate(count: 1, random: environment.random)
        let at = now
        let outcome: OOBAssociateOutcome = await state.update(Auth0Tenant.key) { tenant in
            guard let user = tenant.users[transaction.grant.userId] else { return .refused(.malformedMFAToken) }
            if user.totp?.confirmed == true || user.oob.contains(where: \.confirmed) {
                return .refused(.oauth("access_denied", "User is already enrolled.", status: .forbidden))
            }
            tenant.purge(now: at)
            tenant.users[user.userId]?.oob = [authenticator]
            tenant.oobCodes[Auth0Tenant.digest(code)] = entry
            guard user.recovery == nil else { return .associated(recoveryCode: nil) }
            tenant.users[user.userId]?.recovery = Auth0RecoveryAuthenticator(id: recoveryId, codes: recovery.set)
            return .associated(recoveryCode: recovery.codes.first?.revealed())
        }
        switch outcome {
        case .refused(let failure):
            throw failure
        case .associated(let recoveryCode):
            var body: [String: JSONValue] = [
                "authenticator_type": "oob", "oob_channel": .string(channel), "oob_code": .string(code), "binding_method": "prompt",
            ]
            if let recoveryCode { body["recovery_codes"] = [.string(recoveryCode)] }
            return EmulatorResponse.json(.object(body), headers: [.cacheControl: "no-store"])
        }
    }

    private enum OOBVerifyOutcome: Sendable {
        case verified
        case refused(Auth0Failure)
    }

    /// `mfa-oob` `{mfa_token, oob_code, binding_code}`: checks the binding code of an `oob_code`
    /// issued for the same MFA token, confirms a pending enrollment, spends the `oob_code` and the
    /// MFA token and issues tokens. A wrong binding code is `invalid_grant` "Invalid
    /// binding_code." and counts against the code, which is dropped after
    /// ``oobMaximumFailures`` failures; an unknown or spent `oob_code` is `invalid_grant`
    /// "Invalid oob_code.".
    func mfaOOBGrant(_ parameters: Auth0Parameters, clientId: String, request: Request, dpop: Auth0DPoPProof?) async throws -> Response {
        let mfaToken = try parameters.required("mfa_token")
        let oobCode = try parameters.required("oob_code")
        let transaction = try await mfaTransaction(mfaToken, clientId: clientId)
        let bindingCode = try parameters.required("binding_code")
        let at = now
        let tokenDigest = Auth0Tenant.digest(mfaToken)
        let codeDigest = Auth0Tenant.digest(oobCode)
        let outcome: OOBVerifyOutcome = await state.update(Auth0Tenant.key) { tenant in
            guard var entry = tenant.oobCodes[codeDigest], entry.expiresAt > at, entry.mfaTokenDigest == tokenDigest,
                  entry.userId == transaction.grant.userId,
                  let user = tenant.users[entry.userId],
                  let index = user.oob.firstIndex(where: { $0.id == entry.authenticatorId })
            else { return .refused(Self.invalidOOBCode) }
            guard constantTimeEquals(Array(entry.bindingCode.utf8), Array(bindingCode.utf8)) else {
                entry.failures += 1
                tenant.oobCodes[codeDigest] = entry.failures >= Self.oobMaximumFailures ? nil : entry
                return .refused(Self.invalidBindingCode)
            }
            tenant.oobCodes[codeDigest] = nil
            tenant.users[user.userId]?.oob[index].confirmed = true
            tenant.mfaTokens[tokenDigest] = nil
            return .verified
        }
        switch outcome {
        case .refused(let failure): throw failure
        case .verified: return try await issue(transaction.grant, request: request, dpop: dpop)
        }
    }

    /// `GET /auth0/__emulator/mfa-binding-code?oob_code=…` (emulator only): the binding code
    /// "sent" with a pending `oob_code`, `{"binding_code":"123456","oob_channel":"sms"}`, or 404.
    func mfaBindingCode(_ request: Request) async throws -> Response {
        let code = try Auth0Parameters.query(of: request).required("oob_code")
        let tenant = await state.get(Auth0Tenant.key)
        guard let entry = tenant.oobCodes[Auth0Tenant.digest(code)], entry.expiresAt > now else {
            return EmulatorResponse.json(["statusCode": 404, "error": "Not Found", "message": "No pending oob_code"], status: .notFound)
        }
        let channel = tenant.users[entry.userId]?.oob.first(where: { $0.id == entry.authenticatorId })?.channel
        var body: [String: JSONValue] = ["binding_code": .string(entry.bindingCode)]
        if let channel { body["oob_channel"] = .string(channel) }
        return EmulatorResponse.json(.object(body))
    }
}
