import AuthHub
import AuthHubHummingbird
import AuthHubOIDC
import AuthHubTesting
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

    func app(requiredScopes: Set<String> = ["read:things"]) -> some ApplicationProtocol {
        let transport = StubTransport()
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

    @Test func aMissingScopeIsForbidden() async throws {
        try await app(requiredScopes: ["read:things", "write:things"]).test(.router) { client in
            let reply = try await call(client, "Bearer \(try token())")
            #expect(reply.status == .forbidden)
            let challenge = reply.headers[.wwwAuthenticate] ?? ""
            #expect(challenge.contains("error=\"insufficient_scope\"") && challenge.contains("scope=\"write:things\""), "\(challenge)")
        }
    }
}
