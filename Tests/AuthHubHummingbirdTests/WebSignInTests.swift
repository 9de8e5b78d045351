import AuthHub
import AuthHubAuth0
import AuthHubEmulator
import AuthHubHummingbird
import AuthHubTesting
import Foundation
import Hummingbird
import HummingbirdAuth
import HummingbirdTesting
import Testing

/// The browser sign-in routes and the session middleware, in a Hummingbird app (router test
/// framework) whose hub talks over real HTTP to the emulator's Auth0 tenant; the provider's side of
/// the browser is played through the emulator's sign-in hook.
@Suite struct WebSignInTests {
    static let password = "correct horse battery staple"
    static let emulatorUser = HTTPField.Name("X-AuthHub-Emulator-User")!

    struct Fixture {
        let emulator: RunningEmulator
        let hub: AuthHub
        let web: AuthHubWeb
        let clock: FakeClock
        let wire = URLSessionTransport(defaultTimeout: .seconds(30), followRedirects: false)

        static func start(clock: FakeClock = FakeClock(now: Date(), mode: .manual), idleTimeout: Duration = .seconds(30 * 60)) async throws -> Fixture {
            let emulator = try await Emulator.start(EmulatorConfiguration(clock: clock))
            let config = """
            {"defaultEnvironment": "dev", "environments": {"dev": {"defaultProvider": "auth0", "sessionStore": {"type": "memory"},
              "providers": [{"id": "auth0", "type": "auth0", "domain": "\(emulator.url("/auth0").absoluteString)", "clientId": "authhub-web"}]}}}
            """
            let registry = ProviderRegistry([Auth0Plugin()])
            let environment = try ConfigLoader(registry: registry, environmentVariables: [:]).load(data: Data(config.utf8))
            let hub = try AuthHub(environment: environment, registry: registry,
                                  context: ProviderContext(transport: URLSessionTransport(defaultTimeout: .seconds(30)), clock: clock))
            let web = try AuthHubWeb(hub: hub, configuration: WebSignInConfiguration(publicBaseURL: URL(string: "http://127.0.0.1:8080")!,
                                                                                    idleTimeout: idleTimeout, absoluteTimeout: idleTimeout * 4))
            let fixture = Fixture(emulator: emulator, hub: hub, web: web, clock: clock)
            let seeded = try await fixture.wire.send(.post, emulator.url("/auth0/__emulator/users"), headerFields: [.contentType: "application/json"],
                                                     body: Data(#"{"email":"web@example.com","password":"\#(password)"}"#.utf8))
            #expect(seeded.status == 201)
            return fixture
        }

        func application() -> some ApplicationProtocol {
            let router = Router(context: AuthHubRequestContext.self)
            router.add(middleware: web.sessionMiddleware())
            router.addRoutes(web.routes(), atPath: RouterPath(web.configuration.routePrefix))
            let api = router.group("api").add(middleware: IsAuthenticatedMiddleware())
            api.get("me") { _, context in try context.requireIdentity().email ?? "" }
            api.get("csrf") { _, context in try context.requireIdentity().csrfToken ?? "" }
            return Application(router: router)
        }

        /// The provider's side of the browser: Universal Login finishes for the seeded user and
        /// answers the redirect back to the app's callback; returns the callback's path and query.
        func approve(_ authorizeURL: String) async throws -> String {
            let reply = try await wire.send(.get, try #require(URL(string: authorizeURL)), headerFields: [WebSignInTests.emulatorUser: "web@example.com"])
            #expect(reply.status == 302)
            let location = try #require(reply.headerFields[.location].flatMap(URLComponents.init(string:)))
            #expect(location.path == "/auth/callback")
            return location.path + "?" + (location.percentEncodedQuery ?? "")
        }
    }

    /// The value of cookie `name` a browser keeps after a response: the last `Set-Cookie` of that
    /// name wins (nil when none; "" when cleared).
    static func cookie(_ name: String, in response: TestResponse) -> String? {
        var value: String?
        for header in response.headers[values: .setCookie] {
            let pair = header.split(separator: ";", maxSplits: 1)[0].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if pair.count == 2, pair[0] == name { value = String(pair[1]) }
        }
        return value
    }

    static func attributes(_ name: String, in response: TestResponse) -> String {
        response.headers[values: .setCookie].first { $0.hasPrefix(name + "=") } ?? ""
    }

    /// Starts a sign-in and plays the provider's part: the pre-session cookie and the callback path.
    static func begin(_ client: some TestClientProtocol, _ fixture: Fixture, returnTo: String = "/profile") async throws
        -> (pre: String, callback: String) {
        let login = try await client.execute(uri: "/auth/login?provider=auth0&returnTo=\(returnTo)", method: .get)
        #expect(login.status == .found)
        let pre = try #require(cookie("authhub-signin", in: login))
        return (pre, try await fixture.approve(try #require(login.headers[.location])))
    }

    /// Signs in through the routes and returns the session cookie's value.
    static func signIn(_ client: some TestClientProtocol, _ fixture: Fixture, returnTo: String = "/profile") async throws -> String {
        let (pre, callback) = try await begin(client, fixture, returnTo: returnTo)
        let finished = try await client.execute(uri: callback, method: .get, headers: [.cookie: "authhub-signin=\(pre)"])
        #expect(finished.status == .found)
        #expect(finished.headers[.location] == returnTo)
        #expect(cookie("authhub-signin", in: finished) == "", "the pre-session cookie is cleared")
        return try #require(cookie("authhub-session", in: finished))
    }

    @Test func loginRedirectsWithPKCEStateAndNonceKeptOnTheServer() async throws {
        let fixture = try await Fixture.start()
        defer { Task { await fixture.emulator.stop() } }
        try await fixture.application().test(.router) { client in
            let login = try await client.execute(uri: "/auth/login?provider=auth0", method: .get)
            #expect(login.status == .found)
            let url = try #require(login.headers[.location].flatMap(URLComponents.init(string:)))
            let query = Dictionary((url.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { a, _ in a })
            #expect(url.path == "/auth0/authorize")
            #expect(query["code_challenge_method"] == "S256")
            #expect(query["redirect_uri"] == "http://127.0.0.1:8080/auth/callback")
            #expect(query["state"]?.isEmpty == false)
            #expect(query["nonce"]?.isEmpty == false)
            let pre = try #require(Self.cookie("authhub-signin", in: login))
            #expect(!pre.contains(query["state"] ?? "-"), "the cookie is an opaque id, not the state")
            let attributes = Self.attributes("authhub-signin", in: login)
            #expect(attributes.contains("HttpOnly") && attributes.contains("SameSite=Lax") && attributes.contains("Path=/"))
            #expect(!attributes.contains("Secure"), "plain-HTTP loopback development mode")
        }
    }

    @Test func signInSessionCookieProtectedRouteAndSignOut() async throws {
        let fixture = try await Fixture.start()
        defer { Task { await fixture.emulator.stop() } }
        try await fixture.application().test(.router) { client in
            #expect(try await client.execute(uri: "/api/me", method: .get).status == .unauthorized)
            let sid = try await Self.signIn(client, fixture)
            #expect(sid.hasPrefix("auth0."))
            let me = try await client.execute(uri: "/api/me", method: .get, headers: [.cookie: "authhub-session=\(sid)"])
            #expect(me.status == .ok)
            #expect(String(buffer: me.body) == "web@example.com")
            // The tokens stay in the hub's store, under the session's own account; the cookie holds none.
            let keys = try await fixture.hub.store.keys()
            #expect(keys.count == 1 && keys[0].account.hasPrefix("web."))
            let stored = try #require(try await fixture.hub.store.load(keys[0]))
            #expect(!sid.contains(stored.accessToken.revealed()) && !sid.contains(stored.refreshToken?.revealed() ?? "-"))
            // The store key (which logs and storage errors show) does not give the cookie away.
            #expect(!keys[0].account.contains(String(sid.split(separator: ".").last ?? "")))

            let csrf = String(buffer: try await client.execute(uri: "/api/csrf", method: .get, headers: [.cookie: "authhub-session=\(sid)"]).body)
            // Sign-out needs this site's origin and the session's token.
            let crossSite = try await client.execute(uri: "/auth/logout", method: .post,
                                                     headers: [.cookie: "authhub-session=\(sid)", .origin: "https://evil.example",
                                                               .contentType: "application/x-www-form-urlencoded"],
                                                     body: ByteBuffer(string: "csrf=\(csrf)"))
            #expect(crossSite.status == .forbidden)
            let noToken = try await client.execute(uri: "/auth/logout", method: .post,
                                                   headers: [.cookie: "authhub-session=\(sid)", .origin: "http://127.0.0.1:8080"])
            #expect(noToken.status == .forbidden)
            #expect(try await client.execute(uri: "/api/me", method: .get, headers: [.cookie: "authhub-session=\(sid)"]).status == .ok,
                    "a refused sign-out keeps the session")
            let out = try await client.execute(uri: "/auth/logout", method: .post,
                                               headers: [.cookie: "authhub-session=\(sid)", .origin: "http://127.0.0.1:8080",
                                                         .contentType: "application/x-www-form-urlencoded"],
                                               body: ByteBuffer(string: "csrf=\(csrf)"))
            #expect(out.status == .seeOther)
            #expect(Self.cookie("authhub-session", in: out) == "")
            #expect(try await fixture.hub.store.keys().isEmpty)
            #expect(try await client.execute(uri: "/api/me", method: .get, headers: [.cookie: "authhub-session=\(sid)"]).status == .unauthorized)
        }
    }

    /// `browser=1` redirects to Auth0's default, non-federated logout (`/v2/logout?returnTo=…&client_id=…`,
    /// Auth0.swift's `clearSession()`); `federated=1` to the federated one; neither: the app's page.
    @Test(arguments: [("browser=1", "returnTo="), ("federated=1", "federated&returnTo="), ("", nil)])
    func signOutCanEndTheProvidersBrowserSession(field: String, queryPrefix: String?) async throws {
        let fixture = try await Fixture.start()
        defer { Task { await fixture.emulator.stop() } }
        try await fixture.application().test(.router) { client in
            let sid = try await Self.signIn(client, fixture)
            let csrf = String(buffer: try await client.execute(uri: "/api/csrf", method: .get, headers: [.cookie: "authhub-session=\(sid)"]).body)
            let out = try await client.execute(uri: "/auth/logout", method: .post,
                                               headers: [.cookie: "authhub-session=\(sid)", .origin: "http://127.0.0.1:8080",
                                                         .contentType: "application/x-www-form-urlencoded"],
                                               body: ByteBuffer(string: "csrf=\(csrf)" + (field.isEmpty ? "" : "&" + field)))
            #expect(out.status == .seeOther)
            let location = try #require(out.headers[.location])
            if let queryPrefix {
                let url = try #require(URLComponents(string: location))
                #expect(url.path == "/auth0/v2/logout", "\(location)")
                #expect(url.percentEncodedQuery?.hasPrefix(queryPrefix) == true, "\(location)")
                #expect(url.queryItems?.first { $0.name == "returnTo" }?.value == "http://127.0.0.1:8080/")
                #expect(url.queryItems?.first { $0.name == "client_id" }?.value == "authhub-web")
            } else {
                #expect(location == "/")
            }
            #expect(try await fixture.hub.store.keys().isEmpty)
        }
    }

    @Test func callbacksThatMustBeRefused() async throws {
        let fixture = try await Fixture.start()
        defer { Task { await fixture.emulator.stop() } }
        try await fixture.application().test(.router) { client in
            // Another sign-in's state: the transaction's check refuses it.
            let (pre, callback) = try await Self.begin(client, fixture)
            var tampered = URLComponents(string: callback)!
            tampered.queryItems = tampered.queryItems?.map { $0.name == "state" ? URLQueryItem(name: "state", value: "forged") : $0 }
            let mismatch = try await client.execute(uri: tampered.string!, method: .get, headers: [.cookie: "authhub-signin=\(pre)"])
            #expect(mismatch.status == .badRequest)
            #expect(Self.cookie("authhub-session", in: mismatch) == nil)
            // The real callback after that: the pending sign-in was used up.
            let replay = try await client.execute(uri: callback, method: .get, headers: [.cookie: "authhub-signin=\(pre)"])
            #expect(replay.status == .badRequest)
            #expect(Self.cookie("authhub-session", in: replay) == nil)
            // A callback without the browser's pre-session cookie.
            #expect(try await client.execute(uri: callback, method: .get).status == .badRequest)
            #expect(try await fixture.hub.store.keys().isEmpty)
        }
    }

    @Test func anExpiredPreSessionIsRefused() async throws {
        let fixture = try await Fixture.start()
        defer { Task { await fixture.emulator.stop() } }
        try await fixture.application().test(.router) { client in
            let (pre, callback) = try await Self.begin(client, fixture)
            fixture.clock.advance(by: 601)
            let late = try await client.execute(uri: callback, method: .get, headers: [.cookie: "authhub-signin=\(pre)"])
            #expect(late.status == .badRequest)
            #expect(Self.cookie("authhub-session", in: late) == nil)
        }
    }

    @Test func openRedirectsAndUnknownProvidersAreRefused() async throws {
        let fixture = try await Fixture.start()
        defer { Task { await fixture.emulator.stop() } }
        try await fixture.application().test(.router) { client in
            for target in ["https://evil.example/", "//evil.example/x", "/\\evil.example", "javascript:alert(1)", "evil"] {
                let escaped = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                let login = try await client.execute(uri: "/auth/login?provider=auth0&returnTo=\(escaped)", method: .get)
                #expect(login.status == .badRequest, "returnTo \(target)")
                #expect(login.headers[.location] == nil)
            }
            #expect(try await client.execute(uri: "/auth/login?provider=nope", method: .get).status == .notFound)
        }
    }

    @Test func tamperedOrTimedOutCookiesAreNoSession() async throws {
        let fixture = try await Fixture.start()
        defer { Task { await fixture.emulator.stop() } }
        try await fixture.application().test(.router) { client in
            let sid = try await Self.signIn(client, fixture)
            var forged = Array(sid)
            forged[forged.count - 2] = forged[forged.count - 2] == "A" ? "B" : "A"
            for value in [String(forged), sid + "x", "auth0.1.x", String(repeating: "a", count: 5000), "nope.\(sid)"] {
                let me = try await client.execute(uri: "/api/me", method: .get, headers: [.cookie: "authhub-session=\(value)"])
                #expect(me.status == .unauthorized)
                #expect(Self.cookie("authhub-session", in: me) == "", "the cookie is cleared")
            }
            #expect(try await client.execute(uri: "/api/me", method: .get, headers: [.cookie: "authhub-session=\(sid)"]).status == .ok)
            // Idle for longer than the idle timeout (30 minutes): the session is over, and removed.
            fixture.clock.advance(by: 31 * 60)
            #expect(try await client.execute(uri: "/api/me", method: .get, headers: [.cookie: "authhub-session=\(sid)"]).status == .unauthorized)
            #expect(try await fixture.hub.store.keys().isEmpty)
        }
    }

    @Test func settingsAreChecked() async throws {
        let fixture = try await Fixture.start()
        defer { Task { await fixture.emulator.stop() } }
        #expect(throws: AuthError.self) {
            try AuthHubWeb(hub: fixture.hub, configuration: WebSignInConfiguration(publicBaseURL: URL(string: "http://app.example.com")!))
        }
        #expect(throws: AuthError.self) {
            try AuthHubWeb(hub: fixture.hub, configuration: WebSignInConfiguration(publicBaseURL: URL(string: "https://app.example.com")!,
                                                                                  routePrefix: "auth/"))
        }
        let secure = try AuthHubWeb(hub: fixture.hub, configuration: WebSignInConfiguration(publicBaseURL: URL(string: "https://app.example.com")!))
        #expect(secure.configuration.sessionCookieName == "__Host-authhub-session")
    }

    @Test func expiredSessionsAreRenewedAndAProviderOutageKeepsThem() async throws {
        // Timeouts far past the token's lifetime: this test is about renewal, not session timeouts.
        let fixture = try await Fixture.start(idleTimeout: .seconds(7 * 86_400))
        defer { Task { await fixture.emulator.stop() } }
        try await fixture.application().test(.router) { client in
            let sid = try await Self.signIn(client, fixture)
            let key = try #require(try await fixture.hub.store.keys().first)
            let first = try #require(try await fixture.hub.store.load(key))
            #expect(first.canRenew, "the sign-in asked for offline_access")
            // Past the access token's expiry: the middleware renews before the route runs.
            fixture.clock.set(try #require(first.expiresAt).addingTimeInterval(120))
            let me = try await client.execute(uri: "/api/me", method: .get, headers: [.cookie: "authhub-session=\(sid)"])
            #expect(me.status == .ok)
            let renewed = try #require(try await fixture.hub.store.load(key))
            #expect(renewed.accessToken != first.accessToken)
            #expect(renewed.version > first.version)
            // Expired again, and the provider is down: 503, the session and the cookie are kept.
            fixture.clock.set(try #require(renewed.expiresAt).addingTimeInterval(120))
            await fixture.emulator.stop()
            let down = try await client.execute(uri: "/api/me", method: .get, headers: [.cookie: "authhub-session=\(sid)"])
            #expect(down.status == .serviceUnavailable)
            #expect(Self.cookie("authhub-session", in: down) == nil)
            #expect(try await fixture.hub.store.load(key)?.refreshToken == renewed.refreshToken)
        }
    }

    @Test func aDeadRefreshTokenSignsTheBrowserOut() async throws {
        let fixture = try await Fixture.start(idleTimeout: .seconds(7 * 86_400))
        defer { Task { await fixture.emulator.stop() } }
        try await fixture.application().test(.router) { client in
            let sid = try await Self.signIn(client, fixture)
            let key = try #require(try await fixture.hub.store.keys().first)
            let first = try #require(try await fixture.hub.store.load(key))
            // The refresh token is revoked at the provider (as a sign-out elsewhere would).
            let revoke = try await fixture.wire.send(.post, fixture.emulator.url("/auth0/oauth/revoke"), headerFields: [.contentType: "application/json"],
                                                     body: Data(#"{"client_id":"authhub-web","token":"\#(try #require(first.refreshToken).revealed())"}"#.utf8))
            #expect(revoke.status == 200)
            fixture.clock.set(try #require(first.expiresAt).addingTimeInterval(120))
            let me = try await client.execute(uri: "/api/me", method: .get, headers: [.cookie: "authhub-session=\(sid)"])
            #expect(me.status == .unauthorized)
            #expect(Self.cookie("authhub-session", in: me) == "")
            #expect(try await fixture.hub.store.keys().isEmpty)
        }
    }

    /// The same hub serves browser sessions and bearer tokens: a middleware built from the hub
    /// trusts its Auth0 tenant's access tokens for the API.
    @Test func aBearerMiddlewareBuiltFromTheHub() async throws {
        let fixture = try await Fixture.start()
        defer { Task { await fixture.emulator.stop() } }
        let bearer = try await AuthHubBearerMiddleware<AuthHubRequestContext>(hub: fixture.hub, audience: "https://api.example.com")
        let auth0 = try fixture.hub.provider("auth0", as: Auth0Provider.self)
        let tokens = try await auth0.authentication.login(usernameOrEmail: "web@example.com", password: Secret(Self.password),
                                                          realm: "Username-Password-Authentication", audience: "https://api.example.com")
        let router = Router(context: AuthHubRequestContext.self)
        router.group("api").add(middleware: bearer).add(middleware: IsAuthenticatedMiddleware())
            .get("me") { _, context in try context.requireIdentity().provider }
        try await Application(router: router).test(.router) { client in
            let ok = try await client.execute(uri: "/api/me", method: .get, headers: [.authorization: "Bearer \(tokens.accessToken.revealed())"])
            #expect(ok.status == .ok)
        }
    }

    /// Signing in again while signed in: the browser ends with the new session's cookie (the
    /// middleware does not re-set the old one after the callback), and the old session is gone.
    @Test func signingInAgainReplacesTheBrowsersSession() async throws {
        let fixture = try await Fixture.start()
        defer { Task { await fixture.emulator.stop() } }
        try await fixture.application().test(.router) { client in
            let first = try await Self.signIn(client, fixture)
            let firstKey = SessionKey(provider: "auth0", account: try #require(fixture.web.account(ofSessionCookie: first)))
            let firstRefreshToken = try #require(try await fixture.hub.store.load(firstKey)?.refreshToken)
            let (pre, callback) = try await Self.begin(client, fixture)
            let again = try await client.execute(uri: callback, method: .get,
                                                 headers: [.cookie: "authhub-signin=\(pre); authhub-session=\(first)"])
            #expect(again.status == .found)
            let second = try #require(Self.cookie("authhub-session", in: again))
            #expect(second != first && second.hasPrefix("auth0."))
            let keys = try await fixture.hub.store.keys()
            #expect(keys.count == 1 && keys[0].account == fixture.web.account(ofSessionCookie: second), "only the new session is stored")
            #expect(try await client.execute(uri: "/api/me", method: .get, headers: [.cookie: "authhub-session=\(first)"]).status == .unauthorized)
            #expect(try await client.execute(uri: "/api/me", method: .get, headers: [.cookie: "authhub-session=\(second)"]).status == .ok)
            // The old session was revoked at Auth0 off the callback's path (the hub's one rule).
            try await fixture.hub.finishBackgroundWork()
            let auth0 = try fixture.hub.provider("auth0", as: Auth0Provider.self)
            let revoked = await #expect(throws: AuthError.self) { try await auth0.authentication.renew(refreshToken: firstRefreshToken) }
            #expect(revoked?.code == .refreshTokenInvalid)
        }
    }
}
