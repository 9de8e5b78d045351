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
@Suite(.enabled(if: BrowserScript.isEnabled, "set by .ci/browser (Chromium, chromium-driver and Selenium)"))
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
}
