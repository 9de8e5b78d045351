import AuthHub
import AuthHubWebCore
import Foundation
import HTTPTypes

/// A behaviour suite for web adapters: it drives an app built with an adapter (AuthHub's Hummingbird
/// and Vapor adapters, a third one, or an app's own glue) over real HTTP through every outcome of
/// browser sign-in, sessions, sign-out, bearer tokens, errors and security headers — hostile
/// requests included — so that every adapter behaves as the web core says.
///
/// The caller supplies the identity provider (``WebConformanceEnvironment``, a fresh one per check)
/// and a way to serve a ``WebConformanceApp`` with the adapter on a loopback port
/// (``RunningWebApp``); each check builds the web integration with its own timeouts, serves it,
/// plays the browser and the attacker, and stops the app.
///
/// <!-- example: context makeEmulatorEnvironment: @escaping @Sendable () async throws -> WebConformanceEnvironment, serveWithMyAdapter: @escaping @Sendable (WebConformanceApp) async throws -> RunningWebApp -->
/// ```swift
/// let failures = await WebAdapterConformance(makeEnvironment: makeEmulatorEnvironment, serve: serveWithMyAdapter).run()
/// #expect(failures.isEmpty, "\(failures)")
/// ```
public struct WebAdapterConformance: Sendable {
    private let makeEnvironment: @Sendable () async throws -> WebConformanceEnvironment
    private let serve: @Sendable (WebConformanceApp) async throws -> RunningWebApp
    private let timeout: Duration

    /// - Parameters:
    ///   - timeout: the longest a check may take before it is reported as hung.
    ///   - makeEnvironment: a fresh identity provider and hub for one check.
    ///   - serve: serves the app with the adapter under test on a loopback port.
    public init(timeout: Duration = .seconds(90), makeEnvironment: @escaping @Sendable () async throws -> WebConformanceEnvironment,
                serve: @escaping @Sendable (WebConformanceApp) async throws -> RunningWebApp) {
        self.timeout = timeout
        self.makeEnvironment = makeEnvironment
        self.serve = serve
    }

    /// The names of the checks, in the order ``run(only:)`` runs them.
    public static var checkNames: [String] { checks.map(\.name) }

    /// Runs the checks (all, or those named in `only`), each against a fresh environment and app.
    /// - Returns: one `[check] message` per failed expectation; empty when the adapter conforms.
    public func run(only: Set<String>? = nil) async -> [String] {
        var failures: [String] = []
        for check in Self.checks where only?.contains(check.name) ?? true {
            let messages = await runOne(check)
            failures += messages.map { "[\(check.name)] \($0)" }
        }
        return failures
    }

    private func runOne(_ check: CheckSpec) async -> [String] {
        let environment: WebConformanceEnvironment
        do {
            environment = try await makeEnvironment()
        } catch {
            return ["makeEnvironment threw: \(error)"]
        }
        let running: RunningWebApp
        let context: WebConformanceCheck
        do {
            let configuration = WebSignInConfiguration(publicBaseURL: WebConformanceCheck.publicBaseURL, idleTimeout: check.idleTimeout,
                                                       absoluteTimeout: check.absoluteTimeout)
            let web = try AuthHubWeb(hub: environment.hub, configuration: configuration)
            let hub = environment.hub, audience = environment.apiAudience
            let app = WebConformanceApp(
                hub: hub, web: web,
                bearer: try await BearerTokenAuthenticator(hub: hub, audience: audience),
                scopedBearer: try await BearerTokenAuthenticator(hub: hub, audience: audience, requiredScopes: [WebConformanceApp.adminScope]),
                bearerOrSession: try await BearerTokenAuthenticator(hub: hub, audience: audience, acceptsSessionCookie: true))
            running = try await serve(app)
            context = WebConformanceCheck(environment: environment, app: app, client: WebConformanceClient(baseURL: running.baseURL))
        } catch {
            await environment.tearDown()
            return ["setting up threw: \(error)"]
        }
        let body = check.body
        let messages = await ConformanceRunner.run(timeout) {
            do {
                return try await body(context)
            } catch {
                return ["unexpected error: \(error)"]
            }
        } onTimeout: { [timeout] in
            ["did not finish within \(ConformanceRunner.render(timeout))"]
        }
        await running.stop()
        await environment.tearDown()
        return messages
    }

    struct CheckSpec: Sendable {
        var name: String
        var idleTimeout: Duration = .seconds(30 * 60)
        var absoluteTimeout: Duration = .seconds(2 * 3600)
        var body: @Sendable (WebConformanceCheck) async throws -> [String]
    }

    /// Long timeouts for the checks about renewal, not session timeouts.
    private static let week = Duration.seconds(7 * 86_400)

    static let checks: [CheckSpec] = [
        CheckSpec(name: "loginRedirectsWithPKCEStateAndNonceKeptOnTheServer", body: { try await $0.loginRedirect() }),
        CheckSpec(name: "signInSetsAnOpaqueSessionCookie", body: { try await $0.signInSetsAnOpaqueSessionCookie() }),
        CheckSpec(name: "signOutNeedsTheOriginAndTheCSRFToken", body: { try await $0.signOutNeedsTheOriginAndTheCSRFToken() }),
        CheckSpec(name: "signOutCanEndTheProvidersBrowserSession", body: { try await $0.signOutCanEndTheProvidersBrowserSession() }),
        CheckSpec(name: "callbacksThatMustBeRefused", body: { try await $0.callbacksThatMustBeRefused() }),
        CheckSpec(name: "anExpiredSignInIsRefused", body: { try await $0.anExpiredSignInIsRefused() }),
        CheckSpec(name: "openRedirectsAndUnknownProvidersAreRefused", body: { try await $0.openRedirectsAndUnknownProvidersAreRefused() }),
        CheckSpec(name: "tamperedCookiesAreNoSession", body: { try await $0.tamperedCookiesAreNoSession() }),
        CheckSpec(name: "idleAndAbsoluteTimeoutsEndTheSession", body: { try await $0.idleAndAbsoluteTimeoutsEndTheSession() }),
        CheckSpec(name: "expiredSessionsAreRenewedAndAnOutageKeepsThem", idleTimeout: week, absoluteTimeout: week * 4,
                  body: { try await $0.expiredSessionsAreRenewedAndAnOutageKeepsThem() }),
        CheckSpec(name: "aDeadRefreshTokenSignsTheBrowserOut", idleTimeout: week, absoluteTimeout: week * 4,
                  body: { try await $0.aDeadRefreshTokenSignsTheBrowserOut() }),
        CheckSpec(name: "signingInAgainReplacesTheBrowsersSession", body: { try await $0.signingInAgainReplacesTheBrowsersSession() }),
        CheckSpec(name: "routeErrorsAnswerTheDocumentedWay", idleTimeout: week, absoluteTimeout: week * 4,
                  body: { try await $0.routeErrorsAnswerTheDocumentedWay() }),
        CheckSpec(name: "bearerTokensGetEveryRFC6750Outcome", body: { try await $0.bearerTokensGetEveryRFC6750Outcome() }),
        CheckSpec(name: "backChannelLogoutEndsTheBrowserSession", body: { try await $0.backChannelLogoutEndsTheBrowserSession() }),
        CheckSpec(name: "dpopBoundTokensNeedTheirProof", body: { try await $0.dpopBoundTokensNeedTheirProof() }),
        CheckSpec(name: "bearerRoutesIgnoreTheSessionCookieUnlessOptedIn", body: { try await $0.bearerRoutesIgnoreTheSessionCookieUnlessOptedIn() }),
        CheckSpec(name: "securityHeadersOnEveryResponse", body: { try await $0.securityHeadersOnEveryResponse() }),
        CheckSpec(name: "hostileRequestsGetCleanRefusals", body: { try await $0.hostileRequestsGetCleanRefusals() }),
        CheckSpec(name: "accountPagesAndTheHeldSecondStep", body: { try await $0.accountPagesAndTheHeldSecondStep() }),
    ]
}
