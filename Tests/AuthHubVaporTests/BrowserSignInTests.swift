import AuthHub
import AuthHubTesting
import AuthHubVapor
import AuthHubVaporExample
import AuthHubWebTestSupport
import Foundation
import Testing
import Vapor

/// A real browser through the Vapor example web app (Examples/VaporApp): the same script, steps
/// and pages as the Hummingbird example's test — a headless Chromium signs in through the
/// emulator's login page (a wrong password first), checks the profile and the JSON route, and signs
/// out. Skipped by a plain `swift test`; `.ci/browser` runs it.
@Suite(.enabled(if: BrowserScript.isEnabled, "set by .ci/browser (Chromium, chromium-driver and Selenium)"))
struct BrowserSignInTests {
    @Test func signInWithAuth0InAHeadlessChromiumThroughTheVaporExample() async throws {
        let (emulator, hub, base) = try await BrowserScript.start()
        defer { Task { await emulator.stop() } }
        let app = try await Application.make(.testing)
        app.logger.logLevel = .error
        do {
            try app.useAuthHub(hub, web: WebSignInConfiguration(publicBaseURL: base))
            try await VaporExampleApp.configure(app, apiAudience: nil)
            try await app.server.start(address: .hostname("127.0.0.1", port: base.port ?? 0))
            let (status, text) = try BrowserScript.run(base: base, label: "vapor")
            #expect(status == 0, "\(text)")
            #expect(text.contains("browser: all steps passed"), "\(text)")
        } catch {
            Issue.record(error)
        }
        await app.server.shutdown()
        try await app.asyncShutdown()
    }
}
