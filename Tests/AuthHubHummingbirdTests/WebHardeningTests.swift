import AuthHub
import AuthHubAuth0
import AuthHubEmulator
import AuthHubHummingbird
import AuthHubTesting
import AuthHubWebExample
import Foundation
import Hummingbird
import HummingbirdAuth
import HummingbirdTesting
import Testing

/// What an attacker's page and a failing provider found in the web integration (issue 31, items
/// 12–14): error handling of the example's "Refresh now", ambient cookie authority on bearer routes,
/// and the security headers.
@Suite struct WebHardeningTests {
    typealias Fixture = WebSignInTests.Fixture

    static let securityHeaders: [(String, String)] = [
        ("X-Frame-Options", "DENY"), ("Content-Security-Policy", "frame-ancestors 'none'"),
        ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "same-origin"),
    ]

    static func expectSecurityHeaders(_ response: TestResponse, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for (name, value) in securityHeaders {
            #expect(response.headers[HTTPField.Name(name)!] == value, "\(what): \(name)", sourceLocation: sourceLocation)
        }
    }

    /// The example app over the fixture's hub; signs in and returns the session cookie and the CSRF token of the profile page.
    static func signedInExample(_ client: some TestClientProtocol, _ fixture: Fixture) async throws -> (sid: String, csrf: String) {
        let sid = try await WebSignInTests.signIn(client, fixture)
        let page = try await client.execute(uri: "/profile", method: .get, headers: [.cookie: "authhub-session=\(sid)"])
        #expect(page.status == .ok)
        let html = String(buffer: page.body)
        let marker = try #require(html.range(of: "name=\"csrf\" value=\""))
        let csrf = String(html[marker.upperBound...].prefix { $0 != "\"" })
        return (sid, csrf)
    }

    static func refresh(_ client: some TestClientProtocol, sid: String, csrf: String) async throws -> TestResponse {
        try await client.execute(uri: "/profile/refresh", method: .post,
                                 headers: [.cookie: "authhub-session=\(sid)", .origin: "http://127.0.0.1:8080",
                                           .contentType: "application/x-www-form-urlencoded"],
                                 body: ByteBuffer(string: "csrf=\(csrf)"))
    }

    /// Item 12: the example's "Refresh now" after the provider revoked the refresh token answers 401
    /// and clears the cookie (it answered a bare 500); with the provider down, 503 and both kept.
    @Test func theExamplesRefreshAnswersAuthHubsErrorsTheDocumentedWay() async throws {
        let fixture = try await Fixture.start(idleTimeout: .seconds(7 * 86_400))
        defer { Task { await fixture.emulator.stop() } }
        let router = try await WebExampleApp.router(hub: fixture.hub, publicBaseURL: URL(string: "http://127.0.0.1:8080")!, apiAudience: nil)
        try await Application(router: router).test(.router) { client in
            let (sid, csrf) = try await Self.signedInExample(client, fixture)
            let ok = try await Self.refresh(client, sid: sid, csrf: csrf)
            #expect(ok.status == .seeOther)
            Self.expectSecurityHeaders(ok, "a redirect of the example")

            let key = try #require(try await fixture.hub.store.keys().first)
            let stored = try #require(try await fixture.hub.store.load(key))
            let revoke = try await fixture.wire.send(.post, fixture.emulator.url("/auth0/oauth/revoke"), headerFields: [.contentType: "application/json"],
                                                     body: Data(#"{"client_id":"authhub-web","token":"\#(try #require(stored.refreshToken).revealed())"}"#.utf8))
            #expect(revoke.status == 200)
            let dead = try await Self.refresh(client, sid: sid, csrf: csrf)
            #expect(dead.status == .unauthorized, "\(dead.status)")
            #expect(WebSignInTests.cookie("authhub-session", in: dead) == "", "the cookie is cleared")
            #expect(String(buffer: dead.body).contains("sign in again"))
            Self.expectSecurityHeaders(dead, "the 401")
        }
    }

    @Test func theExamplesRefreshWithTheProviderDownIs503AndKeepsTheSession() async throws {
        let fixture = try await Fixture.start(idleTimeout: .seconds(7 * 86_400))
        let router = try await WebExampleApp.router(hub: fixture.hub, publicBaseURL: URL(string: "http://127.0.0.1:8080")!, apiAudience: nil)
        try await Application(router: router).test(.router) { client in
            let (sid, csrf) = try await Self.signedInExample(client, fixture)
            await fixture.emulator.stop()
            let down = try await Self.refresh(client, sid: sid, csrf: csrf)
            #expect(down.status == .serviceUnavailable, "\(down.status)")
            #expect(WebSignInTests.cookie("authhub-session", in: down) == nil, "the cookie is kept")
            #expect(try await fixture.hub.store.keys().count == 1, "the session is kept")
            #expect(!String(buffer: down.body).isEmpty)
        }
    }

    /// Item 13: a route behind the bearer middleware does not take the browser's cookie unless the
    /// app opts in, and then a state-changing request needs the CSRF token.
    @Test func bearerRoutesIgnoreTheSessionCookieUnlessOptedIn() async throws {
        let fixture = try await Fixture.start()
        defer { Task { await fixture.emulator.stop() } }
        for optIn in [false, true] {
            let bearer = try await AuthHubBearerMiddleware<AuthHubRequestContext>(hub: fixture.hub, audience: "https://api.example.com",
                                                                                   acceptsSessionCookie: optIn)
            let router = Router(context: AuthHubRequestContext.self)
            router.add(middleware: fixture.web.sessionMiddleware())
            router.addRoutes(fixture.web.routes(), atPath: RouterPath(fixture.web.configuration.routePrefix))
            let api = router.group("api").add(middleware: bearer).add(middleware: IsAuthenticatedMiddleware())
            api.get("me") { _, context in try context.requireIdentity().email ?? "" }
            api.post("transfer") { _, _ in "done" }
            router.group("session").add(middleware: IsAuthenticatedMiddleware()).get("csrf") { _, context in try context.requireIdentity().csrfToken ?? "" }
            try await Application(router: router).test(.router) { client in
                let sid = try await WebSignInTests.signIn(client, fixture)
                let cookie: HTTPFields = [.cookie: "authhub-session=\(sid)"]
                let read = try await client.execute(uri: "/api/me", method: .get, headers: cookie)
                let forged = try await client.execute(uri: "/api/transfer", method: .post, headers: cookie)
                if optIn {
                    #expect(read.status == .ok)
                    #expect(forged.status == .forbidden, "a cross-site POST with the cookie only")
                    let csrf = String(buffer: try await client.execute(uri: "/session/csrf", method: .get, headers: cookie).body)
                    var withToken = cookie
                    withToken[HTTPField.Name("X-CSRF-Token")!] = csrf
                    #expect(try await client.execute(uri: "/api/transfer", method: .post, headers: withToken).status == .ok)
                } else {
                    #expect(read.status == .unauthorized, "the cookie is ambient authority: not accepted by default")
                    #expect(forged.status == .unauthorized)
                }
            }
        }
    }

    /// Item 14: the library's own routes and, through the middleware, an app's pages (error pages
    /// too) send the security headers; a route's own value stands.
    @Test func securityHeadersOnTheLibrarysRoutesAndTheAppsPages() async throws {
        let fixture = try await Fixture.start()
        defer { Task { await fixture.emulator.stop() } }
        let router = Router(context: AuthHubRequestContext.self)
        router.add(middleware: AuthHubSecurityHeadersMiddleware())
        router.add(middleware: fixture.web.sessionMiddleware())
        router.addRoutes(fixture.web.routes(), atPath: RouterPath(fixture.web.configuration.routePrefix))
        router.get("page") { _, _ in "hello" }
        router.get("framed") { _, _ in Response(status: .ok, headers: [HTTPField.Name("X-Frame-Options")!: "SAMEORIGIN"]) }
        router.group("private").add(middleware: IsAuthenticatedMiddleware()).get { _, _ in "secret" }
        try await Application(router: router).test(.router) { client in
            let login = try await client.execute(uri: "/auth/login?provider=auth0", method: .get)
            Self.expectSecurityHeaders(login, "the login redirect")
            let refused = try await client.execute(uri: "/auth/callback?code=x&state=y", method: .get)
            #expect(refused.status == .badRequest)
            Self.expectSecurityHeaders(refused, "a refused callback")
            Self.expectSecurityHeaders(try await client.execute(uri: "/page", method: .get), "an app page")
            Self.expectSecurityHeaders(try await client.execute(uri: "/private", method: .get), "a 401")
            Self.expectSecurityHeaders(try await client.execute(uri: "/nowhere", method: .get), "a 404")
            let framed = try await client.execute(uri: "/framed", method: .get)
            #expect(framed.headers[HTTPField.Name("X-Frame-Options")!] == "SAMEORIGIN", "the route's own value stands")
        }
        // Without the middleware the library's routes still send them (an app that forgot it).
        let bare = Router(context: AuthHubRequestContext.self)
        bare.addRoutes(fixture.web.routes(), atPath: RouterPath(fixture.web.configuration.routePrefix))
        try await Application(router: bare).test(.router) { client in
            Self.expectSecurityHeaders(try await client.execute(uri: "/auth/login?provider=auth0", method: .get), "the login redirect, no middleware")
        }
    }
}
