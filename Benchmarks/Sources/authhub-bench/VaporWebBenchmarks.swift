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
        let ports = try (0..<2).map { _ in try ScriptedUpstream.freeLoopbackPort() }
        let transport = CountingTransport(inner: URLSessionTransport(defaultTimeout: .seconds(10)))
        let hub = try sessions.hub(transport: transport)
        var apps: [Application] = []
        do {
            var cookieName = ""
            apps.append(try await start(port: ports[0]) { app in
                guard let web = try app.useAuthHub(hub, web: try SessionFixture.configuration(port: ports[0])) else {
                    throw BenchFailure("no web integration")
                }
                cookieName = web.configuration.sessionCookieName
                try app.register(collection: AuthHubRoutes(web))
                app.grouped(AuthHubSessionAuthenticator(web), AuthHubGuardMiddleware()).get("api", "page") { _ in "ok" }
            })
            apps.append(try await start(port: ports[1]) { app in
                app.get("api", "page") { _ in "ok" }
            })
            let cookie = try await sessions.signIn(appPort: ports[0], cookieName: cookieName)
            transport.reset()
            let row = try await WebBenchmarks.row(
                name, options: options, load: load, headers: [("Cookie", "\(cookieName)=\(cookie)")], subject: ports[0], baseline: ports[1],
                baselineText: "the same page without the session authenticator and guard (same Cookie header)", target: 0.9,
                note: "AuthHubSessionAuthenticator + AuthHubGuardMiddleware; the session in an in-memory store, its access token valid for 24 h",
                extraCheck: { transport.total == 0 ? nil : "\(transport.total) requests to the provider during the row (a renewal?)" })
            await stop(apps)
            return [row]
        } catch {
            await stop(apps)
            throw error
        }
    }
}
