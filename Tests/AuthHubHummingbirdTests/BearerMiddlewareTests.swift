import AuthHub
import AuthHubAuth0
import AuthHubEmulator
import AuthHubFirebase
import AuthHubHummingbird
import AuthHubOIDC
import AuthHubTesting
import Crypto
import Foundation
import Hummingbird
import HummingbirdAuth
import HummingbirdTesting
import Testing

/// The bearer middleware on a protected API route: every outcome of RFC 6750, with tokens from a
/// test issuer whose JWKS a stub transport serves.
@Suite struct BearerMiddlewareTests {
    static let api = "https://api.example.com"
    let issuer: TestTokenIssuer
    let clock = FakeClock()

    init() throws { issuer = try TestTokenIssuer(issuer: "https://idp.example.com/") }

    func app(requiredScopes: Set<String> = ["read:things"], transport: StubTransport = StubTransport()) -> some ApplicationProtocol {
        let jwks = issuer.jwks
        transport.on(.get, "/.well-known/jwks.json") { _ in .json(200, jwks) }
        let client = APIClient(provider: "idp", baseURL: URL(string: "https://idp.example.com/")!, transport: transport)
        let verifier = AccessTokenVerifier(issuer: issuer.issuer, audience: Self.api,
                                           keys: JWKSCache(jwksURI: "/.well-known/jwks.json", api: client), clock: clock)
        let router = Router(context: AuthHubRequestContext.self)
        router.group("api")
            .add(middleware: AuthHubBearerMiddleware(verifiers: ["idp": verifier], requiredScopes: requiredScopes))
            .add(middleware: IsAuthenticatedMiddleware())
            .get("me") { _, context in
                let identity = try context.requireIdentity()
                return "\(identity.provider) \(identity.subject ?? "-") \(identity.source == .bearer)"
            }
        return Application(router: router)
    }

    func token(_ overrides: [String: JSONValue] = [:], header: [String: JSONValue] = [:], by signer: TestTokenIssuer? = nil) throws -> String {
        let now = clock.now.timeIntervalSince1970.rounded(.down)
        var claims: [String: JSONValue] = ["sub": "user-1", "aud": [.string(Self.api), "https://idp.example.com/userinfo"],
                                           "iat": .number(now), "exp": .number(now + 600), "scope": "openid read:things"]
        claims.merge(overrides) { _, new in new }
        return try (signer ?? issuer).token(claims, header: header)
    }

    func call(_ client: some TestClientProtocol, _ authorization: String?) async throws -> TestResponse {
        try await client.execute(uri: "/api/me", method: .get, headers: authorization.map { [.authorization: $0] } ?? [:])
    }

    @Test func aValidTokenReachesTheRoute() async throws {
        try await app().test(.router) { client in
            let reply = try await call(client, "Bearer \(try token())")
            #expect(reply.status == .ok)
            #expect(String(buffer: reply.body) == "idp user-1 true")
        }
    }

    @Test func everyRejectedTokenGetsItsChallenge() async throws {
        let other = try TestTokenIssuer(issuer: "https://idp.example.com/", keyID: "test-key-1")  // same kid, another key
        let stranger = try TestTokenIssuer(issuer: "https://other.example.com/")
        let now = clock.now.timeIntervalSince1970.rounded(.down)
        let cases: [(String, String?, String)] = [
            ("no scheme", "Basic dXNlcjpwdw==", "invalid_request"),
            ("empty bearer", "Bearer ", "invalid_request"),
            ("not a JWT", "Bearer not.a.jwt", "invalid_token"),
            ("unknown issuer", "Bearer \(try token(by: stranger))", "invalid_token"),
            ("bad signature", "Bearer \(try token(by: other))", "invalid_token"),
            ("wrong audience", "Bearer \(try token(["aud": "https://elsewhere.example.com"]))", "invalid_token"),
            ("expired", "Bearer \(try token(["exp": .number(now - 3600)]))", "invalid_token"),
            ("not yet valid", "Bearer \(try token(["nbf": .number(now + 3600)]))", "invalid_token"),
            ("alg confusion", "Bearer \(try token(header: ["alg": "HS256"]))", "invalid_token"),
            ("alg none", "Bearer \(try token(header: ["alg": "none"]))", "invalid_token"),
        ]
        try await app().test(.router) { client in
            for (name, authorization, error) in cases {
                let reply = try await call(client, authorization)
                #expect(reply.status == .unauthorized, "\(name)")
                let challenge = reply.headers[.wwwAuthenticate] ?? ""
                #expect(challenge.hasPrefix("Bearer realm=\"api\""), "\(name): \(challenge)")
                #expect(challenge.contains("error=\"\(error)\""), "\(name): \(challenge)")
            }
            // No header at all: no identity, and the guard answers 401.
            #expect(try await call(client, nil).status == .unauthorized)
        }
    }

    /// A refused access token is called an access token in the challenge, also when the failing
    /// check is one shared with ID-token validation (signature, algorithm, key).
    @Test func theChallengeCallsTheTokenAnAccessToken() async throws {
        let other = try TestTokenIssuer(issuer: "https://idp.example.com/", keyID: "test-key-1")  // same kid, another key
        let cases: [(String, String, String)] = [
            ("bad signature", try token(by: other), "The access token signature is invalid."),
            ("alg confusion", try token(header: ["alg": "HS256"]), "The access token is signed with an unsupported algorithm"),
            ("unknown kid", try token(header: ["kid": "another-key"]), "No public key was found to verify the access token."),
        ]
        try await app().test(.router) { client in
            for (name, token, description) in cases {
                let challenge = try await call(client, "Bearer \(token)").headers[.wwwAuthenticate] ?? ""
                #expect(challenge.contains("error_description=\"\(description)"), "\(name): \(challenge)")
                #expect(!challenge.contains("ID token"), "\(name): \(challenge)")
            }
        }
        // The ID-token wording is kept where ID tokens are validated.
        #expect(IDTokenValidationFailure.invalidSignature.message == "The ID token signature is invalid.")
    }

    /// Once the issuer's keys are cached, tokens are checked on the synchronous path (the keys built
    /// from the JWKS once, no actor): every hostile token is still refused there with its challenge,
    /// the claims are still checked, and none makes the middleware fetch the keys again.
    @Test func hostileTokensAfterTheKeysAreCachedGetTheirChallenge() async throws {
        let transport = StubTransport()
        let other = try TestTokenIssuer(issuer: "https://idp.example.com/", keyID: "test-key-1")  // same kid, another key
        let now = clock.now.timeIntervalSince1970.rounded(.down)
        let valid = try token()
        let parts = valid.split(separator: ".").map(String.init)
        var flipped = try #require(Base64URL.decode(parts[2]))
        flipped[7] ^= 0x80
        let forgedPayload = Base64URL.encode(try JSONEncoder().encode(JSONValue.object([
            "iss": "https://idp.example.com/", "sub": "admin", "aud": .string(Self.api), "iat": .number(now), "exp": .number(now + 600),
            "scope": "read:things",
        ])))
        func unsigned(_ header: JSONValue) throws -> String {
            Base64URL.encode(try JSONEncoder().encode(header)) + "." + parts[1] + "."
        }
        // HS256 "signed" with the issuer's public key material (the JWKS's modulus) as the HMAC secret.
        let modulus = issuer.jwks["keys"]?.arrayValue?.first?["n"]?.stringValue ?? ""
        let hsInput = Base64URL.encode(try JSONEncoder().encode(["alg": "HS256", "kid": "test-key-1"] as JSONValue)) + "." + parts[1]
        let mac = HMAC<SHA256>.authenticationCode(for: Data(hsInput.utf8), using: SymmetricKey(data: Data(modulus.utf8)))
        let cases: [(String, String)] = [
            ("alg none", try unsigned(["alg": "none", "kid": "test-key-1"])),
            ("HS256 keyed with the public key", hsInput + "." + Base64URL.encode(Data(mac))),
            ("ES256 header naming the RSA key", try token(header: ["alg": "ES256"])),
            ("unknown kid", try token(header: ["kid": "another-key"])),
            ("another key under the kid", try token(by: other)),
            ("tampered payload", parts[0] + "." + forgedPayload + "." + parts[2]),
            ("flipped signature bit", parts[0] + "." + parts[1] + "." + Base64URL.encode(flipped)),
            ("no signature", parts[0] + "." + parts[1] + "."),
            ("wrong audience", try token(["aud": "https://elsewhere.example.com"])),
            ("expired", try token(["exp": .number(now - 3600)])),
        ]
        try await app(transport: transport).test(.router) { client in
            #expect(try await call(client, "Bearer \(valid)").status == .ok)
            #expect(transport.requests(to: "/.well-known/jwks.json").count == 1)
            for (name, authorization) in cases {
                let reply = try await call(client, "Bearer \(authorization)")
                #expect(reply.status == .unauthorized, "\(name)")
                #expect((reply.headers[.wwwAuthenticate] ?? "").contains("error=\"invalid_token\""), "\(name)")
            }
            #expect(try await call(client, "Bearer \(valid)").status == .ok)
            #expect(try await call(client, "bEaReR \t\(valid) ").status == .ok)
            #expect(transport.requests(to: "/.well-known/jwks.json").count == 1)
        }
    }

    @Test func aMissingScopeIsForbidden() async throws {
        try await app(requiredScopes: ["read:things", "write:things"]).test(.router) { client in
            let reply = try await call(client, "Bearer \(try token())")
            #expect(reply.status == .forbidden)
            let challenge = reply.headers[.wwwAuthenticate] ?? ""
            #expect(challenge.contains("error=\"insufficient_scope\"") && challenge.contains("scope=\"write:things\""), "\(challenge)")
        }
    }

    /// The emulator's Auth0 tenant issues JWT access tokens for an API audience; a protected route
    /// accepts the one a user got by signing in, and refuses it for another API.
    @Test func anAuth0AccessTokenFromTheEmulatorReachesTheRoute() async throws {
        let emulator = try await Emulator.start()
        defer { Task { await emulator.stop() } }
        let wire = URLSessionTransport(defaultTimeout: .seconds(30))
        let seeded = try await wire.send(.post, emulator.url("/auth0/__emulator/users"), headerFields: [.contentType: "application/json"],
                                         body: Data(#"{"email":"api@example.com","password":"correct horse battery staple"}"#.utf8))
        #expect(seeded.status == 201)
        let configuration = try Auth0Configuration(domain: emulator.url("/auth0").absoluteString, clientId: "authhub-api", audience: Self.api)
        let auth0 = Auth0Provider(id: "auth0", configuration: configuration, context: ProviderContext(transport: wire))
        let session = try await auth0.signIn(.password(identifier: "api@example.com", password: Secret("correct horse battery staple")))
        #expect(session.accessToken.revealed().split(separator: ".").count == 3, "a JWT for an API audience")

        for (audience, expected) in [(Self.api, HTTPResponse.Status.ok), ("https://other-api.example.com", .unauthorized)] {
            let router = Router(context: AuthHubRequestContext.self)
            router.group("api")
                .add(middleware: AuthHubBearerMiddleware(verifiers: ["auth0": auth0.accessTokenVerifier(audience: audience)]))
                .add(middleware: IsAuthenticatedMiddleware())
                .get("me") { _, context in try context.requireIdentity().provider }
            try await Application(router: router).test(.router) { client in
                let reply = try await call(client, "Bearer \(session.accessToken.revealed())")
                #expect(reply.status == expected, "audience \(audience)")
                if expected == .ok { #expect(String(buffer: reply.body) == "auth0") }
            }
        }
        // The emulator still recognises its JWT access token (userinfo).
        let info = try await wire.send(.get, emulator.url("/auth0/userinfo"), headerFields: [.authorization: "Bearer \(session.accessToken.revealed())"])
        #expect(info.status == 200)
    }

    /// Firebase's backend pattern: the app sends the user's ID token; a middleware built from a hub
    /// with a Firebase provider (here the emulator's project) accepts it, and refuses it where a scope
    /// is required (ID tokens grant none).
    @Test func aFirebaseIDTokenThroughAMiddlewareBuiltFromTheHub() async throws {
        let emulator = try await Emulator.start()
        defer { Task { await emulator.stop() } }
        let config = """
        {"defaultEnvironment": "dev", "environments": {"dev": {"defaultProvider": "firebase", "sessionStore": {"type": "memory"},
          "providers": [{"id": "firebase", "type": "firebase", "apiKey": "dev-key", "projectId": "authhub-dev",
                         "emulatorHost": "\(emulator.url("/").host ?? ""):\(emulator.url("/").port ?? 0)"}]}}}
        """
        let registry = ProviderRegistry([FirebasePlugin()])
        let environment = try ConfigLoader(registry: registry, environmentVariables: [:]).load(data: Data(config.utf8))
        let hub = try AuthHub(environment: environment, registry: registry,
                              context: ProviderContext(transport: URLSessionTransport(defaultTimeout: .seconds(30))))
        _ = try await hub.signUp(SignUpRequest(email: "fb@example.com", password: Secret("correct horse battery staple")))
        let session = try await hub.session()
        let idToken = try #require(session.idToken ?? Optional(session.accessToken))
        for (scopes, expected) in [(Set<String>(), HTTPResponse.Status.ok), (["read:things"], .forbidden)] {
            let bearer = try await AuthHubBearerMiddleware<AuthHubRequestContext>(hub: hub, audience: Self.api, requiredScopes: scopes)
            let router = Router(context: AuthHubRequestContext.self)
            router.group("api").add(middleware: bearer).add(middleware: IsAuthenticatedMiddleware())
                .get("me") { _, context in "\(try context.requireIdentity().provider) \(try context.requireIdentity().subject ?? "-")" }
            try await Application(router: router).test(.router) { client in
                let reply = try await call(client, "Bearer \(idToken.revealed())")
                #expect(reply.status == expected, "scopes \(scopes)")
                if expected == .ok { #expect(String(buffer: reply.body) == "firebase \(session.userID ?? "?")") }
            }
        }
    }
}
