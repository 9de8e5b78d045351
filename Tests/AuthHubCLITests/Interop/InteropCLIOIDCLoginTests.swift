import AuthHub
import Foundation
import Testing

private let issuer = ProcessInfo.processInfo.environment["AUTHHUB_INTEROP_OIDC_ISSUER"]

/// `authhub login --browser --no-open` with the generic `oidc` plugin against `oidc-provider-mock`
/// (PyPI, started by `.ci/interop`): discovery, PKCE, the loopback redirect, the code exchange and
/// the ID token checked against that server's JWKS — then `refresh` and `logout`. The test plays
/// the browser, submitting the mock's login form.
@Suite(.enabled(if: issuer != nil, "set by .ci/interop (oidc-provider-mock from PyPI)"))
struct InteropCLIOIDCLoginTests {
    @Test func browserLoginRefreshAndLogoutThroughTheCLI() async throws {
        let config = """
        {"defaultEnvironment": "dev", "environments": {"dev": {"defaultProvider": "oidc",
          "sessionStore": {"type": "file", "path": "sessions"},
          "providers": [{"id": "oidc", "type": "oidc", "issuer": "\(issuer ?? "")", "clientId": "authhub-cli-interop",
                         "clientSecret": "${OIDC_CLIENT_SECRET}", "scopes": ["openid", "email", "profile"]}]}}}
        """
        let directory = try AuthHubBinary.directory(withConfig: config)
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = ["OIDC_CLIENT_SECRET": "interop-secret"]

        let login = try RunningBinary(["login", "--browser", "--no-open", "--timeout", "60"], in: directory, environment: environment)
        try await login.wait { out, _ in out.contains("http") && out.contains("\n") }
        let url = try #require(login.stdout.split(separator: "\n").first.flatMap { URL(string: String($0)) })
        let query = Dictionary((URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map { ($0.name, $0.value ?? "") },
                               uniquingKeysWith: { _, b in b })
        #expect(query["code_challenge_method"] == "S256" && query["nonce"] != nil && query["state"] != nil)

        // The browser: the mock's login form posts the subject back to the authorization endpoint.
        // (Its own subject: another interop suite revokes alice's tokens while this one runs.)
        let browser = URLSessionTransport(defaultTimeout: .seconds(30), followRedirects: false)
        let submit = try await browser.send(.post, url, headerFields: [.contentType: "application/x-www-form-urlencoded"], body: Data("sub=carol%40example.com".utf8))
        #expect(submit.status == 302, "\(String(decoding: submit.body, as: UTF8.self))")
        let callback = try #require(submit.headerFields["Location"].flatMap(URL.init(string:)))
        #expect(callback.host == "127.0.0.1")
        _ = try await browser.send(.get, callback)
        #expect(await login.finish() == 0, "\(login.stderr)")
        #expect(login.stdout.contains("Signed in.") && login.stdout.contains("carol@example.com"), "\(login.stdout)")
        #expect(!login.stdout.contains("interop-secret") && !login.stderr.contains("interop-secret"))

        let session = try await AuthHubBinary.runDetached(["session", "--json"], in: directory, environment: environment)
        #expect(session.status == 0, "\(session.stderr)")
        let summary = try JSONValue.parse(Data(session.stdout.utf8))
        #expect(summary["provider"] == "oidc" && summary["user"] == "carol@example.com" && summary["hasIDToken"] == true)

        let refresh = try await AuthHubBinary.runDetached(["refresh", "--json"], in: directory, environment: environment)
        #expect(refresh.status == 0, "\(refresh.stderr)")
        #expect(try JSONValue.parse(Data(refresh.stdout.utf8))["version"] != summary["version"], "the renewed session was stored")

        let logout = try await AuthHubBinary.runDetached(["logout"], in: directory, environment: environment)
        #expect(logout.status == 0, "\(logout.stderr)")
    }
}
