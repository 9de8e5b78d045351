import AuthHub
import AuthHubAuth0
import AuthHubTesting
import AuthHubWebCore
import Foundation
import HTTPTypes
import Testing

/// The back-channel logout route (`POST <prefix>/backchannel-logout`): a valid logout token from a
/// provider of the app ends that provider's browser sessions of its `sub` (only those of its `sid`
/// when it names one) and nothing else; a replayed, forged or malformed one is a 400 and ends nothing.
@Suite struct BackChannelLogoutTests {
    static let issuer = "http://127.0.0.1:9/auth0/"
    static let event = "http://schemas.openid.net/event/backchannel-logout"
    /// Auto-advancing: the provider's client sleeps between retries of the JWKS fetch that fails below.
    let clock = FakeClock()
    let transport = StubTransport()
    let tenant: TestTokenIssuer
    let hub: AuthHub
    let web: AuthHubWeb

    init() throws {
        tenant = try TestTokenIssuer(issuer: Self.issuer, keyID: "tenant-key")
        transport.on(.get, "/auth0/.well-known/jwks.json") { [jwks = tenant.jwks] _ in .json(200, jwks) }
        let registry = ProviderRegistry([Auth0Plugin()])
        let config = """
        {"defaultEnvironment": "dev", "environments": {"dev": {"defaultProvider": "auth0", "sessionStore": {"type": "memory"},
          "providers": [{"id": "auth0", "type": "auth0", "domain": "http://127.0.0.1:9/auth0", "clientId": "web-client"}]}}}
        """
        let environment = try ConfigLoader(registry: registry, environmentVariables: [:]).load(data: Data(config.utf8))
        hub = try AuthHub(environment: environment, registry: registry, context: ProviderContext(transport: transport, clock: clock))
        web = try AuthHubWeb(hub: hub, configuration: WebSignInConfiguration(publicBaseURL: URL(string: "https://app.example.com")!))
    }

    /// A browser session of `user` (from the provider session `sid`) stored as a replica would; its cookie.
    func browserSession(user: String, sid: String?, random byte: UInt8) async throws -> String {
        let cookie = "auth0.\(Int64(clock.now.timeIntervalSince1970)).\(Base64URL.encode(Array(repeating: byte, count: 32)))"
        let account = try #require(web.account(ofSessionCookie: cookie))
        var claims: [String: JSONValue] = [:]
        if let sid { claims["sid"] = .string(sid) }
        let session = Session(providerID: "auth0", accountKey: account, accessToken: Secret("at-\(byte)"), refreshToken: Secret("rt-\(byte)"),
                              expiresAt: clock.now.addingTimeInterval(3600), userID: user, claims: claims)
        _ = try await hub.store.save(session, for: SessionKey(provider: "auth0", account: account), expectedVersion: nil)
        return cookie
    }

    func logoutToken(sub: String?, sid: String?, jti: String = UUID().uuidString, extra: [String: JSONValue] = [:]) throws -> String {
        let now = clock.now.timeIntervalSince1970.rounded(.down)
        var claims: [String: JSONValue] = ["aud": "web-client", "iat": .number(now), "jti": .string(jti), "events": .object([Self.event: [:]])]
        if let sub { claims["sub"] = .string(sub) }
        if let sid { claims["sid"] = .string(sid) }
        return try tenant.token(claims.merging(extra) { _, new in new }, header: ["typ": "logout+jwt"])
    }

    func post(_ form: String, contentType: String = "application/x-www-form-urlencoded", method: HTTPRequest.Method = .post) async -> WebResponse {
        let head = HTTPRequest(method: method, scheme: "https", authority: "app.example.com", path: "/auth/backchannel-logout",
                               headerFields: [.contentType: contentType])
        return await web.backChannelLogout(WebRequest(head: head, readBody: { _ in Array(form.utf8) }))
    }

    func isSignedIn(_ cookie: String) async -> Bool { await web.resolveSession(cookie: cookie).identity != nil }

    @Test func aLogoutTokenEndsTheUsersSessionsOfThatProviderSession() async throws {
        let laptop = try await browserSession(user: "ann", sid: "op-1", random: 1)
        let phone = try await browserSession(user: "ann", sid: "op-2", random: 2)
        let bobs = try await browserSession(user: "bob", sid: "op-1", random: 3)
        #expect(await isSignedIn(laptop))
        #expect(await isSignedIn(phone))
        #expect(await isSignedIn(bobs))

        let reply = await post("logout_token=" + (try logoutToken(sub: "ann", sid: "op-1")))
        #expect(reply.status == .ok && reply.headerFields[.cacheControl] == "no-store")
        #expect(await !isSignedIn(laptop), "ann's session of op-1 ended")
        #expect(await isSignedIn(phone), "ann's session of another provider session stays")
        #expect(await isSignedIn(bobs), "bob's session stays")

        // sub alone: every session of the user.
        #expect(await post("logout_token=" + (try logoutToken(sub: "ann", sid: nil))).status == .ok)
        #expect(await !isSignedIn(phone))
        #expect(await isSignedIn(bobs))
        // sid alone: the sessions that recorded it.
        #expect(await post("logout_token=" + (try logoutToken(sub: nil, sid: "op-1"))).status == .ok)
        #expect(await !isSignedIn(bobs))
        // A valid token that matches nothing is still a 200.
        #expect(await post("logout_token=" + (try logoutToken(sub: "nobody", sid: nil))).status == .ok)
    }

    @Test func everyBadRequestIsA400ThatEndsNothing() async throws {
        let ann = try await browserSession(user: "ann", sid: "op-1", random: 1)
        let valid = try logoutToken(sub: "ann", sid: "op-9", jti: "once")
        #expect(await post("logout_token=" + valid).status == .ok)
        let other = try TestTokenIssuer(issuer: Self.issuer, keyID: "tenant-key")
        let now = clock.now.timeIntervalSince1970.rounded(.down)
        let forged = try other.token(["aud": "web-client", "iat": .number(now), "jti": "f", "sub": "ann",
                                      "events": .object([Self.event: [:]])], header: ["typ": "logout+jwt"])
        let cases: [(String, WebResponse)] = [
            ("a replayed jti", await post("logout_token=" + valid)),
            ("another key", await post("logout_token=" + forged)),
            ("a nonce", await post("logout_token=" + (try logoutToken(sub: "ann", sid: nil, extra: ["nonce": "n"])))),
            ("another audience", await post("logout_token=" + (try logoutToken(sub: "ann", sid: nil, extra: ["aud": "other"])))),
            ("an unknown issuer", await post("logout_token=" + (try logoutToken(sub: "ann", sid: nil, extra: ["iss": "https://evil.example.com/"])))),
            ("no token", await post("state=x")),
            ("two tokens", await post("logout_token=" + (try logoutToken(sub: "ann", sid: nil)) + "&logout_token=" + (try logoutToken(sub: "ann", sid: nil)))),
            ("a JSON body", await post(#"{"logout_token":"x"}"#, contentType: "application/json")),
            ("garbage", await post("logout_token=%00%FF")),
            ("a GET", await post("logout_token=" + (try logoutToken(sub: "ann", sid: nil)), method: .get)),
        ]
        for (name, reply) in cases {
            #expect(reply.status == .badRequest, "\(name): \(reply.status)")
            let body = (try? JSONValue.parse(Data(reply.body)))?.objectValue
            #expect(body?["error"] == "invalid_request" && reply.headerFields[.cacheControl] == "no-store", "\(name)")
        }
        #expect(await isSignedIn(ann), "nothing ended")
        // The issuer's keys out of reach: 503, so the provider may try again.
        // (A token naming a new kid makes the JWKS be fetched again, at most once a minute.)
        transport.on(.get, "/auth0/.well-known/jwks.json", first: true) { _ in .failure(TransportError(.connection, "refused")) }
        clock.advance(by: 61)
        let unreachable = try TestTokenIssuer(issuer: Self.issuer, keyID: "rotated-key")
        let rotated = try unreachable.token(["aud": "web-client", "iat": .number(clock.now.timeIntervalSince1970.rounded(.down)), "jti": "r",
                                             "sub": "ann", "events": .object([Self.event: [:]])])
        #expect(await post("logout_token=" + rotated).status == .serviceUnavailable)
        #expect(await isSignedIn(ann))
    }
}
