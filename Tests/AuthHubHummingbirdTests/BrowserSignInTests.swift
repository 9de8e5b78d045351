import AuthHub
import AuthHubEmulator
import AuthHubProviders
import AuthHubTesting
import AuthHubWebExample
import Foundation
import Hummingbird
import Testing

/// A real browser through the example web app: `.ci/browser` installs Chromium and its driver
/// (Debian's `chromium`, `chromium-driver`) and Selenium (PyPI) and sets `AUTHHUB_BROWSER_PYTHON`;
/// this test starts the emulator and the example app on loopback and runs `Tests/Browser/browser_sign_in.py`,
/// which signs in through the emulator's login page (a wrong password first), checks the profile and
/// the JSON route, and signs out. Screenshots of every step go to `AUTHHUB_BROWSER_ARTIFACTS`
/// (CI keeps them when the test fails). Skipped by a plain `swift test`.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["AUTHHUB_BROWSER_PYTHON"] != nil,
                "set by .ci/browser (Chromium, chromium-driver and Selenium)"))
struct BrowserSignInTests {
    @Test func signInWithAuth0InAHeadlessChromium() async throws {
        let emulator = try await Emulator.start()
        defer { Task { await emulator.stop() } }
        let email = "browser@example.com", password = "correct horse battery staple"
        let seeded = try await URLSessionTransport(defaultTimeout: .seconds(10)).send(
            .post, emulator.url("/auth0/__emulator/users"), headerFields: [.contentType: "application/json"],
            body: Data(#"{"email":"\#(email)","password":"\#(password)"}"#.utf8))
        #expect(seeded.status == 201)
        let config = """
        {"defaultEnvironment": "dev", "environments": {"dev": {"defaultProvider": "auth0", "sessionStore": {"type": "memory"},
          "providers": [{"id": "auth0", "type": "auth0", "domain": "\(emulator.url("/auth0").absoluteString)", "clientId": "authhub-browser"}]}}}
        """
        let environment = try ConfigLoader(registry: .builtIn, environmentVariables: [:]).load(data: Data(config.utf8))
        let hub = try AuthHub(environment: environment, registry: .builtIn,
                              context: ProviderContext(transport: URLSessionTransport(defaultTimeout: .seconds(10))))
        let port = try ScriptedUpstream.freeLoopbackPort()
        let base = try #require(URL(string: "http://127.0.0.1:\(port)"))
        let app = Application(router: try await WebExampleApp.router(hub: hub, publicBaseURL: base, apiAudience: nil),
                              configuration: .init(address: .hostname("127.0.0.1", port: port)))
        let server = Task { try await app.runService() }
        defer { server.cancel() }

        let environmentVariables = ProcessInfo.processInfo.environment
        let python = try #require(environmentVariables["AUTHHUB_BROWSER_PYTHON"])
        let artifacts = environmentVariables["AUTHHUB_BROWSER_ARTIFACTS"] ?? NSTemporaryDirectory() + "authhub-browser"
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Browser/browser_sign_in.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script, base.absoluteString, email, password, artifacts]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: PipeReader.readAll(output.fileHandleForReading), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("browser: all steps passed"), "\(text)")
    }
}
