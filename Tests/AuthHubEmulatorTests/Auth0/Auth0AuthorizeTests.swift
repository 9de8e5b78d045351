import AuthHub
import AuthHubEmulator
import Foundation
import Testing

@Suite struct Auth0AuthorizeTests {
    func authorizePath(challenge: String, state: String = "st-123", nonce: String = "n-456", extra: [(String, String)] = []) -> String {
        "/auth0/authorize?" + queryString([
            ("client_id", Auth0Wire.clientId), ("redirect_uri", Auth0Wire.redirectURI), ("response_type", "code"),
            ("scope", "openid profile email offline_access"), ("state", state), ("nonce", nonce),
            ("code_challenge", challenge), ("code_challenge_method", "S256"),
        ] + extra)
    }

    func exchange(_ wire: Auth0Wire, code: String, verifier: String) async throws -> Auth0Wire.Reply {
        try await wire.post("/auth0/oauth/token", json: [
            "client_id": .string(Auth0Wire.clientId), "grant_type": "authorization_code", "code": .string(code),
            "code_verifier": .string(verifier), "redirect_uri": .string(Auth0Wire.redirectURI),
        ])
    }

    @Test func codeFlowWithPKCEVerifiesTheVerifier() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        let user = try await wire.seed("pkce@example.com")
        let hook: HTTPFields = [HTTPField.Name.constant("X-AuthHub-Emulator-User"): "pkce@example.com"]

        let pair = pkcePair()
        let first = try await wire.get(authorizePath(challenge: pair.challenge), headerFields: hook)
        let firstCode = try #require(first.query("code"))
        let wrongVerifier = try await exchange(wire, code: firstCode, verifier: pkcePair().verifier)
        let spent = try await exchange(wire, code: firstCode, verifier: pair.verifier)

        let second = try await wire.get(authorizePath(challenge: pair.challenge, extra: [("authhub_emulator_user", "pkce@example.com")]))
        let secondCode = try #require(second.query("code"))
        let success = try await exchange(wire, code: secondCode, verifier: pair.verifier)
        let replay = try await exchange(wire, code: secondCode, verifier: pair.verifier)
        let claims = try await wire.verifiedClaims(try #require(success.json?["id_token"]?.stringValue))
        await emulator.stop()

        #expect(first.status == 302)
        #expect(first.headerFields["Location"]?.hasPrefix(Auth0Wire.redirectURI + "?") == true)
        #expect(first.query("state") == "st-123")
        #expect(wrongVerifier.status == 403)
        #expect(wrongVerifier.json == ["error": "invalid_grant", "error_description": "Failed to verify code verifier"])
        #expect(spent.status == 403)
        #expect(spent.json?["error"] == "invalid_grant")

        #expect(second.status == 302)
        #expect(success.status == 200)
        #expect(success.json?["refresh_token"] != nil)
        #expect(claims["nonce"] == "n-456")
        #expect(claims["sub"] == user["user_id"])
        #expect(claims["aud"]?.stringValue == Auth0Wire.clientId)
        #expect(claims["iss"]?.stringValue == wire.issuer)
        #expect(replay.status == 403)
        #expect(replay.json == ["error": "invalid_grant", "error_description": "Invalid authorization code"])
    }

    @Test func authorizeErrorsRedirectOnlyToAValidRedirectURI() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        let registered = try await wire.post("/auth0/__emulator/clients", json: [
            "client_id": .string(Auth0Wire.clientId), "callbacks": [.string(Auth0Wire.redirectURI)],
        ])
        let challenge = pkcePair().challenge
        let wrongType = try await wire.get(authorizePath(challenge: challenge, extra: [("response_type", "token")]).replacingOccurrences(
            of: "response_type=code&", with: ""))
        let promptNone = try await wire.get(authorizePath(challenge: challenge, extra: [("prompt", "none")]))
        let denied = try await wire.get(authorizePath(challenge: challenge, extra: [("authhub_emulator_deny", "1")]))
        let unknownUser = try await wire.get(authorizePath(challenge: challenge), headerFields: [HTTPField.Name.constant("X-AuthHub-Emulator-User"): "ghost@example.com"])
        let plain = try await wire.get("/auth0/authorize?" + queryString([
            ("client_id", Auth0Wire.clientId), ("redirect_uri", Auth0Wire.redirectURI), ("response_type", "code"),
            ("state", "s"), ("code_challenge", challenge), ("code_challenge_method", "plain"),
        ]))
        let badRedirect = try await wire.get("/auth0/authorize?" + queryString([
            ("client_id", Auth0Wire.clientId), ("redirect_uri", "https://evil.example/cb"), ("response_type", "code"),
            ("code_challenge", challenge), ("code_challenge_method", "S256"),
        ]))
        let noClient = try await wire.get("/auth0/authorize?response_type=code")
        await emulator.stop()

        #expect(registered.status == 201)
        #expect(wrongType.status == 302)
        #expect(wrongType.query("error") == "unsupported_response_type")
        #expect(wrongType.query("state") == "st-123")
        #expect(promptNone.query("error") == "login_required")
        #expect(denied.query("error") == "access_denied")
        #expect(denied.query("error_description") == "User did not authorize the request")
        #expect(unknownUser.query("error") == "access_denied")
        #expect(plain.status == 302)
        #expect(plain.query("error") == "invalid_request")
        #expect(plain.query("state") == "s")
        #expect(badRedirect.status == 400)
        #expect(badRedirect.headerFields["Location"] == nil)
        #expect(badRedirect.json?["error"] == "invalid_request")
        #expect(noClient.status == 400)
        #expect(noClient.json == ["error": "invalid_request", "error_description": "Missing required parameter: client_id"])
    }

    @Test func logoutRedirectsOnlyToAnAllowedReturnTo() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        _ = try await wire.post("/auth0/__emulator/clients", json: [
            "client_id": .string(Auth0Wire.clientId), "callbacks": [.string(Auth0Wire.redirectURI)],
        ])
        let allowed = try await wire.get("/auth0/v2/logout?" + queryString([("returnTo", Auth0Wire.redirectURI), ("client_id", Auth0Wire.clientId)]))
        let federated = try await wire.get("/auth0/v2/logout?federated&" + queryString([("returnTo", Auth0Wire.redirectURI), ("client_id", Auth0Wire.clientId)]))
        let refused = try await wire.get("/auth0/v2/logout?" + queryString([("returnTo", "https://evil.example/"), ("client_id", Auth0Wire.clientId)]))
        let bare = try await wire.get("/auth0/v2/logout")
        await emulator.stop()

        #expect(allowed.status == 302)
        #expect(allowed.headerFields["Location"] == Auth0Wire.redirectURI)
        #expect(federated.status == 302)
        #expect(refused.status == 400)
        #expect(refused.headerFields["Location"] == nil)
        #expect(bare.status == 200)
    }

    @Test func loginPageFormCompletesTheFlow() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        try await wire.seed("page@example.com")
        let pair = pkcePair()
        let page = try await wire.get(authorizePath(challenge: pair.challenge, state: "<script>"))
        let transaction = try #require(page.text.firstMatch(of: /name="transaction" value="([^"]+)"/)?.1).description
        let wrong = try await wire.postForm("/auth0/u/login", [
            ("transaction", transaction), ("email", "page@example.com"), ("password", "nope nope nope"),
        ])
        let right = try await wire.postForm("/auth0/u/login", [
            ("transaction", transaction), ("email", "page@example.com"), ("password", "correct horse battery"),
        ])
        let reused = try await wire.postForm("/auth0/u/login", [
            ("transaction", transaction), ("email", "page@example.com"), ("password", "correct horse battery"),
        ])
        let token = try await exchange(wire, code: try #require(right.query("code")), verifier: pair.verifier)
        await emulator.stop()

        #expect(page.status == 200)
        #expect(page.headerFields["Content-Type"]?.hasPrefix("text/html") == true)
        #expect(page.text.contains("action=\"/auth0/u/login\""))
        #expect(!page.text.contains("<script>"))
        #expect(wrong.status == 400)
        #expect(wrong.text.contains("Wrong email or password."))
        #expect(right.status == 302)
        #expect(right.query("state") == "<script>")
        #expect(reused.status == 400)
        #expect(token.status == 200)
    }
}
