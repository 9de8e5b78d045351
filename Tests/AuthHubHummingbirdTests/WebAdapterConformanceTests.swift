import AuthHub
import AuthHubHummingbird
import AuthHubTesting
import AuthHubWebTestSupport
import Foundation
import Hummingbird
import HummingbirdAuth
import Logging
import NIOCore
import Testing

/// AuthHubTesting's web adapter conformance suite against the Hummingbird adapter: the suite's app
/// (``WebConformanceApp``) built with `AuthHubHummingbird`, served on a loopback port, driven over
/// HTTP through every outcome.
/// One check at a time (`.serialized`): each starts an emulator and an app server, and 17 at once
/// starved the rest of a full `swift test` run (other tests timed out waiting for their replies).
@Suite(.serialized) struct HummingbirdWebConformanceTests {
    /// Serves the suite's app with the Hummingbird adapter on 127.0.0.1, an ephemeral port.
    @Sendable static func serve(_ parts: WebConformanceApp) async throws -> RunningWebApp {
        let router = Router(context: AuthHubRequestContext.self)
        router.add(middleware: AuthHubSecurityHeadersMiddleware())
        router.add(middleware: parts.web.sessionMiddleware())
        router.addRoutes(parts.web.routes(), atPath: RouterPath(parts.web.configuration.routePrefix))
        router.addRoutes(parts.web.accountRoutes(), atPath: RouterPath(parts.web.configuration.accountPath))
        router.get("page") { _, _ in "hello" }
        router.get("framed") { _, _ in Response(status: .ok, headers: [HTTPField.Name("X-Frame-Options")!: "SAMEORIGIN"]) }
        router.get("fail") { request, _ -> Response in
            throw parts.web.httpError(parts.failure(code: request.uri.queryParameters["code"].map(String.init)))
        }
        let guarded = router.group().add(middleware: IsAuthenticatedMiddleware())
        guarded.get("me") { _, context in WebConformanceApp.name(of: try context.requireIdentity()) }
        guarded.get("csrf") { _, context in try context.requireIdentity().csrfToken ?? "" }
        guarded.post("refresh") { request, context -> Response in
            do {
                return Response(try await parts.refresh(identity: try context.requireIdentity()) {
                    try await parts.web.isValidStateChange(request, sessionCookie: $0)
                })
            } catch let error as AuthError {
                throw parts.web.httpError(error)
            }
        }
        router.group("api").add(middleware: AuthHubBearerMiddleware(parts.bearer)).add(middleware: IsAuthenticatedMiddleware())
            .get("me") { _, context in
                let identity = try context.requireIdentity()
                return "\(identity.provider) \(identity.subject ?? "")"
            }
        router.group("api").add(middleware: AuthHubBearerMiddleware(parts.scopedBearer)).add(middleware: IsAuthenticatedMiddleware())
            .get("admin") { _, _ in "admin" }
        let mixed = router.group("mixed").add(middleware: AuthHubBearerMiddleware(parts.bearerOrSession)).add(middleware: IsAuthenticatedMiddleware())
        mixed.get("me") { _, context in WebConformanceApp.name(of: try context.requireIdentity()) }
        mixed.post("transfer") { _, _ in "done" }
        return try await Self.run(router)
    }

    /// Runs `router` on 127.0.0.1, an ephemeral port, until the returned app is stopped.
    static func run(_ router: Router<AuthHubRequestContext>) async throws -> RunningWebApp {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) },
                              logger: Logger(label: "conformance", factory: { _ in SwiftLogNoOpLogHandler() }))
        let task = Task { try await app.runService(gracefulShutdownSignals: []) }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0, let url = URL(string: "http://127.0.0.1:\(port)") else {
            task.cancel()
            throw AuthError(.unknown, message: "the Hummingbird app did not start")
        }
        return RunningWebApp(baseURL: url) {
            task.cancel()
            _ = await task.result
        }
    }

    @Test(arguments: WebAdapterConformance.checkNames)
    func conformance(check: String) async throws {
        let failures = await WebAdapterConformance(makeEnvironment: EmulatorWebEnvironment.make, serve: Self.serve).run(only: [check])
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }
}
