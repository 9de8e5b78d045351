import AuthHub
import AuthHubTesting
import AuthHubVapor
import AuthHubWebTestSupport
import Foundation
import Testing
import Vapor

/// AuthHubTesting's web adapter conformance suite against the Vapor adapter: the suite's app
/// (``WebConformanceApp``) built with `AuthHubVapor`, served by Vapor's HTTP server on a loopback
/// port, driven over HTTP through every outcome.
/// One check at a time (`.serialized`): each starts an emulator and an app server, and 17 at once
/// starved the rest of a full `swift test` run (other tests timed out waiting for their replies).
@Suite(.serialized) struct VaporWebConformanceTests {
    /// Builds the suite's app with the Vapor adapter (not started).
    static func application(_ parts: WebConformanceApp) async throws -> Application {
        let app = try await Application.make(.testing)
        app.logger.logLevel = .critical
        try app.useAuthHub(parts.web)
        // Security headers outermost, so that Vapor's error pages get them too.
        app.middleware = Middlewares()
        app.middleware.use(AuthHubSecurityHeadersMiddleware())
        app.middleware.use(ErrorMiddleware.default(environment: app.environment))
        app.middleware.use(AuthHubSessionAuthenticator(parts.web))
        try app.register(collection: AuthHubRoutes(parts.web))
        try app.register(collection: AuthHubAccountRoutes(parts.web))
        app.get("page") { _ in "hello" }
        app.get("framed") { _ -> Response in
            let response = Response(status: .ok)
            response.headers.replaceOrAdd(name: "X-Frame-Options", value: "SAMEORIGIN")
            return response
        }
        app.get("fail") { request -> Response in throw request.authHubError(parts.failure(code: request.query[String.self, at: "code"])) }
        let guarded = app.grouped(AuthHubGuardMiddleware())
        guarded.get("me") { request in WebConformanceApp.name(of: try request.auth.require(AuthHubIdentity.self)) }
        guarded.get("csrf") { request in try request.auth.require(AuthHubIdentity.self).csrfToken ?? "" }
        guarded.post("refresh") { request -> Response in
            do {
                return Response(try await parts.refresh(identity: try request.auth.require(AuthHubIdentity.self)) {
                    try await parts.web.isValidStateChange(request, sessionCookie: $0)
                })
            } catch let error as AuthError {
                throw request.authHubError(error)
            }
        }
        app.grouped(AuthHubBearerAuthenticator(parts.bearer), AuthHubGuardMiddleware()).get("api", "me") { request in
            let identity = try request.auth.require(AuthHubIdentity.self)
            return "\(identity.provider) \(identity.subject ?? "")"
        }
        app.grouped(AuthHubBearerAuthenticator(parts.scopedBearer), AuthHubGuardMiddleware()).get("api", "admin") { _ in "admin" }
        let mixed = app.grouped(AuthHubBearerAuthenticator(parts.bearerOrSession), AuthHubGuardMiddleware()).grouped("mixed")
        mixed.get("me") { request in WebConformanceApp.name(of: try request.auth.require(AuthHubIdentity.self)) }
        mixed.post("transfer") { _ in "done" }
        return app
    }

    /// Serves the suite's app with Vapor's HTTP server on 127.0.0.1, an ephemeral port.
    @Sendable static func serve(_ parts: WebConformanceApp) async throws -> RunningWebApp {
        let app = try await application(parts)
        do {
            try await app.server.start(address: .hostname("127.0.0.1", port: 0))
            guard let port = app.http.server.shared.localAddress?.port, let url = URL(string: "http://127.0.0.1:\(port)") else {
                throw AuthError(.unknown, message: "Vapor's server has no local port")
            }
            return RunningWebApp(baseURL: url) {
                await app.server.shutdown()
                try? await app.asyncShutdown()
            }
        } catch {
            try? await app.asyncShutdown()
            throw error
        }
    }

    @Test(arguments: WebAdapterConformance.checkNames)
    func conformance(check: String) async throws {
        let failures = await WebAdapterConformance(makeEnvironment: EmulatorWebEnvironment.make, serve: Self.serve).run(only: [check])
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }
}
