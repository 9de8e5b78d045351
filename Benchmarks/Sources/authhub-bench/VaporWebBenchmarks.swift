import AuthHub
import AuthHubTesting
import AuthHubVapor
import Foundation
import JWT
import Vapor

/// The Vapor rows of ``WebBenchmarks``: one `Application` per side, each on its own loopback port.
enum VaporWebBenchmarks {
    /// An app on 127.0.0.1:`port` with Vapor's default middleware but its request logging (one
    /// stderr line per request at `info`; a production app logs at `notice`): `ErrorMiddleware` only,
    /// on both sides of every row; `routes` adds the route(s).
    static func start(port: Int, _ routes: (Application) async throws -> Void) async throws -> Application {
        let app = try await Application.make(Environment(name: "bench", arguments: ["authhub-bench"]))
        do {
            app.logger.logLevel = .warning
            app.middleware = Middlewares()
            app.middleware.use(ErrorMiddleware.default(environment: app.environment))
            try await routes(app)
            app.http.server.configuration.hostname = "127.0.0.1"
            app.http.server.configuration.port = port
            try await app.asyncBoot()
            try await app.server.start(address: .hostname("127.0.0.1", port: port))
            return app
        } catch {
            try? await app.asyncShutdown()
            throw error
        }
    }

    static func stop(_ apps: [Application]) async {
        for app in apps {
            await app.server.shutdown()
            try? await app.asyncShutdown()
        }
    }

    static func bearer(_ options: BenchOptions, fixture: BearerFixture, load: WrkLoad) async throws -> [Row] {
        let names = ["web.vapor.bearer.cached", "web.vapor.bearer.uncached"]
        guard names.contains(where: options.wants) else { return [] }
        let ports = try (0..<3).map { _ in try ScriptedUpstream.freeLoopbackPort() }
        var apps: [Application] = []
        do {
            // AuthHub: the bearer authenticator and the guard in front of the route, as the adapter's
            // documentation has it.
            for (index, cached) in [true, false].enumerated() {
                apps.append(try await start(port: ports[index]) { app in
                    app.grouped(AuthHubBearerAuthenticator(fixture.authenticator(cached: cached)), AuthHubGuardMiddleware())
                        .get("api", "page") { _ in "ok" }
                })
            }
            // vapor/jwt: the issuer's JWKS in `app.jwt.keys`, the route verifying the bearer token itself.
            apps.append(try await start(port: ports[2]) { app in
                try await app.jwt.keys.add(jwksJSON: fixture.jwks)
                app.get("api", "page") { request async throws -> String in
                    _ = try await request.jwt.verify(as: PeerAccessClaims.self)
                    return "ok"
                }
            })
            var rows: [Row] = []
            let baseline = "vapor/jwt 5: a route calling req.jwt.verify(as:) (same token, same checks)"
            for (index, name) in names.enumerated() where options.wants(name) {
                rows.append(try await WebBenchmarks.row(name, options: options, load: load, headers: fixture.headers, subject: ports[index],
                                                        baseline: ports[2], baselineText: baseline, target: 1.0,
                                                        note: index == 0 ? "AuthHub's verified-token cache on" : "AuthHub's verified-token cache off (verifiedTokenCapacity: 0)"))
            }
            await stop(apps)
            return rows
        } catch {
            await stop(apps)
            throw error
        }
    }

    static func session(_ options: BenchOptions, sessions: SessionFixture, load: WrkLoad) async throws -> [Row] {
        let name = "web.vapor.session"
        guard options.wants(name) else { return [] }
        let ports = try (0..<6).map { _ in try ScriptedUpstream.freeLoopbackPort() }
        let transport = CountingTransport(inner: URLSessionTransport(defaultTimeout: .seconds(10)))
        let hub = try sessions.hub(transport: transport)
        var apps: [Application] = []
        do {
            var web: AuthHubWeb?
            apps.append(try await start(port: ports[0]) { app in
                guard let installed = try app.useAuthHub(hub, web: try SessionFixture.configuration(port: ports[0])) else {
                    throw BenchFailure("no web integration")
                }
                web = installed
                try app.register(collection: AuthHubRoutes(installed))
                // As the Hummingbird row's route calls `context.requireIdentity()`: the route asks
                // `req.auth` for the identity (Vapor's `req.auth.require`), 401 when there is none.
                app.grouped(AuthHubSessionAuthenticator(installed)).get("api", "page") { request -> String in
                    _ = try request.auth.require(AuthHubIdentity.self)
                    return "ok"
                }
                app.grouped(AuthHubSessionAuthenticator(installed), AuthHubGuardMiddleware()).get("api", "guarded") { _ in "ok" }
            })
            apps.append(try await start(port: ports[1]) { app in
                app.get("api", "page") { _ in "ok" }
            })
            guard let web else { throw BenchFailure("no web integration") }
            let cookieName = web.configuration.sessionCookieName
            let cookie = try await sessions.signIn(appPort: ports[0], cookieName: cookieName)
            guard let account = web.account(ofSessionCookie: cookie) else { throw BenchFailure("the session cookie names no account") }
            // The hub alone: an AsyncMiddleware asking the hub for the same session (what the
            // authenticator does beneath the cookie, the identity and the sliding cookie).
            apps.append(try await start(port: ports[2]) { app in
                app.grouped(HubSessionMiddleware(hub: hub, account: account)).get("api", "page") { _ in "ok" }
            })
            // What a Vapor app writes today for a cookie session: Vapor's SessionsMiddleware (memory
            // driver) restoring a user with a SessionAuthenticator, guarded by the user's
            // guardMiddleware; the session made by a sign-in route of the app's own.
            apps.append(try await start(port: ports[3]) { app in
                app.sessions.use(.memory)
                let sessions = app.grouped(app.sessions.middleware, VaporSessionUserAuthenticator())
                sessions.get("signin") { request -> String in
                    // Logged in on req.auth: the SessionAuthenticator keeps it in the session after the route.
                    request.auth.login(VaporSessionUser(id: "user-1"))
                    return "ok"
                }
                sessions.grouped(VaporSessionUser.guardMiddleware()).get("api", "page") { _ in "ok" }
            })
            let vaporCookie = try await VaporSessionUser.signIn(port: ports[3])
            // Vapor's part alone: an event-loop middleware logging a fixed identity in on `req.auth`
            // (what the issue asks the authenticator to do), and the guard — no cookie read, no
            // session: the floor under any session authenticator that uses `req.auth`.
            guard let fixed = web.resolveCachedSession(cookie: cookie)?.identity else { throw BenchFailure("the session resolves to no identity") }
            apps.append(try await start(port: ports[4]) { app in
                app.grouped(FixedIdentityMiddleware(identity: fixed)).get("api", "page") { request -> String in
                    _ = try request.auth.require(AuthHubIdentity.self)
                    return "ok"
                }
            })
            // The open page at the guarded route's path, for the guard-middleware row.
            apps.append(try await start(port: ports[5]) { app in
                app.get("api", "guarded") { _ in "ok" }
            })
            transport.reset()
            let headers = [("Cookie", "\(cookieName)=\(cookie)")]
            let noRenewal = { transport.total == 0 ? nil : "\(transport.total) requests to the provider during the row (a renewal?)" }
            var rows: [Row] = []
            rows.append(try await WebBenchmarks.row(
                name, options: options, load: load, headers: headers, subject: ports[0], baseline: ports[1],
                baselineText: "the same page without the session authenticator (same Cookie header)", target: 0.9,
                note: "AuthHubSessionAuthenticator, the route calling req.auth.require(AuthHubIdentity.self); the session in an in-memory store, its access token valid for 24 h",
                extraCheck: noRenewal))
            if options.wants(name + ".layers.guard-middleware") {
                rows.append(try await WebBenchmarks.row(
                    name + ".layers.guard-middleware", options: options, load: load, headers: headers, subject: ports[0], baseline: ports[5],
                    baselineText: "the open page (same Cookie header)", target: nil,
                    note: "the same session page guarded by AuthHubGuardMiddleware instead of the route's req.auth.require",
                    path: "/api/guarded", extraCheck: noRenewal))
            }
            if options.wants(name + ".layers.req-auth-vs-open") {
                rows.append(try await WebBenchmarks.row(
                    name + ".layers.req-auth-vs-open", options: options, load: load, headers: headers, subject: ports[4], baseline: ports[1],
                    baselineText: "the open page (same Cookie header)", target: nil,
                    note: "what Vapor's req.auth costs a page: a middleware logging a fixed AuthHubIdentity in on req.auth, the route's req.auth.require (no cookie, no session)"))
            }
            if options.wants(name + ".layers.web-vs-req-auth") {
                rows.append(try await WebBenchmarks.row(
                    name + ".layers.web-vs-req-auth", options: options, load: load, headers: headers, subject: ports[0], baseline: ports[4],
                    baselineText: "the page behind a fixed identity on req.auth, the route's req.auth.require (same Cookie header)", target: nil,
                    note: "what AuthHub's session lookup adds above Vapor's req.auth and the guard", extraCheck: noRenewal))
            }
            if options.wants(name + ".layers.web-vs-hub") {
                rows.append(try await WebBenchmarks.row(
                    name + ".layers.web-vs-hub", options: options, load: load, headers: headers, subject: ports[0], baseline: ports[2],
                    baselineText: "the page behind an AsyncMiddleware that only awaits hub.session(provider:account:minTTL: 60) of the same session",
                    target: nil, note: "what the web layer (cookie, identity, CSRF token, sliding cookie, guard) adds to the hub's session lookup",
                    extraCheck: noRenewal))
            }
            if options.wants(name + ".layers.hub-vs-open") {
                rows.append(try await WebBenchmarks.row(
                    name + ".layers.hub-vs-open", options: options, load: load, headers: headers, subject: ports[2], baseline: ports[1],
                    baselineText: "the open page (same Cookie header)", target: nil,
                    note: "what an AsyncMiddleware awaiting the hub's cached session costs a Vapor page", extraCheck: noRenewal))
            }
            let vaporHeaders = [("Cookie", "vapor-session=\(vaporCookie)")]
            if options.wants(name + ".layers.vapor-sessions-vs-open") {
                rows.append(try await WebBenchmarks.row(
                    name + ".layers.vapor-sessions-vs-open", options: options, load: load, headers: vaporHeaders, subject: ports[3], baseline: ports[1],
                    baselineText: "the open page (same Cookie header)", target: nil,
                    note: "what Vapor's own cookie session costs a page: SessionsMiddleware (memory driver), a SessionAuthenticator logging the user in on req.auth, the user's guardMiddleware"))
            }
            if options.wants(name + ".layers.authhub-vs-vapor-sessions") {
                rows.append(try await WebBenchmarks.row(
                    name + ".layers.authhub-vs-vapor-sessions", options: options, load: load, headers: headers, subject: ports[0], baseline: ports[3],
                    baselineText: "the page behind Vapor's own cookie session (its own Cookie header)", target: nil,
                    note: "AuthHub's session page against what a Vapor app writes today for a cookie session",
                    baselineHeaders: vaporHeaders, extraCheck: noRenewal))
            }
            await stop(apps)
            return rows
        } catch {
            await stop(apps)
            throw error
        }
    }
}

/// The user of the Vapor-sessions baseline: restored from Vapor's session by id.
struct VaporSessionUser: SessionAuthenticatable {
    let id: String
    var sessionID: String { id }

    /// Signs in through the baseline app's own route; returns the `vapor-session` cookie's value.
    static func signIn(port: Int) async throws -> String {
        guard let url = URL(string: "http://127.0.0.1:\(port)/signin") else { throw BenchFailure("bad URL") }
        let reply = try await URLSessionTransport(defaultTimeout: .seconds(10), followRedirects: false).send(.get, url)
        guard reply.status == 200, let cookie = reply.headerFields[values: .setCookie].first(where: { $0.hasPrefix("vapor-session=") }),
              let value = cookie.dropFirst("vapor-session=".count).split(separator: ";").first, !value.isEmpty else {
            throw BenchFailure("the Vapor-sessions app gave no session cookie (HTTP \(reply.status))")
        }
        return String(value)
    }
}

/// Restores a ``VaporSessionUser`` from Vapor's session (no waiting: a plain, event-loop
/// authenticator, the cheapest form Vapor offers).
struct VaporSessionUserAuthenticator: SessionAuthenticator {
    typealias User = VaporSessionUser

    func authenticate(sessionID: String, for request: Request) -> EventLoopFuture<Void> {
        request.auth.login(VaporSessionUser(id: sessionID))
        return request.eventLoop.makeSucceededVoidFuture()
    }
}

/// Logs one fixed identity in on `req.auth` (an event-loop middleware, as AuthHub's authenticator).
struct FixedIdentityMiddleware: Middleware {
    let identity: AuthHubIdentity

    func respond(to request: Request, chainingTo next: any Responder) -> EventLoopFuture<Response> {
        request.auth.login(identity)
        return next.respond(to: request)
    }
}

/// An AsyncMiddleware that asks the hub for one session on every request and does nothing else.
struct HubSessionMiddleware: AsyncMiddleware {
    let hub: AuthHub
    let account: String

    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        _ = try await hub.session(provider: "auth0", account: account, minTTL: 60)
        return try await next.respond(to: request)
    }
}
