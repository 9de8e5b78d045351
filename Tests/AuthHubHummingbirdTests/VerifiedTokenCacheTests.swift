import AuthHub
import AuthHubHummingbird
import AuthHubOIDC
import AuthHubTesting
import Foundation
import Hummingbird
import HummingbirdAuth
import HummingbirdTesting
import Testing

/// The bearer middleware's verified-token cache: the same token sent again is served from it, but
/// expiry, the scopes and the issuer's keys are checked on every hit, and it stays bounded.
@Suite struct VerifiedTokenCacheTests {
    static let api = "https://api.example.com"
    let clock = FakeClock()
    let first: TestTokenIssuer
    let rotated: TestTokenIssuer
    /// The JWKS the issuer publishes now (the test rotates it).
    let published: Mutex<JSONValue>
    let transport = StubTransport()

    init() throws {
        first = try TestTokenIssuer(issuer: "https://idp.example.com/", keyID: "key-2025")
        rotated = try TestTokenIssuer(issuer: "https://idp.example.com/", keyID: "key-2026")
        published = Mutex(first.jwks)
        transport.on(.get, "/.well-known/jwks.json") { [published] _ in .json(200, published.withLock { $0 }) }
    }

    func middleware(requiredScopes: Set<String> = ["read:things"], capacity: Int = AuthHubBearerMiddleware<AuthHubRequestContext>.defaultVerifiedTokenCapacity)
        -> AuthHubBearerMiddleware<AuthHubRequestContext> {
        let client = APIClient(provider: "idp", baseURL: URL(string: "https://idp.example.com/")!, transport: transport)
        // Refetches allowed at once, so that a token naming a new kid brings the rotated JWKS.
        let keys = JWKSCache(jwksURI: "/.well-known/jwks.json", api: client, clock: clock, minimumRefetchInterval: .zero)
        let verifier = AccessTokenVerifier(issuer: "https://idp.example.com/", audience: Self.api, keys: keys, clock: clock, leeway: 0)
        return AuthHubBearerMiddleware(verifiers: ["idp": verifier], requiredScopes: requiredScopes, verifiedTokenCapacity: capacity)
    }

    func app(_ middleware: AuthHubBearerMiddleware<AuthHubRequestContext>) -> some ApplicationProtocol {
        let router = Router(context: AuthHubRequestContext.self)
        router.group("api").add(middleware: middleware).add(middleware: IsAuthenticatedMiddleware())
            .get("me") { _, context in try context.requireIdentity().subject ?? "-" }
        return Application(router: router)
    }

    func token(by issuer: TestTokenIssuer? = nil, subject: String = "user-1", lifetime: TimeInterval = 600, scope: String = "read:things") throws -> String {
        let now = clock.now.timeIntervalSince1970.rounded(.down)
        return try (issuer ?? first).token(["sub": .string(subject), "aud": .string(Self.api), "iat": .number(now), "exp": .number(now + lifetime),
                                            "scope": .string(scope)])
    }

    func publish(_ jwks: JSONValue) { published.withLock { $0 = jwks } }

    func call(_ client: some TestClientProtocol, _ token: String) async throws -> TestResponse {
        try await client.execute(uri: "/api/me", method: .get, headers: [.authorization: "Bearer \(token)"])
    }

    @Test func theSameTokenAgainIsAHitUntilItExpires() async throws {
        let bearer = middleware()
        let cache = try #require(bearer.verifiedTokens)
        let valid = try token(lifetime: 600)
        try await app(bearer).test(.router) { client in
            #expect(try await call(client, valid).status == .ok)
            #expect(cache.count == 1 && cache.hits == 0)
            let again = try await call(client, valid)
            #expect(again.status == .ok && String(buffer: again.body) == "user-1")
            #expect(cache.hits == 1)
            // A different token (another subject) is not the cached one.
            #expect(try await call(client, try token(subject: "user-2")).status == .ok)
            #expect(cache.hits == 1 && cache.count == 2)

            clock.advance(by: 601)
            let expired = try await call(client, valid)
            #expect(expired.status == .unauthorized)
            #expect((expired.headers[.wwwAuthenticate] ?? "").contains("expired"), "\(expired.headers)")
            #expect(cache.count == 1, "the expired token left the cache")
        }
    }

    /// The issuer rotates its keys and withdraws the old one: once the JWKS was fetched again, a
    /// token the cache holds, signed with the withdrawn key, is refused (as it would be uncached).
    @Test func aWithdrawnKeyStopsItsCachedTokens() async throws {
        let bearer = middleware()
        let cache = try #require(bearer.verifiedTokens)
        let old = try token(lifetime: 3600)
        try await app(bearer).test(.router) { client in
            #expect(try await call(client, old).status == .ok)
            #expect(try await call(client, old).status == .ok)
            #expect(cache.hits == 1)

            publish(rotated.jwks)
            // A token naming the new kid makes the middleware fetch the JWKS again.
            #expect(try await call(client, try token(by: rotated)).status == .ok)
            #expect(transport.requests(to: "/.well-known/jwks.json").count == 2)

            let refused = try await call(client, old)
            #expect(refused.status == .unauthorized)
            #expect((refused.headers[.wwwAuthenticate] ?? "").contains("invalid_token"))
            #expect(cache.hits == 1, "the old token was verified again, not taken from the cache")
        }
    }

    /// A JWKS fetched again with the same key leaves tokens valid: they are verified again once,
    /// then cached anew.
    @Test func aRefetchedJWKSWithTheSameKeyReverifiesOnce() async throws {
        let bearer = middleware()
        let cache = try #require(bearer.verifiedTokens)
        let kept = try token(lifetime: 3600)
        let both: JSONValue = ["keys": .array((first.jwks["keys"]?.arrayValue ?? []) + (rotated.jwks["keys"]?.arrayValue ?? []))]
        let newer = try token(by: rotated)
        try await app(bearer).test(.router) { client in
            let before = try await call(client, kept)
            #expect(before.status == .ok)
            publish(both)
            let fetching = try await call(client, newer)
            #expect(fetching.status == .ok)
            let reverified = try await call(client, kept)
            #expect(reverified.status == .ok && cache.hits == 0)
            let hit = try await call(client, kept)
            #expect(hit.status == .ok && cache.hits == 1)
        }
    }

    @Test func refusalsAreNeverKept() async throws {
        let bearer = middleware(requiredScopes: ["read:things", "write:things"])
        let cache = try #require(bearer.verifiedTokens)
        let stranger = try TestTokenIssuer(issuer: "https://idp.example.com/", keyID: "key-2025")  // same kid, another key
        try await app(bearer).test(.router) { client in
            #expect(try await call(client, try token()).status == .forbidden)
            #expect(try await call(client, try token(by: stranger, scope: "read:things write:things")).status == .unauthorized)
            #expect(try await call(client, try token(lifetime: -10, scope: "read:things write:things")).status == .unauthorized)
            #expect(cache.count == 0)
            let granted = try token(scope: "read:things write:things")
            #expect(try await call(client, granted).status == .ok)
            #expect(try await call(client, granted).status == .ok)
            #expect(cache.count == 1 && cache.hits == 1)
        }
    }

    @Test func theCacheIsBoundedAndCanBeTurnedOff() async throws {
        let small = middleware(capacity: 2)
        let cache = try #require(small.verifiedTokens)
        try await app(small).test(.router) { client in
            for subject in ["a", "b", "c", "d"] {
                let reply = try await call(client, try token(subject: subject))
                #expect(reply.status == .ok)
            }
            #expect(cache.count == 2)
        }
        #expect(middleware(capacity: 0).verifiedTokens == nil)
        #expect(middleware(capacity: -5).verifiedTokens == nil)
        #expect(middleware(capacity: .max).verifiedTokens?.capacity == 1_000_000)
    }
}
