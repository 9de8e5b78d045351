import AuthHub
import AuthHubTesting
import AuthHubWebCore
import AuthHubWebTestSupport
import Foundation
import HTTPTypes
import Testing

/// Step-up through the web core's own routes against the emulator's Auth0 tenant: an old sign-in is
/// sent through the provider again (`max_age=0`, `prompt=login`) and back; the new session has a fresh
/// `auth_time`; someone else completing it is refused and the browser keeps its session.
@Suite struct StepUpTests {
    let wire = URLSessionTransport(defaultTimeout: .seconds(30), followRedirects: false)

    struct Browser {
        let web: AuthHubWeb
        var session: String?
        /// The address the adapter would report for this browser's connection.
        var peer: String?

        func request(_ path: String, cookies: [(String, String)]) -> WebRequest {
            var head = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:8080", path: path)
            let all = cookies + (session.map { [(web.configuration.sessionCookieName, $0)] } ?? [])
            if !all.isEmpty { head.headerFields[.cookie] = all.map { "\($0.0)=\($0.1)" }.joined(separator: "; ") }
            head.headerFields[.userAgent] = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
            return WebRequest(head: head, peerAddress: peer)
        }

        /// A form POST of `fields` (`application/x-www-form-urlencoded`) from `origin`, read up to the handler's limit.
        func form(_ path: String, cookies: [(String, String)] = [], fields: [(String, String)], origin: String) -> WebRequest {
            var request = self.request(path, cookies: cookies)
            request.head.method = .post
            request.head.headerFields[.origin] = origin
            request.head.headerFields[.contentType] = "application/x-www-form-urlencoded"
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._~")
            let body = fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&")
            request.readBody = { limit in
                guard body.utf8.count <= limit else { throw AuthError(.invalidRequest, message: "too large") }
                return Array(body.utf8)
            }
            return request
        }

        static func cookie(_ name: String, in response: WebResponse) -> String? {
            response.headerFields[values: .setCookie].lazy.compactMap { line -> String? in
                guard line.hasPrefix(name + "=") else { return nil }
                return String(line.dropFirst(name.count + 1).prefix { $0 != ";" })
            }.first
        }
    }

    /// Runs the login route (with `query`), the provider's approval and the callback.
    func signIn(_ browser: inout Browser, query: String, approve: (URL) async throws -> URL) async throws -> WebResponse {
        let login = await browser.web.login(browser.request("/auth/login?provider=auth0&returnTo=%2Fme" + query, cookies: []))
        let pre = try #require(Browser.cookie(browser.web.configuration.preSessionCookieName, in: login), "\(login.status)")
        let authorize = try #require(login.headerFields[.location].flatMap(URL.init(string:)))
        let back = try await approve(authorize)
        let components = try #require(URLComponents(url: back, resolvingAgainstBaseURL: false))
        let callback = await browser.web.callback(browser.request(components.path + "?" + (components.percentEncodedQuery ?? ""),
                                                                  cookies: [(browser.web.configuration.preSessionCookieName, pre)]))
        if let sid = Browser.cookie(browser.web.configuration.sessionCookieName, in: callback), !sid.isEmpty { browser.session = sid }
        return callback
    }

    @Test func anOldSignInIsSteppedUpBySameUserAndRefusedForAnother() async throws {
        let environment = try await EmulatorWebEnvironment.make()
        defer { Task { await environment.tearDown() } }
        let web = try AuthHubWeb(hub: environment.hub, configuration: WebSignInConfiguration(publicBaseURL: URL(string: "http://127.0.0.1:8080")!))
        var browser = Browser(web: web)
        #expect(try await signIn(&browser, query: "", approve: environment.approve).status == .found)
        let first = try #require(await web.resolveSession(cookie: try #require(browser.session)).identity)
        let signedInAt = try #require(first.authenticatedAt, "the emulator's ID token carries auth_time")
        #expect(abs(signedInAt.timeIntervalSince(environment.clock.now)) < 2)
        #expect(web.requireRecentAuthentication(first, maxAge: .seconds(300), returnTo: "/account") == nil, "just signed in")
        #expect(try await web.sessions(of: first).first?.device == "Firefox on Linux", "the device summary kept at sign-in")

        environment.clock.advance(by: 600)
        let old = try #require(await web.resolveSession(cookie: try #require(browser.session)).identity)
        let stepUp = try #require(web.requireRecentAuthentication(old, maxAge: .seconds(300), returnTo: "/account"))
        #expect(stepUp.status == .seeOther)
        #expect(stepUp.headerFields[.location] == "/auth/login?provider=auth0&returnTo=%2Faccount&maxAge=0")
        #expect(web.requireRecentAuthentication(old, maxAge: .seconds(300), returnTo: "https://evil.example/")?.status == .badRequest)

        // Someone else completes the re-authentication: refused, the browser's session kept.
        let other = "someone.else@example.com"
        let stolen = try await signIn(&browser, query: "&maxAge=0") { authorize in
            let components = try #require(URLComponents(url: authorize, resolvingAgainstBaseURL: false))
            #expect(components.queryItems?.contains(URLQueryItem(name: "max_age", value: "0")) == true)
            #expect(components.queryItems?.contains(URLQueryItem(name: "prompt", value: "login")) == true)
            let base = try #require(URL(string: "/auth0/__emulator/users", relativeTo: authorize)?.absoluteURL)
            _ = try await wire.send(.post, base, headerFields: [.contentType: "application/json"],
                                    body: Data(#"{"email":"\#(other)","password":"\#(EmulatorWebEnvironment.password)"}"#.utf8))
            let reply = try await wire.send(.get, authorize, headerFields: [HTTPField.Name("X-AuthHub-Emulator-User")!: other])
            return try #require(reply.headerFields[.location].flatMap(URL.init(string:)))
        }
        #expect(stolen.status == .forbidden)
        #expect(await web.resolveSession(cookie: try #require(browser.session)).identity?.subject == old.subject, "still the first user's session")

        // The same user steps up: a new session of the same user, signed in just now.
        let before = browser.session
        #expect(try await signIn(&browser, query: "&maxAge=0", approve: environment.approve).status == .found)
        #expect(browser.session != before, "a new session")
        let stepped = try #require(await web.resolveSession(cookie: try #require(browser.session)).identity)
        #expect(stepped.subject == old.subject)
        #expect(web.requireRecentAuthentication(stepped, maxAge: .seconds(300), returnTo: "/account") == nil)
        #expect(await web.resolveSession(cookie: try #require(before)).identity == nil, "the old session was replaced")
        #expect(await web.login(browser.request("/auth/login?provider=auth0&maxAge=-1", cookies: [])).status == .badRequest)
        #expect(await web.login(browser.request("/auth/login?provider=auth0&maxAge=1e3", cookies: [])).status == .badRequest)
    }
}
