import AuthHub
import AuthHubTesting
import AuthHubWebExample
import AuthHubWebTestSupport
import Foundation
import Hummingbird
import Testing

/// A real browser through the Hummingbird example web app: `.ci/browser` installs Chromium and its
/// driver (Debian's `chromium`, `chromium-driver`) and Selenium (PyPI) and sets
/// `AUTHHUB_BROWSER_PYTHON`; this test starts the emulator and the example app on loopback and runs
/// `Tests/Browser/browser_sign_in.py`, which signs in through the emulator's login page (a wrong
/// password first), checks the profile and the JSON route, and signs out. Screenshots of every step
/// go to `AUTHHUB_BROWSER_ARTIFACTS/hummingbird` (CI keeps them when the test fails). Skipped by a
/// plain `swift test`. The Vapor example has the same test (AuthHubVaporTests).
@Suite(.enabled(if: BrowserScript.isEnabled, "set by .ci/browser (Chromium, chromium-driver and Selenium)"), .serialized)
struct BrowserSignInTests {
    @Test func signInWithAuth0InAHeadlessChromiumThroughTheHummingbirdExample() async throws {
        let (emulator, hub, base) = try await BrowserScript.start()
        defer { Task { await emulator.stop() } }
        let app = Application(router: try await WebExampleApp.router(hub: hub, publicBaseURL: base, apiAudience: nil),
                              configuration: .init(address: .hostname("127.0.0.1", port: base.port ?? 0)))
        let server = Task { try await app.runService() }
        defer { server.cancel() }
        let (status, text) = try BrowserScript.run(base: base, label: "hummingbird")
        #expect(status == 0, "\(text)")
        #expect(text.contains("browser: all steps passed"), "\(text)")
    }

    /// AuthHub-held factors in a real browser (`Tests/Browser/browser_held_factors.py`): a passkey
    /// added on the account page with Chromium's virtual authenticator (DevTools'
    /// `WebAuthn.addVirtualAuthenticator`) and then used for the second step; recovery codes created,
    /// one used, the same one refused.
    @Test func heldFactorsInAHeadlessChromiumThroughTheHummingbirdExample() async throws {
        let (emulator, hub, base) = try await BrowserScript.startHeld()
        defer { Task { await emulator.stop() } }
        // A short step-up window, so the script sees a sensitive action go through re-authentication.
        try await serve(hub, base: base, stepUp: BrowserScript.stepUpSeconds, label: "hummingbird-held", script: "browser_held_factors.py")
    }

    /// The web core's sign-in pages for providers without a redirect (`Tests/Browser/browser_password_providers.py`):
    /// Firebase (its own TOTP second factor, password and name changed, the account deleted),
    /// Openfort (AuthHub-held factors, a step-up through the form) and Turnkey (its passkeys).
    @Test func passwordProvidersThroughTheSignInFormInAHeadlessChromium() async throws {
        let (environment, base) = try await BrowserScript.startPassword()
        defer { Task { await environment.tearDown() } }
        try await serve(environment.hub, base: base, stepUp: .seconds(BrowserScript.formStepUpSeconds), label: "hummingbird-password",
                        script: "browser_password_providers.py", email: PasswordWebEnvironment.email,
                        variables: try await BrowserScript.passwordScriptVariables(environment))
    }

    /// Runs the example app on `base` (up before the browser comes: the browser maps `localhost` to
    /// 127.0.0.1) and the script against it.
    func serve(_ hub: AuthHub, base: URL, stepUp: Duration, label: String, script: String, email: String = BrowserScript.email,
               variables: [String: String] = [:]) async throws {
        let app = Application(router: try await WebExampleApp.router(hub: hub, publicBaseURL: base, apiAudience: nil, accountStepUpMaxAge: stepUp),
                              configuration: .init(address: .hostname("127.0.0.1", port: base.port ?? 0)))
        let server = Task { try await app.runService() }
        defer { server.cancel() }
        let probe = URLSessionTransport(defaultTimeout: .seconds(2))
        for _ in 0..<100 {
            if let reply = try? await probe.send(.get, URL(string: "http://127.0.0.1:\(base.port ?? 0)/")!), reply.status == 200 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        let (status, text) = try BrowserScript.run(base: base, label: label, script: script, email: email, variables: variables)
        #expect(status == 0, "\(text)")
        #expect(text.contains("browser: all steps passed"), "\(text)")
    }
}
