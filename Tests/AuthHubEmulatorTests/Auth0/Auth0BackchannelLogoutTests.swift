import AuthHub
import AuthHubEmulator
import AuthHubTesting
import Foundation
import HTTPTypes
import Hummingbird
import JWTKit
import Logging
import Testing

/// A relying party's back-channel logout endpoint of the test's own: a Hummingbird app on
/// 127.0.0.1 that records every POST it receives and answers each path with the status set for it
/// (200 by default).
final class LogoutReceiver: Sendable {
    /// One request the receiver got.
    struct Received: Sendable {
        var path: String
        var method: String
        var contentType: String?
        var cookie: String?
        var body: String
    }

    let baseURL: URL
    private let received: Mutex<[Received]>  // AuthHub's lock (package), as CookieBrowser uses
    private let stopServer: @Sendable () async -> Void

    private init(baseURL: URL, received: Mutex<[Received]>, stop: @escaping @Sendable () async -> Void) {
        self.baseURL = baseURL
        self.received = received
        self.stopServer = stop
    }

    /// The requests received so far, in arrival order.
    var requests: [Received] { received.withLock { $0 } }

    func url(_ path: String) -> String { baseURL.absoluteString + path }

    func stop() async { await stopServer() }

    /// Starts a receiver; `statuses` maps a path to the status it answers.
    static func start(statuses: [String: Int] = [:]) async throws -> LogoutReceiver {
        let log = Mutex<[Received]>([])
        let router = Router()
        router.post("**") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 64 * 1024)
            let path = request.uri.path
            log.withLock {
                $0.append(Received(path: path, method: request.method.rawValue, contentType: request.headers[.contentType],
                                   cookie: request.headers[.cookie], body: String(buffer: body)))
            }
            return Response(status: HTTPResponse.Status(code: statuses[path] ?? 200))
        }
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) },
                              logger: Logger(label: "logout-receiver", factory: { _ in SwiftLogNoOpLogHandler() }))
        let task = Task { try await app.runService(gracefulShutdownSignals: []) }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0, let url = URL(string: "http://127.0.0.1:\(port)") else {
            task.cancel()
            throw AuthError(.unknown, message: "the receiver did not start")
        }
        return LogoutReceiver(baseURL: url, received: log) {
            task.cancel()
            _ = await task.result
        }
    }
}

/// The sending side of OpenID Connect Back-Channel Logout 1.0 on the emulated Auth0 tenant, over
/// real HTTP on loopback: browser logins through `/authorize` (the emulator's `CookieBrowser`), the
/// logout at `/v2/logout`, and a receiver of the test's own that gets the logout tokens.
@Suite struct Auth0BackchannelLogoutTests {
    static let event = "http://schemas.openid.net/event/backchannel-logout"

    /// Registers `clientId` with the test redirect URI and, when given, back-channel logout URLs.
    func register(_ wire: Auth0Wire, _ clientId: String, logoutURLs: [String]? = nil) async throws -> Auth0Wire.Reply {
        var body: [String: JSONValue] = ["client_id": .string(clientId), "callbacks": [.string(Auth0Wire.redirectURI)]]
        if let logoutURLs { body["oidc_logout"] = ["backchannel_logout_urls": .array(logoutURLs.map(JSONValue.string))] }
        return try await wire.post("/auth0/__emulator/clients", json: .object(body))
    }

    /// The authorize URL for `clientId`.
    func authorizeURL(_ emulator: RunningEmulator, clientId: String, challenge: String) -> URL {
        emulator.url("/auth0/authorize?" + queryString([
            ("client_id", clientId), ("redirect_uri", Auth0Wire.redirectURI), ("response_type", "code"),
            ("scope", "openid profile email offline_access"), ("state", "st"), ("nonce", "nonce-\(clientId)"),
            ("code_challenge", challenge), ("code_challenge_method", "S256"),
        ]))
    }

    /// The code of a redirect to the callback.
    func code(of reply: HTTPReply) throws -> String {
        let location = try #require(reply.headerFields[.location].flatMap(URLComponents.init(string:)))
        return try #require(location.queryItems?.first { $0.name == "code" }?.value)
    }

    /// Exchanges `code` for `clientId`'s tokens → the verified ID-token claims.
    func exchange(_ wire: Auth0Wire, _ code: String, clientId: String, verifier: String) async throws -> [String: JSONValue] {
        let tokens = try await wire.post("/auth0/oauth/token", json: [
            "client_id": .string(clientId), "grant_type": "authorization_code", "code": .string(code),
            "code_verifier": .string(verifier), "redirect_uri": .string(Auth0Wire.redirectURI),
        ])
        #expect(tokens.status == 200)
        return try await wire.verifiedClaims(try #require(tokens.json?["id_token"]?.stringValue))
    }

    /// Logs in through the login page with `browser` for the first client, then through the
    /// browser session for the others, exchanging every code → each client's ID-token claims.
    func logIn(_ browser: CookieBrowser, _ wire: Auth0Wire, email: String, clients: [String]) async throws -> [String: [String: JSONValue]] {
        var claims: [String: [String: JSONValue]] = [:]
        for (index, clientId) in clients.enumerated() {
            let pkce = pkcePair()
            let url = authorizeURL(wire.emulator, clientId: clientId, challenge: pkce.challenge)
            let reply: HTTPReply
            if index == 0 {
                let page = try await browser.send(.get, url)
                #expect(page.status == 200, "the login page is shown")
                let text = String(decoding: page.body, as: UTF8.self)
                let transaction = try #require(text.firstMatch(of: /name="transaction" value="([^"]+)"/)?.1).description
                reply = try await browser.send(.post, wire.emulator.url("/auth0/u/login"), form: [
                    ("transaction", transaction), ("email", email), ("password", "correct horse battery"),
                ])
            } else {
                reply = try await browser.send(.get, url)
            }
            #expect(reply.status == 302)
            claims[clientId] = try await exchange(wire, try code(of: reply), clientId: clientId, verifier: pkce.verifier)
        }
        return claims
    }

    /// The JOSE header of a compact JWS.
    func header(of token: String) throws -> [String: JSONValue] {
        let segment = try #require(token.split(separator: ".").first)
        let data = try #require(Base64URL.decode(String(segment)))
        return try #require(try JSONValue.parse(data).objectValue)
    }

    /// The `logout_token` of a form body that must hold that one field.
    func logoutToken(inForm body: String) throws -> String {
        let pairs = body.split(separator: "&")
        #expect(pairs.count == 1, "the body is the single field logout_token")
        let pair = try #require(pairs.first).split(separator: "=", maxSplits: 1)
        #expect(pair.first == "logout_token")
        return try #require(pair.last.flatMap { String($0).removingPercentEncoding })
    }

    @Test func aLogoutPostsASignedLogoutTokenToEveryClientOfTheSessionBeforeAnswering() async throws {
        let clock = FakeClock()
        let emulator = try await Emulator.start(EmulatorConfiguration(clock: clock))
        let receiver = try await LogoutReceiver.start()
        let wire = Auth0Wire(emulator: emulator)
        try await wire.seed("bcl@example.com")
        let registered = try await register(wire, "app-a", logoutURLs: [receiver.url("/a/logout")])
        _ = try await register(wire, "app-b", logoutURLs: [receiver.url("/b/logout"), receiver.url("/b/second")])
        _ = try await register(wire, "app-c")
        _ = try await register(wire, "app-d", logoutURLs: [receiver.url("/d/logout")])

        let browser = CookieBrowser()
        let idClaims = try await logIn(browser, wire, email: "bcl@example.com", clients: ["app-a", "app-b", "app-c"])
        let password = try await wire.login("bcl@example.com")
        let passwordClaims = try await wire.verifiedClaims(try #require(password.json?["id_token"]?.stringValue))
        let logoutTime = clock.now.timeIntervalSince1970.rounded(.down)
        let logout = try await browser.send(.get, emulator.url("/auth0/v2/logout?" + queryString([
            ("client_id", "app-a"), ("returnTo", Auth0Wire.redirectURI),
        ])))
        let received = receiver.requests
        let recorded = try await wire.get("/auth0/__emulator/backchannel-logouts")
        let recordedForB = try await wire.get("/auth0/__emulator/backchannel-logouts?client_id=app-b")
        let inProcess = await emulator.auth0BackchannelLogouts()
        let jwks = try await wire.get("/auth0/.well-known/jwks.json")
        let discovery = try await wire.get("/auth0/.well-known/openid-configuration")
        let afterwards = try await browser.send(.get, authorizeURL(emulator, clientId: "app-a", challenge: pkcePair().challenge))
        let keys = JWTKeyCollection()
        _ = try await keys.add(jwksJSON: jwks.text)
        var verified: [String: [String: JSONValue]] = [:]
        var headers: [String: [String: JSONValue]] = [:]
        for request in received {
            let token = try logoutToken(inForm: request.body)
            verified[request.path] = try await keys.verify(token, as: OpenClaims.self).claims
            headers[request.path] = try header(of: token)
        }
        await receiver.stop()
        await emulator.stop()

        #expect(registered.status == 201)
        #expect(registered.json?["oidc_logout"]?["backchannel_logout_urls"] == [.string(receiver.url("/a/logout"))])
        let sid = try #require(idClaims["app-a"]?["sid"]?.stringValue, "ID tokens from the browser session carry sid")
        #expect(sid.count >= 16)
        #expect(idClaims["app-b"]?["sid"]?.stringValue == sid, "one browser session, one sid")
        #expect(idClaims["app-c"]?["sid"]?.stringValue == sid)
        #expect(!passwordClaims.keys.contains("sid"), "the password grant has no browser session, so no sid")
        #expect(discovery.json?["backchannel_logout_supported"] == true)
        #expect(discovery.json?["backchannel_logout_session_supported"] == true)

        #expect(logout.status == 302, "a logout answers as before")
        #expect(received.map(\.path).sorted() == ["/a/logout", "/b/logout", "/b/second"],
                "every URL of every client of the session, none for a client without URLs or outside the session; all before the reply")
        let kid = try #require(jwks.json?["keys"]?.arrayValue?.first?["kid"]?.stringValue)
        let subject = try #require(idClaims["app-a"]?["sub"]?.stringValue)
        for request in received {
            #expect(request.method == "POST")
            #expect(request.contentType?.hasPrefix("application/x-www-form-urlencoded") == true)
            #expect(request.cookie == nil)
            let claims = try #require(verified[request.path], "the signature verifies against the tenant's JWKS")
            let header = try #require(headers[request.path])
            #expect(header["typ"] == "logout+jwt")
            #expect(header["alg"] == "RS256")
            #expect(header["kid"]?.stringValue == kid)
            let client = request.path.hasPrefix("/a/") ? "app-a" : "app-b"
            #expect(claims["iss"]?.stringValue == wire.issuer)
            #expect(claims["iss"] == idClaims[client]?["iss"], "iss exactly as in the tenant's ID tokens")
            #expect(claims["aud"]?.stringValue == client)
            #expect(claims["sub"]?.stringValue == subject)
            #expect(claims["sid"]?.stringValue == sid)
            #expect(claims["iat"]?.doubleValue == logoutTime)
            #expect(claims["exp"]?.doubleValue == logoutTime + 120)
            #expect(claims["events"] == .object([Self.event: .object([:])]))
            #expect(!claims.keys.contains("nonce"), "a logout token never carries nonce")
            #expect((claims["jti"]?.stringValue?.count ?? 0) >= 16)
            #expect(Set(claims.keys) == ["iss", "aud", "iat", "exp", "jti", "events", "sub", "sid"])
        }
        #expect(verified["/b/logout"]?["jti"] == verified["/b/second"]?["jti"], "one token per client, sent to each of its URLs")
        #expect(verified["/a/logout"]?["jti"] != verified["/b/logout"]?["jti"], "each client's token is unique")

        let deliveries = try #require(recorded.json?["deliveries"]?.arrayValue)
        #expect(deliveries.count == 3)
        #expect(deliveries.map { $0["client_id"]?.stringValue ?? "" } == ["app-a", "app-b", "app-b"])
        #expect(deliveries.allSatisfy { $0["status"] == 200 && $0["error"] == .null && $0["sid"]?.stringValue == sid })
        #expect(deliveries.allSatisfy { $0["sub"]?.stringValue == subject && $0["logout_token"]?.stringValue?.isEmpty == false })
        #expect(recordedForB.json?["deliveries"]?.arrayValue?.count == 2)
        #expect(inProcess.count == 3)
        #expect(inProcess.allSatisfy { $0.succeeded && $0.sessionId == sid && $0.subject == subject })
        #expect(inProcess.map(\.url) == [receiver.url("/a/logout"), receiver.url("/b/logout"), receiver.url("/b/second")])
        #expect(afterwards.status == 200, "the session is over: the login page again")
    }

    @Test func aRefusedOrFailingReceiverIsRecordedAndDoesNotFailTheLogout() async throws {
        let emulator = try await Emulator.start(EmulatorConfiguration(clock: FakeClock()))
        let closed = try await LogoutReceiver.start()
        let closedURL = closed.url("/gone")
        await closed.stop()
        let receiver = try await LogoutReceiver.start(statuses: ["/bad": 400])
        let wire = Auth0Wire(emulator: emulator)
        try await wire.seed("closed@example.com")
        _ = try await register(wire, "app-closed", logoutURLs: [closedURL, receiver.url("/bad"), receiver.url("/fine")])

        let browser = CookieBrowser()
        _ = try await logIn(browser, wire, email: "closed@example.com", clients: ["app-closed"])
        let logout = try await browser.send(.get, emulator.url("/auth0/v2/logout"))
        let deliveries = await emulator.auth0BackchannelLogouts(clientId: "app-closed")
        let received = receiver.requests.map(\.path).sorted()
        let noCookie = try await wire.get("/auth0/v2/logout")
        let afterNoCookie = await emulator.auth0BackchannelLogouts()
        await receiver.stop()
        await emulator.stop()

        #expect(logout.status == 200, "the logout answers although a receiver is unreachable")
        #expect(received == ["/bad", "/fine"])
        #expect(deliveries.count == 3)
        let refused = try #require(deliveries.first { $0.url == closedURL })
        #expect(refused.status == nil)
        #expect(refused.error?.isEmpty == false, "why there was no answer is recorded")
        #expect(!refused.succeeded)
        #expect(deliveries.first { $0.url == receiver.url("/bad") }?.status == 400)
        #expect(deliveries.first { $0.url == receiver.url("/fine") }?.succeeded == true)
        #expect(noCookie.status == 200)
        #expect(afterNoCookie.count == 3, "a logout without a session sends nothing")
    }

    @Test func registrationTakesOnlyLoopbackHTTPURLs() async throws {
        let emulator = try await Emulator.start(EmulatorConfiguration(clock: FakeClock()))
        let wire = Auth0Wire(emulator: emulator)
        var statuses: [String: Int] = [:]
        for url in [
            "https://example.com/logout", "http://10.0.0.1/logout", "ftp://127.0.0.1/logout", "http://127.0.0.1/logout#frag",
            "http://user:pass@127.0.0.1/logout", "/relative", "http://127.0.0.1.example.com/logout", "http://1270.0.0.1/",
            "http://127.0.0.1:99999999999/", "http://127.0.0.1:0/logout", "http://127.0.0.1/" + String(repeating: "a", count: 3_000),
        ] {
            statuses[url] = try await register(wire, "app-x", logoutURLs: [url]).status
        }
        let tooMany = try await register(wire, "app-x", logoutURLs: (0..<11).map { "http://127.0.0.1:\(1000 + $0)/logout" })
        let notStrings = try await wire.post("/auth0/__emulator/clients", json: [
            "client_id": "app-x", "oidc_logout": ["backchannel_logout_urls": [1]],
        ])
        let notObject = try await wire.post("/auth0/__emulator/clients", json: ["client_id": "app-x", "oidc_logout": "http://127.0.0.1/"])
        let accepted = try await register(wire, "app-y", logoutURLs: [
            "http://localhost:8080/logout", "http://[::1]:8080/logout", "https://127.0.0.2/logout?x=1",
        ])
        await emulator.stop()

        #expect(statuses.filter { $0.value != 400 }.keys.map { String($0.prefix(60)) } == [], "every one is refused")
        #expect(statuses.count == 11)
        #expect(tooMany.status == 400)
        #expect(notStrings.status == 400)
        #expect(notObject.status == 400)
        #expect(accepted.status == 201)
        #expect(accepted.json?["oidc_logout"]?["backchannel_logout_urls"]?.arrayValue?.count == 3)
    }

    @Test func theLogoutTokenHookSignsOnDemandAndSendsWhenAsked() async throws {
        let clock = FakeClock()
        let emulator = try await Emulator.start(EmulatorConfiguration(clock: clock))
        let receiver = try await LogoutReceiver.start()
        let wire = Auth0Wire(emulator: emulator)
        _ = try await register(wire, "app-hook", logoutURLs: [receiver.url("/hook")])
        let now = clock.now.timeIntervalSince1970.rounded(.down)

        let minted = try await wire.post("/auth0/__emulator/logout-token", json: ["client_id": "app-hook", "sub": "auth0|u1", "sid": "s-1"])
        let sidOnly = try await wire.post("/auth0/__emulator/logout-token", json: ["client_id": "app-hook", "sid": "s-2"])
        let tampered = try await wire.post("/auth0/__emulator/logout-token", json: [
            "client_id": "app-hook", "sub": "auth0|u1", "typ": "JWT", "claims": ["nonce": "n", "exp": .null, "iat": 1],
        ])
        let neither = try await wire.post("/auth0/__emulator/logout-token", json: ["client_id": "app-hook"])
        let noClient = try await wire.post("/auth0/__emulator/logout-token", json: ["sub": "x"])
        let longSub = try await wire.post("/auth0/__emulator/logout-token", json: [
            "client_id": "app-hook", "sub": .string(String(repeating: "x", count: 300)),
        ])
        let noURLs = try await wire.post("/auth0/__emulator/logout-token", json: ["client_id": "app-none", "sub": "x", "send": true])
        let receivedBeforeSend = receiver.requests.count
        let sent = try await wire.post("/auth0/__emulator/logout-token", json: [
            "client_id": "app-hook", "sub": "auth0|u2", "sid": "s-3", "send": true,
        ])
        let received = receiver.requests
        let deliveries = await emulator.auth0BackchannelLogouts()
        let jwks = try await wire.get("/auth0/.well-known/jwks.json")
        await receiver.stop()
        await emulator.stop()

        let keys = JWTKeyCollection()
        _ = try await keys.add(jwksJSON: jwks.text)
        #expect(minted.status == 200)
        let token = try #require(minted.json?["logout_token"]?.stringValue)
        let claims = try await keys.verify(token, as: OpenClaims.self).claims
        #expect(try header(of: token)["typ"] == "logout+jwt")
        #expect(claims["iss"]?.stringValue == wire.issuer)
        #expect(claims["aud"] == "app-hook")
        #expect(claims["sub"] == "auth0|u1")
        #expect(claims["sid"] == "s-1")
        #expect(claims["iat"]?.doubleValue == now)
        #expect(claims["exp"]?.doubleValue == now + 120)
        #expect(claims["events"] == .object([Self.event: .object([:])]))
        let sidClaims = try await keys.verify(try #require(sidOnly.json?["logout_token"]?.stringValue), as: OpenClaims.self).claims
        #expect(sidClaims["sid"] == "s-2")
        #expect(!sidClaims.keys.contains("sub"))
        let tamperedToken = try #require(tampered.json?["logout_token"]?.stringValue)
        let tamperedClaims = try await keys.verify(tamperedToken, as: OpenClaims.self).claims
        #expect(try header(of: tamperedToken)["typ"] == "JWT")
        #expect(tamperedClaims["nonce"] == "n")
        #expect(!tamperedClaims.keys.contains("exp"))
        #expect(tamperedClaims["iat"] == 1)
        #expect(neither.status == 400)
        #expect(noClient.status == 400)
        #expect(longSub.status == 400)
        #expect(noURLs.status == 400)
        #expect(receivedBeforeSend == 0, "minting sends nothing")
        #expect(sent.status == 200)
        #expect(received.count == 1)
        let sentToken = try logoutToken(inForm: try #require(received.first).body)
        #expect(sent.json?["logout_token"]?.stringValue == sentToken)
        #expect(sent.json?["deliveries"]?.arrayValue?.first?["status"] == 200)
        let sentClaims = try await keys.verify(sentToken, as: OpenClaims.self).claims
        #expect(sentClaims["sub"] == "auth0|u2")
        #expect(sentClaims["sid"] == "s-3")
        #expect(deliveries.count == 1)
        #expect(deliveries.first?.jti == sentClaims["jti"]?.stringValue)
    }
}
