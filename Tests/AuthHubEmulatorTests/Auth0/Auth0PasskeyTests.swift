import AuthHub
import AuthHubEmulator
import AuthHubFactors
import Foundation
import Testing

@Suite struct Auth0PasskeyTests {
    func webAuthnGrant(_ wire: Auth0Wire, session: String, response: JSONValue) async throws -> Auth0Wire.Reply {
        try await wire.post("/auth0/oauth/token", json: [
            "client_id": .string(Auth0Wire.clientId), "grant_type": "urn:okta:params:oauth:grant-type:webauthn",
            "auth_session": .string(session), "authn_response": response, "scope": "openid email",
        ])
    }

    @Test func passkeySignupThenLoginVerifiedByTheRelyingParty() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        let authenticator = try SoftwarePasskeyAuthenticator(store: InMemoryPasskeyCredentialStore())

        let register = try await wire.post("/auth0/passkey/register", json: [
            "client_id": .string(Auth0Wire.clientId), "user_profile": ["email": "key@example.com", "name": "Key Holder"],
        ])
        let registerBody = try #require(register.json)
        let creation = try PasskeyRegistrationOptions(
            json: try #require(registerBody["authn_params_public_key"]), origin: "https://localhost"
        )
        let registration = try await authenticator.makeCredential(creation)
        let signup = try await webAuthnGrant(wire, session: try #require(registerBody["auth_session"]?.stringValue),
                                             response: registration.json)
        let signupClaims = try await wire.verifiedClaims(try #require(signup.json?["id_token"]?.stringValue))

        let challenge = try #require(try await wire.post("/auth0/passkey/challenge", json: ["client_id": .string(Auth0Wire.clientId)]).json)
        let request = try PasskeyAssertionOptions(json: try #require(challenge["authn_params_public_key"]), origin: "https://localhost")
        let assertion = try await authenticator.getAssertion(request)
        let session = try #require(challenge["auth_session"]?.stringValue)
        let login = try await webAuthnGrant(wire, session: session, response: assertion.json)
        let replay = try await webAuthnGrant(wire, session: session, response: assertion.json)
        let loginClaims = try await wire.verifiedClaims(try #require(login.json?["id_token"]?.stringValue))

        // An assertion over another challenge is refused.
        let other = try #require(try await wire.post("/auth0/passkey/challenge", json: ["client_id": .string(Auth0Wire.clientId)]).json)
        let wrongChallenge = try await webAuthnGrant(wire, session: try #require(other["auth_session"]?.stringValue), response: assertion.json)
        await emulator.stop()

        #expect(register.status == 200)
        #expect(registerBody["authn_params_public_key"]?["rp"]?["id"] == "localhost")
        #expect(signup.status == 200)
        #expect(signupClaims["email"] == "key@example.com")
        #expect(challenge["authn_params_public_key"]?["rpId"] == "localhost")
        #expect(login.status == 200)
        #expect(loginClaims["sub"] == signupClaims["sub"])
        #expect(replay.status == 403)
        #expect(replay.json?["error"] == "invalid_grant")
        #expect(wrongChallenge.status == 403)
        #expect(wrongChallenge.json?["error"] == "invalid_grant")
    }
}
