import AuthHub
import AuthHubEmulator
import AuthHubTesting
import Crypto
import Foundation
import Testing
import _CryptoExtras

/// RSA keys for client assertions: generated once for the suite (2048-bit keygen is slow in debug
/// builds). `registered` is the client's credential, `stranger` a key never registered.
enum ConfidentialKeys {
    static var registered: _RSA.Signing.PrivateKey { SharedTestRSAKeys.first }
    static var stranger: _RSA.Signing.PrivateKey { SharedTestRSAKeys.second }
}

/// Client authentication (`client_secret_post`, `client_secret_basic`, `private_key_jwt`) and
/// pushed authorization requests at the emulated Auth0 tenant, over real HTTP, with every request
/// and assertion built here by hand (no client module).
@Suite struct Auth0EmulatorConfidentialClientTests {
    static let token = "/auth0/oauth/token"
    static let par = "/auth0/oauth/par"
    static let secret = "s3cr3t-with:colon+plus%percent-0123456789abcdef"
    static let email = "confidential@example.com"
    static let password = "correct horse battery"

    // MARK: - Helpers

    /// Starts an emulator on a fake clock with the test user.
    func start() async throws -> (RunningEmulator, Auth0Wire, FakeClock) {
        let clock = FakeClock()
        let emulator = try await Emulator.start(EmulatorConfiguration(clock: clock))
        let wire = Auth0Wire(emulator: emulator)
        try await wire.seed(Self.email, password: Self.password)
        return (emulator, wire, clock)
    }

    func register(_ wire: Auth0Wire, _ body: [String: JSONValue]) async throws -> Auth0Wire.Reply {
        var all: [String: JSONValue] = ["callbacks": [.string(Auth0Wire.redirectURI)]]
        all.merge(body) { _, new in new }
        return try await wire.post("/auth0/__emulator/clients", json: .object(all))
    }

    /// A form POST with extra header fields.
    func form(_ wire: Auth0Wire, _ path: String, _ fields: [(String, String)], headers: HTTPFields = [:]) async throws -> Auth0Wire.Reply {
        var all = headers
        all[.contentType] = "application/x-www-form-urlencoded"
        return try await wire.send(.post, path, headerFields: all, body: Data(queryString(fields).utf8))
    }

    /// The password grant's fields (without client authentication but `client_id` when given).
    func passwordGrant(clientId: String?) -> [(String, String)] {
        var fields = [("grant_type", "password"), ("username", Self.email), ("password", Self.password), ("scope", "openid")]
        if let clientId { fields.insert(("client_id", clientId), at: 0) }
        return fields
    }

    /// `Authorization: Basic …` with both parts form-urlencoded (RFC 6749, section 2.3.1).
    static func basic(_ id: String, _ secret: String) -> HTTPFields {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let encode = { (text: String) in text.addingPercentEncoding(withAllowedCharacters: allowed) ?? "" }
        let credentials = Data((encode(id) + ":" + encode(secret)).utf8).base64EncodedString()
        return [.authorization: "Basic \(credentials)"]
    }

    static func spki(_ key: _RSA.Signing.PrivateKey) -> String { key.publicKey.pemRepresentation }

    static func jwtClient(_ id: String, alg: String = "RS256", kid: String? = "k1", key: _RSA.Signing.PrivateKey = ConfidentialKeys.registered) -> [String: JSONValue] {
        var credential: [String: JSONValue] = ["credential_type": "public_key", "pem": .string(spki(key)), "alg": .string(alg)]
        if let kid { credential["kid"] = .string(kid) }
        return [
            "client_id": .string(id), "token_endpoint_auth_method": "private_key_jwt",
            "client_authentication_methods": ["private_key_jwt": ["credentials": [.object(credential)]]],
        ]
    }

    static func encode(_ object: [String: JSONValue]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Base64URL.encode(try encoder.encode(JSONValue.object(object)))
    }

    /// A client assertion: header `alg`/`kid` (plus `header` overrides), claims `iss`/`sub`
    /// `clientId`, `aud`, `iat` now, `exp` now + 60, a fresh `jti` (plus `claims` overrides; a
    /// `.null` override removes the claim), signed by `key` with `alg`.
    static func assertion(
        clientId: String, audience: String, now: Date, alg: String = "RS256", kid: String? = "k1",
        key: _RSA.Signing.PrivateKey = ConfidentialKeys.registered,
        header: [String: JSONValue] = [:], claims: [String: JSONValue] = [:]
    ) throws -> String {
        var head: [String: JSONValue] = ["alg": .string(alg), "typ": "JWT"]
        if let kid { head["kid"] = .string(kid) }
        head.merge(header) { _, new in new }
        var body: [String: JSONValue] = [
            "iss": .string(clientId), "sub": .string(clientId), "aud": .string(audience),
            "iat": .number(now.timeIntervalSince1970.rounded(.down)), "exp": .number(now.timeIntervalSince1970.rounded(.down) + 60),
            "jti": .string(UUID().uuidString),
        ]
        for (name, value) in claims { body[name] = value == .null ? nil : value }
        let input = try encode(head) + "." + encode(body)
        let data = Data(input.utf8)
        let signature: Data
        switch head["alg"]?.stringValue {
        case "RS256": signature = Data(try key.signature(for: SHA256.hash(data: data), padding: .insecurePKCS1v1_5).rawRepresentation)
        case "RS384": signature = Data(try key.signature(for: SHA384.hash(data: data), padding: .insecurePKCS1v1_5).rawRepresentation)
        case "PS256": signature = Data(try key.signature(for: SHA256.hash(data: data), padding: .PSS).rawRepresentation)
        case "HS256":
            // HS256 "signed" with the registered public key's PEM as the HMAC secret (the key-confusion attack).
            signature = Data(HMAC<SHA256>.authenticationCode(for: data, using: SymmetricKey(data: Data(spki(key).utf8))))
        case "ES256": signature = try P256.Signing.PrivateKey().signature(for: data).rawRepresentation
        default: signature = Data()
        }
        return input + "." + Base64URL.encode(signature)
    }

    static func assertionFields(_ assertion: String) -> [(String, String)] {
        [("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"), ("client_assertion", assertion)]
    }

    /// PAR fields for a code flow with PKCE.
    static func authorizeFields(clientId: String, challenge: String, state: String = "st-par", nonce: String = "n-par") -> [(String, String)] {
        [
            ("client_id", clientId), ("redirect_uri", Auth0Wire.redirectURI), ("response_type", "code"),
            ("scope", "openid profile email offline_access"), ("state", state), ("nonce", nonce),
            ("code_challenge", challenge), ("code_challenge_method", "S256"),
        ]
    }

    static let loginHook: HTTPFields = [HTTPField.Name("X-AuthHub-Emulator-User")!: email]

    // MARK: - client_secret_post

    @Test func clientSecretPostNeedsTheSecretInTheBody() async throws {
        let (emulator, wire, _) = try await start()
        let registered = try await register(wire, [
            "client_id": "web-post", "token_endpoint_auth_method": "client_secret_post", "client_secret": .string(Self.secret),
        ])
        let ok = try await form(wire, Self.token, passwordGrant(clientId: "web-post") + [("client_secret", Self.secret)])
        let okJSON = try await wire.post(Self.token, json: [
            "client_id": "web-post", "client_secret": .string(Self.secret), "grant_type": "password",
            "username": .string(Self.email), "password": .string(Self.password),
        ])
        let wrong = try await form(wire, Self.token, passwordGrant(clientId: "web-post") + [("client_secret", Self.secret + "x")])
        let missing = try await form(wire, Self.token, passwordGrant(clientId: "web-post"))
        let viaBasic = try await form(wire, Self.token, passwordGrant(clientId: "web-post"), headers: Self.basic("web-post", Self.secret))
        let both = try await form(wire, Self.token, passwordGrant(clientId: "web-post") + [("client_secret", Self.secret)],
                                  headers: Self.basic("web-post", Self.secret))
        let refresh = try await form(wire, Self.token, [
            ("client_id", "web-post"), ("client_secret", Self.secret), ("grant_type", "password"), ("username", Self.email),
            ("password", Self.password), ("scope", "openid offline_access"),
        ])
        let refreshToken = try #require(refresh.json?["refresh_token"]?.stringValue)
        let revokeRefused = try await form(wire, "/auth0/oauth/revoke", [("client_id", "web-post"), ("token", refreshToken)])
        let revoked = try await form(wire, "/auth0/oauth/revoke", [("client_id", "web-post"), ("client_secret", Self.secret), ("token", refreshToken)])
        let deviceCode = try await form(wire, "/auth0/oauth/device/code", [("client_id", "web-post"), ("client_secret", Self.secret)])
        let deviceCodeRefused = try await form(wire, "/auth0/oauth/device/code", [("client_id", "web-post")])
        // A public client is unchanged: client_id alone.
        let publicClient = try await form(wire, Self.token, passwordGrant(clientId: "some-public-app"))
        await emulator.stop()

        #expect(registered.status == 201)
        #expect(registered.json?["token_endpoint_auth_method"] == "client_secret_post")
        #expect(!registered.text.contains(Self.secret), "the reply never shows the secret")
        #expect(registered.json?["client_secret"] == nil)
        #expect(ok.status == 200)
        #expect(ok.json?["access_token"] != nil)
        #expect(okJSON.status == 200)
        let unauthorized: JSONValue = ["error": "access_denied", "error_description": "Unauthorized"]
        for refused in [wrong, missing, viaBasic, both] {
            #expect(refused.status == 401)
            #expect(refused.json == unauthorized)
        }
        #expect(viaBasic.headerFields[.wwwAuthenticate] == nil)
        #expect(revokeRefused.status == 401)
        #expect(revoked.status == 200)
        #expect(publicClient.status == 200)
        #expect(deviceCode.status == 200)
        #expect(deviceCode.json?["device_code"] != nil)
        #expect(deviceCodeRefused.status == 401)
    }

    // MARK: - client_secret_basic

    @Test func clientSecretBasicNeedsTheBasicHeader() async throws {
        let (emulator, wire, _) = try await start()
        _ = try await register(wire, [
            "client_id": "web-basic", "token_endpoint_auth_method": "client_secret_basic", "client_secret": .string(Self.secret),
        ])
        let ok = try await form(wire, Self.token, passwordGrant(clientId: "web-basic"), headers: Self.basic("web-basic", Self.secret))
        let okWithoutBodyId = try await form(wire, Self.token, passwordGrant(clientId: nil), headers: Self.basic("web-basic", Self.secret))
        let wrong = try await form(wire, Self.token, passwordGrant(clientId: "web-basic"), headers: Self.basic("web-basic", "nope" + Self.secret))
        let inBody = try await form(wire, Self.token, passwordGrant(clientId: "web-basic") + [("client_secret", Self.secret)])
        let missing = try await form(wire, Self.token, passwordGrant(clientId: "web-basic"))
        let mismatch = try await form(wire, Self.token, passwordGrant(clientId: "other-app"), headers: Self.basic("web-basic", Self.secret))
        let garbled = try await form(wire, Self.token, passwordGrant(clientId: "web-basic"), headers: [.authorization: "Basic !!!"])
        await emulator.stop()

        #expect(ok.status == 200)
        #expect(okWithoutBodyId.status == 200)
        for refused in [wrong, inBody, missing] {
            #expect(refused.status == 401)
            #expect(refused.json == ["error": "access_denied", "error_description": "Unauthorized"])
        }
        #expect(wrong.headerFields[.wwwAuthenticate] == nil)
        #expect(mismatch.status == 401)
        #expect(mismatch.json?["error"] == "invalid_client")
        #expect(garbled.status == 401)
        #expect(garbled.json?["error"] == "invalid_client")
    }

    // MARK: - private_key_jwt

    @Test func privateKeyJWTAcceptsAnAssertionOnce() async throws {
        let (emulator, wire, clock) = try await start()
        let registered = try await register(wire, Self.jwtClient("web-jwt"))
        let assertion = try Self.assertion(clientId: "web-jwt", audience: wire.issuer, now: clock.now)
        let ok = try await form(wire, Self.token, passwordGrant(clientId: "web-jwt") + Self.assertionFields(assertion))
        let replayed = try await form(wire, Self.token, passwordGrant(clientId: "web-jwt") + Self.assertionFields(assertion))
        let noKid = try await form(wire, Self.token, passwordGrant(clientId: nil)
            + Self.assertionFields(try Self.assertion(clientId: "web-jwt", audience: wire.issuer, now: clock.now, kid: nil)))
        let audienceList = try await form(wire, Self.token, passwordGrant(clientId: "web-jwt")
            + Self.assertionFields(try Self.assertion(clientId: "web-jwt", audience: wire.issuer, now: clock.now,
                                                      claims: ["aud": [.string(wire.issuer), "https://other.example/"]])))
        await emulator.stop()

        #expect(registered.status == 201)
        #expect(registered.json?["client_authentication_methods"] == ["private_key_jwt": ["credentials": [
            ["credential_type": "public_key", "alg": "RS256", "kid": "k1"],
        ]]])
        #expect(registered.text.contains("BEGIN PUBLIC KEY") == false)
        #expect(ok.status == 200)
        #expect(ok.json?["access_token"] != nil)
        #expect(replayed.status == 401)
        #expect(replayed.json?["error"] == "invalid_client")
        #expect(replayed.json?["error_description"]?.stringValue?.contains("jti") == true)
        #expect(noKid.status == 200)
        #expect(audienceList.status == 200)
    }

    @Test func privateKeyJWTRefusesBadAssertions() async throws {
        let (emulator, wire, clock) = try await start()
        _ = try await register(wire, Self.jwtClient("web-jwt"))
        let now = clock.now
        let t = now.timeIntervalSince1970.rounded(.down)
        let issuer = wire.issuer
        func make(alg: String = "RS256", kid: String? = "k1", key: _RSA.Signing.PrivateKey = ConfidentialKeys.registered,
                  header: [String: JSONValue] = [:], claims: [String: JSONValue] = [:]) throws -> String {
            try Self.assertion(clientId: "web-jwt", audience: issuer, now: now, alg: alg, kid: kid, key: key, header: header, claims: claims)
        }
        let valid = try make()
        var tampered = valid.split(separator: ".").map(String.init)
        tampered[1] = try Self.encode([
            "iss": "web-jwt", "sub": "web-jwt", "aud": .string(issuer), "exp": .number(t + 60), "jti": "tampered",
        ])
        let cases: [(String, [(String, String)])] = [
            ("bad signature", Self.assertionFields(tampered.joined(separator: "."))),
            ("unregistered key", Self.assertionFields(try make(key: ConfidentialKeys.stranger))),
            ("unregistered key without kid", Self.assertionFields(try make(kid: nil, key: ConfidentialKeys.stranger))),
            ("unknown kid", Self.assertionFields(try make(kid: "k2"))),
            ("wrong aud", Self.assertionFields(try make(claims: ["aud": "https://example.auth0.com/"]))),
            ("aud without trailing slash", Self.assertionFields(try make(claims: ["aud": .string(String(issuer.dropLast()))]))),
            ("aud of the token endpoint", Self.assertionFields(try make(claims: ["aud": .string(issuer + "oauth/token")]))),
            ("expired", Self.assertionFields(try make(claims: ["iat": .number(t - 120), "exp": .number(t - 1)]))),
            ("lifetime over 5 minutes", Self.assertionFields(try make(claims: ["exp": .number(t + 301)]))),
            ("lifetime over 5 minutes after iat", Self.assertionFields(try make(claims: ["iat": .number(t - 100), "exp": .number(t + 250)]))),
            ("exp far ahead without iat", Self.assertionFields(try make(claims: ["iat": .null, "exp": .number(t + 3600)]))),
            ("no exp", Self.assertionFields(try make(claims: ["exp": .null]))),
            ("no jti", Self.assertionFields(try make(claims: ["jti": .null]))),
            ("iss not the client", Self.assertionFields(try make(claims: ["iss": "someone-else"]))),
            ("sub not the client", Self.assertionFields(try make(claims: ["sub": "someone-else"]))),
            ("alg none", Self.assertionFields(try make(alg: "none"))),
            ("alg HS256", Self.assertionFields(try make(alg: "HS256"))),
            ("alg ES256", Self.assertionFields(try make(alg: "ES256"))),
            ("alg RS384, registered RS256", Self.assertionFields(try make(alg: "RS384"))),
            ("alg PS256, registered RS256", Self.assertionFields(try make(alg: "PS256"))),
            ("crit header", Self.assertionFields(try make(header: ["crit": ["exp"]]))),
            ("not a JWS", Self.assertionFields("not.a-jwt")),
            ("wrong assertion type", [("client_assertion_type", "urn:example:other"), ("client_assertion", try make())]),
            ("no assertion", []),
            ("a secret instead", [("client_secret", Self.secret)]),
        ]
        var replies: [(String, Auth0Wire.Reply)] = []
        for (name, fields) in cases {
            replies.append((name, try await form(wire, Self.token, passwordGrant(clientId: "web-jwt") + fields)))
        }
        let stillValid = try await form(wire, Self.token, passwordGrant(clientId: "web-jwt") + Self.assertionFields(valid))
        await emulator.stop()

        for (name, reply) in replies {
            #expect(reply.status == 401, "\(name)")
            #expect(reply.json?["error"] == "invalid_client", "\(name)")
            #expect(reply.json?["access_token"] == nil, "\(name)")
        }
        #expect(stillValid.status == 200, "refusals spend nothing")
    }

    @Test func privateKeyJWTTakesRS384AndPS256Credentials() async throws {
        let (emulator, wire, clock) = try await start()
        let key = ConfidentialKeys.registered
        let registered = try await register(wire, [
            "client_id": "web-jwt2", "token_endpoint_auth_method": "private_key_jwt",
            "client_authentication_methods": ["private_key_jwt": ["credentials": [
                ["credential_type": "public_key", "pem": .string(Self.spki(key)), "alg": "PS256", "kid": "pss"],
                ["credential_type": "public_key", "pem": .string(Self.spki(key)), "alg": "RS384", "kid": "rs384"],
            ]]],
        ])
        let pss = try await form(wire, Self.token, passwordGrant(clientId: "web-jwt2")
            + Self.assertionFields(try Self.assertion(clientId: "web-jwt2", audience: wire.issuer, now: clock.now, alg: "PS256", kid: "pss")))
        let rs384 = try await form(wire, Self.token, passwordGrant(clientId: "web-jwt2")
            + Self.assertionFields(try Self.assertion(clientId: "web-jwt2", audience: wire.issuer, now: clock.now, alg: "RS384", kid: "rs384")))
        let pssWithRS384Kid = try await form(wire, Self.token, passwordGrant(clientId: "web-jwt2")
            + Self.assertionFields(try Self.assertion(clientId: "web-jwt2", audience: wire.issuer, now: clock.now, alg: "PS256", kid: "rs384")))
        let rs256 = try await form(wire, Self.token, passwordGrant(clientId: "web-jwt2")
            + Self.assertionFields(try Self.assertion(clientId: "web-jwt2", audience: wire.issuer, now: clock.now, kid: nil)))
        await emulator.stop()

        #expect(registered.status == 201)
        #expect(pss.status == 200)
        #expect(rs384.status == 200)
        #expect(pssWithRS384Kid.status == 401)
        #expect(rs256.status == 401)
    }

    @Test func aRefusedClientSpendsNoAuthorizationCode() async throws {
        let (emulator, wire, _) = try await start()
        _ = try await register(wire, [
            "client_id": "web-code", "token_endpoint_auth_method": "client_secret_post", "client_secret": .string(Self.secret),
        ])
        let pkce = pkcePair()
        let authorized = try await wire.get("/auth0/authorize?" + queryString(Self.authorizeFields(clientId: "web-code", challenge: pkce.challenge)),
                                            headerFields: Self.loginHook)
        let code = try #require(authorized.query("code"))
        let exchange = [("client_id", "web-code"), ("grant_type", "authorization_code"), ("code", code),
                        ("code_verifier", pkce.verifier), ("redirect_uri", Auth0Wire.redirectURI)]
        let refused = try await form(wire, Self.token, exchange + [("client_secret", "wrong-secret-wrong-secret-wrong-secret")])
        let accepted = try await form(wire, Self.token, exchange + [("client_secret", Self.secret)])
        await emulator.stop()

        #expect(refused.status == 401)
        #expect(accepted.status == 200)
        #expect(accepted.json?["id_token"] != nil)
    }

    // MARK: - Pushed authorization requests

    @Test func aPushedRequestRoundTrip() async throws {
        let (emulator, wire, clock) = try await start()
        _ = try await register(wire, [
            "client_id": "web-par", "token_endpoint_auth_method": "client_secret_basic", "client_secret": .string(Self.secret),
            "require_pushed_authorization_requests": true,
        ])
        let pkce = pkcePair()
        let pushed = try await form(wire, Self.par, Self.authorizeFields(clientId: "web-par", challenge: pkce.challenge),
                                    headers: Self.basic("web-par", Self.secret))
        let requestURI = try #require(pushed.json?["request_uri"]?.stringValue)
        // Other query parameters are ignored: the pushed ones (state, redirect_uri) count.
        let authorizePath = "/auth0/authorize?" + queryString([("client_id", "web-par"), ("request_uri", requestURI), ("state", "ignored")])
        let page = try await wire.get(authorizePath)
        let reused = try await wire.get(authorizePath, headerFields: Self.loginHook)
        let again = try await form(wire, Self.par, Self.authorizeFields(clientId: "web-par", challenge: pkce.challenge),
                                   headers: Self.basic("web-par", Self.secret))
        let againURI = try #require(again.json?["request_uri"]?.stringValue)
        let otherClient = try await wire.get("/auth0/authorize?" + queryString([("client_id", "some-public-app"), ("request_uri", againURI)]),
                                             headerFields: Self.loginHook)
        let authorized = try await wire.get("/auth0/authorize?" + queryString([("client_id", "web-par"), ("request_uri", againURI)]),
                                            headerFields: Self.loginHook)
        let code = try #require(authorized.query("code"))
        let tokens = try await form(wire, Self.token, [
            ("grant_type", "authorization_code"), ("code", code), ("code_verifier", pkce.verifier), ("redirect_uri", Auth0Wire.redirectURI),
        ], headers: Self.basic("web-par", Self.secret))
        let claims = try await wire.verifiedClaims(try #require(tokens.json?["id_token"]?.stringValue))
        let withoutPAR = try await wire.get("/auth0/authorize?" + queryString(Self.authorizeFields(clientId: "web-par", challenge: pkce.challenge)),
                                            headerFields: Self.loginHook)
        // Expiry: 30 s on the emulator's clock.
        let late = try await form(wire, Self.par, Self.authorizeFields(clientId: "web-par", challenge: pkce.challenge),
                                  headers: Self.basic("web-par", Self.secret))
        let lateURI = try #require(late.json?["request_uri"]?.stringValue)
        clock.advance(by: 31)
        let expired = try await wire.get("/auth0/authorize?" + queryString([("client_id", "web-par"), ("request_uri", lateURI)]),
                                         headerFields: Self.loginHook)
        let discovery = try await wire.get("/auth0/.well-known/openid-configuration")
        await emulator.stop()

        #expect(pushed.status == 201)
        #expect(pushed.json?["expires_in"] == 30)
        #expect(requestURI.hasPrefix("urn:ietf:params:oauth:request_uri:"))
        #expect(pushed.headerFields[.cacheControl] == "no-store")
        #expect(page.status == 200, "the login page for the pushed request")
        #expect(page.text.contains("<form"))
        #expect(reused.status == 400, "a request_uri is single-use")
        #expect(reused.json?["error"] == "invalid_request")
        #expect(otherClient.status == 400, "another client_id cannot use it")
        #expect(authorized.status == 302)
        #expect(authorized.query("state") == "st-par")
        #expect(authorized.location?.path == "/callback")
        #expect(tokens.status == 200)
        #expect(claims["nonce"] == "n-par")
        #expect(claims["aud"] == "web-par" || claims["aud"] == ["web-par"])
        #expect(withoutPAR.status == 400, "require_pushed_authorization_requests")
        #expect(withoutPAR.json?["error"] == "invalid_request")
        #expect(expired.status == 400)
        #expect(discovery.json?["pushed_authorization_request_endpoint"]?.stringValue == wire.issuer + "oauth/par")
        #expect(discovery.json?["token_endpoint_auth_methods_supported"] == ["client_secret_basic", "client_secret_post", "private_key_jwt", "none"])
        #expect(discovery.json?["token_endpoint_auth_signing_alg_values_supported"] == ["RS256", "RS384", "PS256"])
    }

    @Test func pushedRequestsAreCheckedLikeAuthorize() async throws {
        let (emulator, wire, clock) = try await start()
        _ = try await register(wire, [
            "client_id": "web-par", "token_endpoint_auth_method": "client_secret_post", "client_secret": .string(Self.secret),
        ])
        _ = try await register(wire, Self.jwtClient("web-par-jwt"))
        let challenge = pkcePair().challenge
        let good = Self.authorizeFields(clientId: "web-par", challenge: challenge) + [("client_secret", Self.secret)]
        let publicClient = try await form(wire, Self.par, Self.authorizeFields(clientId: "some-public-app", challenge: challenge))
        let noSecret = try await form(wire, Self.par, Self.authorizeFields(clientId: "web-par", challenge: challenge))
        let wrongSecret = try await form(wire, Self.par, Self.authorizeFields(clientId: "web-par", challenge: challenge)
            + [("client_secret", Self.secret + "!")])
        let withRequestURI = try await form(wire, Self.par, good + [("request_uri", "urn:ietf:params:oauth:request_uri:x")])
        let badRedirect = try await form(wire, Self.par, good.map { $0.0 == "redirect_uri" ? ($0.0, "https://evil.example/cb") : $0 })
        let plain = try await form(wire, Self.par, good.map { $0.0 == "code_challenge_method" ? ($0.0, "plain") : $0 })
        let noChallenge = try await form(wire, Self.par, good.filter { $0.0 != "code_challenge" })
        let tokenType = try await form(wire, Self.par, good.map { $0.0 == "response_type" ? ($0.0, "token") : $0 })
        let jwt = try await form(wire, Self.par, Self.authorizeFields(clientId: "web-par-jwt", challenge: challenge)
            + Self.assertionFields(try Self.assertion(clientId: "web-par-jwt", audience: wire.issuer, now: clock.now)))
        let jwtJSON = try await wire.post(Self.par, json: [
            "client_id": "web-par-jwt", "redirect_uri": .string(Auth0Wire.redirectURI), "response_type": "code",
            "code_challenge": .string(challenge), "code_challenge_method": "S256",
            "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
            "client_assertion": .string(try Self.assertion(clientId: "web-par-jwt", audience: wire.issuer, now: clock.now)),
        ])
        let unknown = try await wire.get("/auth0/authorize?" + queryString([
            ("client_id", "web-par"), ("request_uri", "urn:ietf:params:oauth:request_uri:unknown"),
        ]))
        await emulator.stop()

        #expect(publicClient.status == 401)
        #expect(publicClient.json?["error"] == "invalid_client")
        #expect(noSecret.status == 401)
        #expect(wrongSecret.status == 401)
        #expect(wrongSecret.json == ["error": "access_denied", "error_description": "Unauthorized"])
        for (reply, error) in [(withRequestURI, "invalid_request"), (badRedirect, "invalid_request"), (plain, "invalid_request"),
                               (noChallenge, "invalid_request"), (tokenType, "unsupported_response_type")] {
            #expect(reply.status == 400)
            #expect(reply.json?["error"]?.stringValue == error)
            #expect(reply.headerFields[.location] == nil)
        }
        #expect(jwt.status == 201)
        #expect(jwtJSON.status == 201)
        #expect(unknown.status == 400)
        #expect(unknown.json?["error"] == "invalid_request")
    }

    // MARK: - Registration

    @Test func registrationIsValidated() async throws {
        let (emulator, wire, _) = try await start()
        let pem = Self.spki(ConfidentialKeys.registered)
        func credential(_ fields: [String: JSONValue]) -> JSONValue {
            var base: [String: JSONValue] = ["credential_type": "public_key", "pem": .string(pem), "alg": "RS256"]
            for (name, value) in fields { base[name] = value == .null ? nil : value }
            return ["private_key_jwt": ["credentials": [.object(base)]]]
        }
        let jwt: [String: JSONValue] = ["client_id": "c", "token_endpoint_auth_method": "private_key_jwt"]
        let cases: [(String, [String: JSONValue])] = [
            ("unknown method", ["client_id": "c", "token_endpoint_auth_method": "client_secret_jwt"]),
            ("method not a string", ["client_id": "c", "token_endpoint_auth_method": 3]),
            ("post without secret", ["client_id": "c", "token_endpoint_auth_method": "client_secret_post"]),
            ("short secret", ["client_id": "c", "token_endpoint_auth_method": "client_secret_basic", "client_secret": "short-secret"]),
            ("secret with a space", ["client_id": "c", "token_endpoint_auth_method": "client_secret_post",
                                     "client_secret": "0123456789 0123456789 0123456789 0123456789"]),
            ("secret for a public client", ["client_id": "c", "client_secret": .string(Self.secret)]),
            ("secret for private_key_jwt", jwt.merging(["client_secret": .string(Self.secret),
                                                       "client_authentication_methods": credential([:])]) { _, new in new }),
            ("private_key_jwt without credentials", jwt),
            ("empty credentials", jwt.merging(["client_authentication_methods": ["private_key_jwt": ["credentials": []]]]) { _, new in new }),
            ("other method key", jwt.merging(["client_authentication_methods": ["tls_client_auth": [:]]]) { _, new in new }),
            ("credential type", jwt.merging(["client_authentication_methods": credential(["credential_type": "x509_cert"])]) { _, new in new }),
            ("alg ES256", jwt.merging(["client_authentication_methods": credential(["alg": "ES256"])]) { _, new in new }),
            ("no alg", jwt.merging(["client_authentication_methods": credential(["alg": .null])]) { _, new in new }),
            ("not a PEM", jwt.merging(["client_authentication_methods": credential(["pem": "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----"])]) { _, new in new }),
            ("EC key", jwt.merging(["client_authentication_methods": credential(["pem": .string(P256.Signing.PrivateKey().publicKey.pemRepresentation)])]) { _, new in new }),
            ("empty kid", jwt.merging(["client_authentication_methods": credential(["kid": ""])]) { _, new in new }),
            ("credentials for a secret client", ["client_id": "c", "token_endpoint_auth_method": "client_secret_post",
                                                 "client_secret": .string(Self.secret), "client_authentication_methods": credential([:])]),
            ("PAR flag not a boolean", ["client_id": "c", "token_endpoint_auth_method": "client_secret_post",
                                        "client_secret": .string(Self.secret), "require_pushed_authorization_requests": "yes"]),
            ("PAR required for a public client", ["client_id": "c", "require_pushed_authorization_requests": true]),
        ]
        var replies: [(String, Auth0Wire.Reply)] = []
        for (name, body) in cases {
            replies.append((name, try await wire.post("/auth0/__emulator/clients", json: .object(body))))
        }
        let good = try await wire.post("/auth0/__emulator/clients", json: [
            "client_id": "good", "token_endpoint_auth_method": "client_secret_basic", "client_secret": .string(Self.secret),
            "require_pushed_authorization_requests": true,
        ])
        let plain = try await wire.post("/auth0/__emulator/clients", json: ["client_id": "plain"])
        await emulator.stop()

        for (name, reply) in replies {
            #expect(reply.status == 400, "\(name)")
            #expect(reply.json?["error"] == "invalid_request", "\(name)")
            #expect(!reply.text.contains(Self.secret), "\(name)")
        }
        #expect(good.status == 201)
        #expect(good.json?["token_endpoint_auth_method"] == "client_secret_basic")
        #expect(good.json?["require_pushed_authorization_requests"] == true)
        #expect(!good.text.contains(Self.secret))
        #expect(plain.status == 201)
        #expect(plain.json?["token_endpoint_auth_method"] == "none")
    }
}
