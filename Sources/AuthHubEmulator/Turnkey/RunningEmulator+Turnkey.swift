import AuthHub
import Foundation

/// A Turnkey end user the emulator registered: their sub-organization, user and passkey ids.
public struct TurnkeyEmulatorUser: Sendable, Hashable {
    /// The user's sub-organization (what the proxy lookup returns for their email).
    public var organizationId: String
    /// The user inside it.
    public var userId: String
    /// The registered passkey authenticator.
    public var authenticatorId: String
}

extension RunningEmulator {
    /// Registers a Turnkey end user with a new passkey, as an app backend's sign-up would: the
    /// `authenticator` creates a credential for the emulator's RP ID (`localhost` unless configured)
    /// and `POST /turnkey/__emulator/users` verifies that registration and creates the user's
    /// sub-organization under `parentOrganizationId`.
    /// - Parameters:
    ///   - email: the user's email (what the proxy lookup searches).
    ///   - authenticator: the passkey authenticator that will later sign in (e.g. a
    ///     `SoftwarePasskeyAuthenticator`).
    ///   - relyingPartyID: the RP ID the emulator is configured with.
    ///   - parentOrganizationId: the app's parent organization (the `organizationId` of its
    ///     providers.json entry).
    ///   - transport: how to reach the emulator.
    /// - Throws: the authenticator's error, or ``AuthErrorCode/invalidRequest`` with the emulator's
    ///   reply when it refuses the registration (e.g. the email is taken).
    public func registerTurnkeyUser(email: String, authenticator: any PasskeyAuthenticator, relyingPartyID: String = "localhost",
                                    parentOrganizationId: String = "00000000-0000-4000-8000-0000000000aa",
                                    transport: any HTTPTransport) async throws -> TurnkeyEmulatorUser {
        let random = SystemRandom()
        let challenge = random.bytes(32)
        let registration = try await authenticator.makeCredential(PasskeyRegistrationOptions(
            relyingParty: PasskeyRelyingParty(id: relyingPartyID, name: "AuthHub emulator"),
            user: PasskeyUser(id: random.bytes(16), name: email, displayName: email),
            challenge: challenge, algorithms: [.es256], residentKey: .required))
        let body: JSONValue = [
            "parentOrganizationId": .string(parentOrganizationId), "email": .string(email),
            "authenticator": [
                "authenticatorName": "AuthHub passkey", "challenge": .string(Base64URL.encode(challenge)),
                "attestation": [
                    "credentialId": .string(Base64URL.encode(registration.credentialID)),
                    "clientDataJson": .string(Base64URL.encode(registration.clientDataJSON)),
                    "attestationObject": .string(Base64URL.encode(registration.attestationObject)),
                    "transports": .array(registration.transports.map(JSONValue.string)),
                ],
            ],
        ]
        let response = try await transport.send(.post, url("/turnkey/__emulator/users"), headerFields: [.contentType: "application/json"], body: try JSONEncoder().encode(body))
        let reply = try? JSONValue.parse(response.body)
        guard response.status == 200, let organizationId = reply?["organizationId"]?.stringValue,
              let userId = reply?["userId"]?.stringValue, let authenticatorId = reply?["authenticatorId"]?.stringValue
        else {
            let reason = reply?["message"]?.stringValue ?? "HTTP \(response.status)"
            throw AuthError(.invalidRequest, message: "The emulator did not register the Turnkey user: \(reason)", statusCode: response.status)
        }
        return TurnkeyEmulatorUser(organizationId: organizationId, userId: userId, authenticatorId: authenticatorId)
    }

    /// The emulator's Turnkey notarizer public key (uncompressed hex), which signs session JWTs:
    /// set it as `notarizerPublicKey` in providers.json to have clients check those signatures.
    public func turnkeyNotarizerPublicKey(transport: any HTTPTransport) async throws -> String {
        let response = try await transport.send(.get, url("/turnkey/__emulator/notarizer"))
        guard response.status == 200, let key = (try? JSONValue.parse(response.body))?["publicKey"]?.stringValue else {
            throw AuthError(.providerUnavailable, message: "The emulator did not give its Turnkey notarizer key (HTTP \(response.status)).")
        }
        return key
    }
}
