import enum AuthHub.Base64URL
import enum AuthHub.JSONValue
import struct AuthHub.AuthError
import struct AuthHub.PasskeyAssertion
import struct AuthHub.PasskeyRegistration
import AuthHubFactors
import Foundation
import HTTPTypes
import Hummingbird

extension Auth0Service {
    /// The passkey grant (AuthHubAuth0 docs, Auth0Endpoints: “Passkeys”).
    static let webAuthnGrant = "urn:okta:params:oauth:grant-type:webauthn"
    /// The relying party the emulator's passkeys belong to. Auth0 needs a custom domain for native
    /// passkeys; the emulator uses the RP ID `localhost` and accepts the origins
    /// `https://localhost` and `http://localhost`, which a software authenticator can produce.
    static let passkeyRelyingParty = WebAuthnRelyingParty(id: "localhost", origins: ["https://localhost", "http://localhost"])
    static let passkeyTimeoutMilliseconds = 60_000
    static let passkeySessionLifetime: TimeInterval = 300

    /// `POST /passkey/challenge` `{client_id, realm?}` → `{auth_session, authn_params_public_key:
    /// {challenge, rpId, timeout, userVerification}}` for a discoverable-credential login.
    func passkeyChallenge(_ request: Request) async throws -> Response {
        let parameters = try await Auth0Parameters.body(of: request)
        let clientId = try parameters.required("client_id")
        let challenge = environment.random.bytes(32)
        let session = randomToken()
        let entry = Auth0PasskeySession(
            kind: .login, challenge: challenge, clientId: clientId,
            connection: parameters.string("realm") ?? Auth0Tenant.defaultConnection,
            expiresAt: now.addingTimeInterval(Self.passkeySessionLifetime)
        )
        await state.update(Auth0Tenant.key) { tenant in tenant.passkeySessions[Auth0Tenant.digest(session)] = entry }
        return EmulatorResponse.json([
            "auth_session": .string(session),
            "authn_params_public_key": [
                "challenge": .string(Base64URL.encode(challenge)), "rpId": .string(Self.passkeyRelyingParty.id),
                "timeout": .number(Double(Self.passkeyTimeoutMilliseconds)), "userVerification": "preferred",
            ],
        ], headers: [.cacheControl: "no-store"])
    }

    /// `POST /passkey/register` `{client_id, user_profile:{email, name?, …}, realm?}` → the
    /// creation options (AuthHubAuth0 docs, Auth0Endpoints: “Passkeys” step 2). The user is created only when the attestation
    /// verifies in the webauthn grant.
    func passkeyRegister(_ request: Request) async throws -> Response {
        let parameters = try await Auth0Parameters.body(of: request)
        let clientId = try parameters.required("client_id")
        let profile = Auth0Parameters(parameters["user_profile"]?.objectValue ?? [:])
        guard let email = profile.string("email")?.lowercased() else { throw Auth0Failure.missing("user_profile.email") }
        let connection = parameters.string("realm") ?? Auth0Tenant.defaultConnection
        if await state.get(Auth0Tenant.key).user(email: email, connection: connection) != nil {
            throw Auth0Failure.oauth("user_exists", "The user already exists.", status: .badRequest)
        }
        var attributes: [String: JSONValue] = [:]
        for key in ["name", "given_name", "family_name", "nickname", "picture", "phone_number"] {
            if let value = profile.string(key) { attributes[key] = .string(value) }
        }
        let userId = "auth0|" + environment.random.bytes(12).map { String(format: "%02x", $0) }.joined()
        let handle = environment.random.bytes(16)
        let challenge = environment.random.bytes(32)
        let session = randomToken()
        let entry = Auth0PasskeySession(
            kind: .signup(userId: userId, userHandle: handle, email: email, attributes: attributes),
            challenge: challenge, clientId: clientId, connection: connection,
            expiresAt: now.addingTimeInterval(Self.passkeySessionLifetime)
        )
        await state.update(Auth0Tenant.key) { tenant in tenant.passkeySessions[Auth0Tenant.digest(session)] = entry }
        let displayName = attributes["name"]?.stringValue ?? email
        return EmulatorResponse.json([
            "auth_session": .string(session),
            "authn_params_public_key": [
                "challenge": .string(Base64URL.encode(challenge)),
                "rp": ["id": .string(Self.passkeyRelyingParty.id), "name": "AuthHub Emulator"],
                "user": ["id": .string(Base64URL.encode(handle)), "name": .string(email), "displayName": .string(displayName)],
                "pubKeyCredParams": [["type": "public-key", "alg": -7], ["type": "public-key", "alg": -257]],
                "authenticatorSelection": ["residentKey": "required", "userVerification": "preferred"],
                "timeout": .number(Double(Self.passkeyTimeoutMilliseconds)),
            ],
        ], headers: [.cacheControl: "no-store"])
    }

    private enum PasskeyOutcome: Sendable {
        case signedIn(userId: String)
        case refused(Auth0Failure)
    }

    /// The webauthn grant `{auth_session, authn_response, scope?}`: verifies the attestation
    /// (signup) or assertion (login) with ``WebAuthnRelyingParty`` against the session's challenge,
    /// then issues tokens. The session is single-use.
    func webAuthnGrant(_ parameters: Auth0Parameters, clientId: String, request: Request, dpop: Auth0DPoPProof?) async throws -> Response {
        let session = try parameters.required("auth_session")
        guard let response = parameters["authn_response"], response.objectValue != nil else {
            throw Auth0Failure.missing("authn_response")
        }
        let digest = Auth0Tenant.digest(session)
        let at = now
        let outcome: PasskeyOutcome = await state.update(Auth0Tenant.key) { tenant in
            guard let entry = tenant.passkeySessions.removeValue(forKey: digest), entry.expiresAt > at, entry.clientId == clientId else {
                return .refused(.invalidGrant("Invalid or expired auth_session."))
            }
            let party = Self.passkeyRelyingParty
            do {
                switch entry.kind {
                case .signup(let userId, let handle, let email, let attributes):
                    let record = try party.verifyRegistration(try PasskeyRegistration(json: response), challenge: entry.challenge)
                    if tenant.user(email: email, connection: entry.connection) != nil {
                        return .refused(.oauth("user_exists", "The user already exists.", status: .badRequest))
                    }
                    tenant.users[userId] = Auth0User(
                        userId: userId, connection: entry.connection, email: email, username: nil, passwordHash: nil,
                        emailVerified: false, attributes: attributes, userMetadata: [:], mfaRequired: false, totp: nil,
                        recovery: nil, userHandle: handle, passkeys: [record], createdAt: at, updatedAt: at
                    )
                    return .signedIn(userId: userId)
                case .login:
                    let assertion = try PasskeyAssertion(json: response)
                    guard let user = tenant.users.values.first(where: { user in
                        user.connection == entry.connection && user.passkeys.contains { $0.id == assertion.credentialID }
                    }), let index = user.passkeys.firstIndex(where: { $0.id == assertion.credentialID })
                    else { return .refused(.invalidGrant("Unknown passkey.")) }
                    let updated = try party.verifyAssertion(
                        assertion, challenge: entry.challenge, credential: user.passkeys[index], userHandle: user.userHandle
                    )
                    tenant.users[user.userId]?.passkeys[index] = updated
                    return .signedIn(userId: user.userId)
                }
            } catch let error as AuthError {
                return .refused(.invalidGrant(error.message))
            } catch {
                return .refused(.invalidGrant("The passkey response could not be verified."))
            }
        }
        switch outcome {
        case .refused(let failure):
            throw failure
        case .signedIn(let userId):
            let grant = Auth0Grant(
                userId: userId, clientId: clientId, scopes: Auth0Grant.scopes(parameters.string("scope") ?? Self.defaultScope),
                audience: parameters.string("audience"), nonce: nil, authTime: at
            )
            return try await issue(grant, request: request, dpop: dpop)
        }
    }
}
