import AuthHub
import AuthHubAuth0
import AuthHubEmulator
import AuthHubHummingbird
import AuthHubOIDC
import AuthHubTesting
import AuthHubWebCore
import Foundation
import Hummingbird
import HummingbirdAuth
import Testing

private let python = ProcessInfo.processInfo.environment["AUTHHUB_INTEROP_PYTHON"]

/// DPoP against a third-party client: requests-oauth2client (PyPI, installed by `.ci/interop`, which
/// sets `AUTHHUB_INTEROP_PYTHON`) makes its own P-256 key, proofs and nonce retries. It gets
/// DPoP-bound tokens from the emulator's Auth0 token endpoint (in nonce mode, so it answers the
/// tenant's `use_dpop_nonce` too) and calls a Hummingbird API behind AuthHub's bearer middleware,
/// which checks its proofs: accepted as made, refused for another URL or method, as a replay, or
/// as a Bearer token; a second route asks for a server nonce, which the client's retry answers.
/// The steps run in `Tests/Interop/rqo_dpop_client.py`. Skipped without the variable.
@Suite(.enabled(if: python != nil, "set by .ci/interop (requests-oauth2client from PyPI)"))
struct InteropRequestsOAuth2ClientDPoPTests {
    @Test func aThirdPartyDPoPClientAgainstTheEmulatorAndAuthHubsResourceServer() async throws {
        let f = try await DPoPEndToEndTests.Fixture.start()
        defer { Task { await f.emulator.stop() } }
        _ = await f.emulator.setAuth0DPoPNonceRequired(true, rotate: true)

        let bearer = try await BearerTokenAuthenticator(hub: f.hub, audience: DPoPEndToEndTests.api)
        let nonces = try DPoPNonceIssuer()
        let withNonces = try await BearerTokenAuthenticator(hub: f.hub, audience: DPoPEndToEndTests.api,
                                                             dpop: DPoPProofVerifier(nonces: nonces))
        let router = Router(context: AuthHubRequestContext.self)
        router.group("api").add(middleware: AuthHubBearerMiddleware(bearer)).add(middleware: IsAuthenticatedMiddleware())
            .get("me") { _, context in try context.requireIdentity().subject ?? "-" }
        router.group("nonce").add(middleware: AuthHubBearerMiddleware(withNonces)).add(middleware: IsAuthenticatedMiddleware())
            .get("me") { _, context in try context.requireIdentity().subject ?? "-" }
        let app = try await HummingbirdWebConformanceTests.run(router)
        defer { Task { await app.stop() } }

        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Interop/rqo_dpop_client.py").path
        var environment = ProcessInfo.processInfo.environment
        environment["RQO_PASSWORD"] = DPoPEndToEndTests.password
        let child = try ChildProcess(executable: URL(fileURLWithPath: try #require(python)),
                                     arguments: [script, f.emulator.url("/auth0/oauth/token").absoluteString, "authhub-dpop",
                                                 DPoPEndToEndTests.api, "dora@example.com",
                                                 app.baseURL.absoluteString + "/api/me", app.baseURL.absoluteString + "/nonce/me"],
                                     environment: environment)
        var lines: [String] = []
        while let line = await child.nextLine() { lines.append(line) }
        let status = await child.exitStatus()
        let output = lines.joined(separator: "\n")
        #expect(status == 0 && lines.last == "all steps passed", "\(output)\n\(child.standardError)")
        #expect(lines.filter { $0.hasPrefix("ok: ") }.count == 10, "\(output)")
        #expect(!output.contains(DPoPEndToEndTests.password) && !child.standardError.contains(DPoPEndToEndTests.password))
    }
}
