import AuthHub
import AuthHubHummingbird
import AuthHubTesting
import Foundation
import Hummingbird
import HummingbirdAuth
import JWTKit
import Logging

/// The Hummingbird rows of ``WebBenchmarks``: one `Application` per side, each on its own loopback port.
enum HummingbirdWebBenchmarks {
    /// Runs `router`'s app on 127.0.0.1:`port` until the returned task is cancelled.
    static func start<Context: RequestContext>(port: Int, _ router: Router<Context>) async throws -> Task<Void, any Error>
    where Context.Source == ApplicationRequestContextSource {
        var logger = Logger(label: "authhub-bench.web")
        logger.logLevel = .warning
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)), logger: logger)
        let server = Task { try await app.runService() }
        try await waitForListener(port: port, server: server)
        return server
    }

    /// Waits until something accepts connections on `port` (at most 5 s).
    static func waitForListener(port: Int, server: Task<Void, any Error>) async throws {
        for _ in 0..<250 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            close(fd)
            if connected == 0 { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        server.cancel()
        throw BenchFailure("the benchmark app did not start")
    }

    static func bearer(_ options: BenchOptions, fixture: BearerFixture, load: WrkLoad) async throws -> [Row] {
        let names = ["web.hummingbird.bearer.cached", "web.hummingbird.bearer.uncached"]
        guard names.contains(where: options.wants) else { return [] }
        let ports = try (0..<3).map { _ in try ScriptedUpstream.freeLoopbackPort() }
        var servers: [Task<Void, any Error>] = []
        do {
            let rows = try await bearer(options, fixture: fixture, load: load, names: names, ports: ports, servers: &servers)
            await stop(servers)
            return rows
        } catch {
            await stop(servers)
            throw error
        }
    }

    /// Stops the apps and waits until they have.
    static func stop(_ servers: [Task<Void, any Error>]) async {
        for server in servers {
            server.cancel()
            _ = await server.result
        }
    }

    private static func bearer(_ options: BenchOptions, fixture: BearerFixture, load: WrkLoad, names: [String], ports: [Int],
                               servers: inout [Task<Void, any Error>]) async throws -> [Row] {
        // AuthHub: the bearer middleware, the route requiring the identity it put on the context.
        for (index, cached) in [true, false].enumerated() {
            let router = Router(context: AuthHubRequestContext.self)
            router.group("api").add(middleware: AuthHubBearerMiddleware(fixture.authenticator(cached: cached)))
                .get("page") { _, context in
                    _ = try context.requireIdentity()
                    return "ok"
                }
            servers.append(try await start(port: ports[index], router))
        }
        // jwt-kit: a middleware of the app's own verifying the bearer token with the issuer's JWKS,
        // putting the claims on the context, the same route requiring them.
        let keys = JWTKeyCollection()
        try await keys.add(jwksJSON: fixture.jwks)
        let router = Router(context: BasicAuthRequestContext<PeerAccessClaims>.self)
        router.group("api").add(middleware: JWTKitBearerMiddleware(keys: keys)).get("page") { _, context in
            _ = try context.requireIdentity()
            return "ok"
        }
        servers.append(try await start(port: ports[2], router))
        var rows: [Row] = []
        let baseline = "a middleware calling jwt-kit 5's JWTKeyCollection.verify(_:as:) (same token, same checks)"
        for (index, name) in names.enumerated() where options.wants(name) {
            rows.append(try await WebBenchmarks.row(name, options: options, load: load, headers: fixture.headers, subject: ports[index],
                                                    baseline: ports[2], baselineText: baseline, target: 1.0,
                                                    note: index == 0 ? "AuthHub's verified-token cache on" : "AuthHub's verified-token cache off (verifiedTokenCapacity: 0)"))
        }
        return rows
    }

    static func session(_ options: BenchOptions, sessions: SessionFixture, load: WrkLoad) async throws -> [Row] {
        let name = "web.hummingbird.session"
        guard options.wants(name) else { return [] }
        let ports = try (0..<3).map { _ in try ScriptedUpstream.freeLoopbackPort() }
        let transport = CountingTransport(inner: URLSessionTransport(defaultTimeout: .seconds(10)))
        let hub = try sessions.hub(transport: transport)
        let web = try AuthHubWeb(hub: hub, configuration: try SessionFixture.configuration(port: ports[0]))
        var servers: [Task<Void, any Error>] = []
        do {
            let rows = try await session(options, sessions: sessions, load: load, name: name, ports: ports, web: web, transport: transport,
                                         servers: &servers)
            await stop(servers)
            try? await hub.shutdown()
            return rows
        } catch {
            await stop(servers)
            try? await hub.shutdown()
            throw error
        }
    }

    private static func session(_ options: BenchOptions, sessions: SessionFixture, load: WrkLoad, name: String, ports: [Int], web: AuthHubWeb,
                                transport: CountingTransport, servers: inout [Task<Void, any Error>]) async throws -> [Row] {
        let router = Router(context: AuthHubRequestContext.self)
        router.addRoutes(web.routes(), atPath: RouterPath(web.configuration.routePrefix))
        let api = router.group("api").add(middleware: web.sessionMiddleware())
        api.get("page") { _, context in
            _ = try context.requireIdentity()
            return "ok"
        }
        api.get("csrf") { _, context in try context.requireIdentity().csrfToken ?? "" }
        servers.append(try await start(port: ports[0], router))
        let open = Router(context: AuthHubRequestContext.self)
        open.get("api/page") { _, _ in "ok" }
        servers.append(try await start(port: ports[1], open))
        let cookieName = web.configuration.sessionCookieName
        let cookie = try await sessions.signIn(appPort: ports[0], cookieName: cookieName)
        guard let account = web.account(ofSessionCookie: cookie) else { throw BenchFailure("the session cookie names no account") }
        try await checkCSRFToken(web: web, port: ports[0], cookieName: cookieName, cookie: cookie)
        // The hub alone: a middleware asking the hub for the same session on every request.
        let hubOnly = Router(context: AuthHubRequestContext.self)
        hubOnly.group("api").add(middleware: HubSessionRouterMiddleware<AuthHubRequestContext>(hub: web.hub, account: account))
            .get("page") { _, _ in "ok" }
        servers.append(try await start(port: ports[2], hubOnly))
        transport.reset()
        let headers = [("Cookie", "\(cookieName)=\(cookie)")]
        let noRenewal = { transport.total == 0 ? nil : "\(transport.total) requests to the provider during the row (a renewal?)" }
        var rows: [Row] = []
        rows.append(try await WebBenchmarks.row(
            name, options: options, load: load, headers: headers, subject: ports[0], baseline: ports[1],
            baselineText: "the same page without the session middleware (same Cookie header)", target: 0.9,
            note: "AuthHubSessionMiddleware, the route requiring the identity; the session in an in-memory store, its access token valid for 24 h",
            extraCheck: noRenewal))
        if options.wants(name + ".layers.web-vs-hub") {
            rows.append(try await WebBenchmarks.row(
                name + ".layers.web-vs-hub", options: options, load: load, headers: headers, subject: ports[0], baseline: ports[2],
                baselineText: "the page behind a middleware that only awaits hub.session(provider:account:minTTL: 60) of the same session",
                target: nil, note: "what the web layer (cookie, identity, CSRF token, sliding cookie) adds to the hub's session lookup",
                extraCheck: noRenewal))
        }
        if options.wants(name + ".layers.hub-vs-open") {
            rows.append(try await WebBenchmarks.row(
                name + ".layers.hub-vs-open", options: options, load: load, headers: headers, subject: ports[2], baseline: ports[1],
                baselineText: "the open page (same Cookie header)", target: nil,
                note: "what a middleware awaiting the hub's cached session costs a Hummingbird page", extraCheck: noRenewal))
        }
        return rows
    }
}

/// The session's CSRF token as the identity carries it must be the one a state change is checked
/// against (`isValidStateChange`): the token is made per request, the check runs on sign-out.
func checkCSRFToken(web: AuthHubWeb, port: Int, cookieName: String, cookie: String) async throws {
    guard let url = URL(string: "http://127.0.0.1:\(port)/api/csrf") else { throw BenchFailure("bad URL") }
    let reply = try await URLSessionTransport(defaultTimeout: .seconds(10), followRedirects: false)
        .send(.get, url, headerFields: [.cookie: "\(cookieName)=\(cookie)"])
    let token = String(decoding: reply.body, as: UTF8.self)
    guard reply.status == 200, !token.isEmpty else { throw BenchFailure("the session's CSRF token could not be read (HTTP \(reply.status))") }
    let head = HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/auth/logout",
                           headerFields: [.origin: web.configuration.origin, WebRequest.csrfHeader: token])
    guard try await web.isValidStateChange(WebRequest(head: head), sessionCookie: cookie) else {
        throw BenchFailure("the identity's CSRF token does not pass the state-change check")
    }
}

/// A middleware that asks the hub for one session on every request and does nothing else.
struct HubSessionRouterMiddleware<Context: RequestContext>: RouterMiddleware {
    let hub: AuthHub
    let account: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        _ = try await hub.session(provider: "auth0", account: account, minTTL: 60)
        return try await next(request, context)
    }
}

/// What a Hummingbird app verifying JWTs with jwt-kit writes: the `Authorization: Bearer` token
/// verified by a `JWTKeyCollection` into the app's claims type, 401 otherwise.
struct JWTKitBearerMiddleware: RouterMiddleware {
    typealias Context = BasicAuthRequestContext<PeerAccessClaims>
    let keys: JWTKeyCollection

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let bearer = request.headers.bearer else { throw HTTPError(.unauthorized) }
        var context = context
        do {
            context.identity = try await keys.verify(bearer.token, as: PeerAccessClaims.self)
        } catch {
            throw HTTPError(.unauthorized)
        }
        return try await next(request, context)
    }
}
