import AuthHub
import AuthHubTesting
import AuthHubVapor
import AuthHubEmulator
import AuthHubVaporExample
import AuthHubWebTestSupport
import Foundation
import Testing
import Vapor

/// A real browser through the Vapor example web app (Examples/VaporApp): the same script, steps
/// and pages as the Hummingbird example's test — a headless Chromium signs in through the
/// emulator's login page (a wrong password first), checks the profile and the JSON route, and signs
/// out. Skipped by a plain `swift test`; `.ci/browser` runs it.
@Suite(.enabled(if: BrowserScript.isEnabled, "set by .ci/browser (Chromium, chromium-driver and Selenium)"), .serialized)
struct BrowserSignInTests {
    @Test func signInWithAuth0InAHeadlessChromiumThroughTheVaporExample() async throws {
        try await run(try await BrowserScript.start(), label: "vapor", script: "browser_sign_in.py")
    }

    /// AuthHub-held factors through the Vapor example (`browser_held_factors.py`, as for Hummingbird):
    /// the second-step route and the account pages' passkey script on Vapor.
    @Test func heldFactorsInAHeadlessChromiumThroughTheVaporExample() async throws {
        try await run(try await BrowserScript.startHeld(), label: "vapor-held", script: "browser_held_factors.py",
                      stepUp: BrowserScript.stepUpSeconds)
    }

    /// The web core's sign-in form through the Vapor example (`browser_password_providers.py`, as for
    /// Hummingbird): Firebase's own second factor and Openfort with AuthHub-held factors.
    @Test func passwordProvidersThroughTheSignInFormInAHeadlessChromium() async throws {
        let (environment, base) = try await BrowserScript.startPassword()
        try await run((environment.emulator, environment.hub, base), label: "vapor-password", script: "browser_password_providers.py",
                      stepUp: .seconds(BrowserScript.formStepUpSeconds), email: PasswordWebEnvironment.email,
                      variables: try await BrowserScript.passwordScriptVariables(environment))
    }

    func run(_ started: (emulator: RunningEmulator, hub: AuthHub, base: URL), label: String, script: String,
             stepUp: Duration = .seconds(600), email: String = BrowserScript.email, variables: [String: String] = [:]) async throws {
        let (emulator, hub, base) = started
        defer { Task { await emulator.stop() } }
        let app = try await Application.make(.testing)
        app.logger.logLevel = .error
        do {
            var configuration = WebSignInConfiguration(publicBaseURL: base)
            configuration.accountStepUpMaxAge = stepUp
            try app.useAuthHub(hub, web: configuration)
            try await VaporExampleApp.configure(app, apiAudience: nil)
            try await app.server.start(address: .hostname("127.0.0.1", port: base.port ?? 0))
            let (status, text) = try BrowserScript.run(base: base, label: label, script: script, email: email, variables: variables)
            #expect(status == 0, "\(text)")
            #expect(text.contains("browser: all steps passed"), "\(text)")
        } catch {
            Issue.record(error)
        }
        await app.server.shutdown()
        try await app.asyncShutdown()
    }
}
