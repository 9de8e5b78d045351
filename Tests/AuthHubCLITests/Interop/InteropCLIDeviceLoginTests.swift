import AuthHub
import AuthHubEmulator
import AuthHubTesting
import Foundation
import Testing

private let base = ProcessInfo.processInfo.environment["AUTHHUB_INTEROP_DOT_URL"]
private let password = ProcessInfo.processInfo.environment["AUTHHUB_INTEROP_DOT_PASSWORD"]

/// `authhub login --device` with the generic `oidc` plugin against django-oauth-toolkit (PyPI,
/// started by `.ci/interop` from `Tests/Interop/dot_device_provider.py`), a third-party
/// implementation of RFC 8628: the device authorization endpoint (given in providers.json, as its
/// discovery document does not name it), polling through `authorization_pending`, and a token
/// reply with no ID token, so the user comes from its userinfo endpoint. The test plays the user on
/// "another device": Django's login form, the user-code page and the accept/deny page, with their
/// CSRF tokens and session cookies.
@Suite(.enabled(if: base != nil && password != nil, "set by .ci/interop (django-oauth-toolkit from PyPI)"))
struct InteropCLIDeviceLoginTests {
    static func directory() throws -> URL {
        let base = base ?? ""
        let config = """
        {"defaultEnvironment": "dev", "environments": {"dev": {"defaultProvider": "dot",
          "sessionStore": {"type": "file", "path": "sessions"},
          "providers": [{"id": "dot", "type": "oidc", "issuer": "\(base)/o", "clientId": "authhub-device-interop",
                         "deviceAuthorizationEndpoint": "\(base)/o/device-authorization/",
                         "scopes": ["openid", "email", "profile"]}]}}}
        """
        return try AuthHubBinary.directory(withConfig: config)
    }

    /// The code and the complete verification link the CLI printed on standard error.
    static func prompt(_ stderr: String) throws -> (code: String, link: URL) {
        let code = try #require(DeviceLoginCLITests.userCode(in: stderr), "\(stderr)")
        let word = try #require(stderr.split(whereSeparator: \.isWhitespace).first { $0.hasPrefix("http") && $0.contains("user_code=") }, "\(stderr)")
        return (code, try #require(URL(string: word.trimmingCharacters(in: CharacterSet(charactersIn: ",.;)")))))
    }

    /// The user's side: signs in to Django, confirms the code on the user-code page, then presses
    /// Accept or Deny.
    static func decide(_ link: URL, code: String, accept: Bool) async throws {
        let browser = CookieBrowser()
        // Not signed in yet: the device page sends the browser to the login form.
        let (loginPage, loginURL) = try await browser.follow(.get, link)
        #expect(loginPage.status == 200 && loginURL.path.hasPrefix("/accounts/login"), "\(loginURL)")
        let next = try #require(URLComponents(url: loginURL, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "next" }?.value)
        #expect(next.contains("user_code=\(code)"))
        let csrf = try #require(browser.cookie("csrftoken", for: loginURL))

        // A wrong password keeps the user on the form.
        let (wrong, _) = try await browser.follow(.post, loginURL, form: [("csrfmiddlewaretoken", csrf), ("username", "dana"), ("password", "not-it"), ("next", next)])
        #expect(String(decoding: wrong.body, as: UTF8.self).contains("Wrong username or password"))

        let (codePage, codeURL) = try await browser.follow(.post, loginURL, form: [
            ("csrfmiddlewaretoken", try #require(browser.cookie("csrftoken", for: loginURL))), ("username", "dana"),
            ("password", password ?? ""), ("next", next),
        ])
        #expect(codePage.status == 200 && codeURL.path.hasPrefix("/o/device"), "\(codeURL)")
        #expect(String(decoding: codePage.body, as: UTF8.self).contains("value=\"\(code)\""), "the page is filled from verification_uri_complete")

        let token = try #require(browser.cookie("csrftoken", for: codeURL))
        let (consent, consentURL) = try await browser.follow(.post, codeURL, form: [("csrfmiddlewaretoken", token), ("user_code", code)])
        #expect(consent.status == 200 && consentURL.path.hasPrefix("/o/device-confirm/authhub-device-interop/"), "\(consentURL)")
        #expect(String(decoding: consent.body, as: UTF8.self).contains("AuthHub CLI (device interop)"))

        let decided = try await browser.send(.post, consentURL, form: [("csrfmiddlewaretoken", token), ("action", accept ? "accept" : "deny")])
        #expect(decided.status == 302 && decided.headerFields[.location]?.contains("device-grant-status") == true, "\(decided.status)")
    }

    @Test func approvedOnAnotherDeviceThenRefreshAndLogout() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let login = try RunningBinary(["login", "--device"], in: directory)
        try await login.wait { _, err in err.contains("Waiting for the approval") }
        let (code, link) = try Self.prompt(login.stderr)
        #expect(login.stderr.contains("█") || login.stderr.contains("▀"), "a QR code is drawn")

        // The CLI keeps polling (authorization_pending) while the user signs in.
        try await Task.sleep(for: .seconds(2))
        #expect(login.isRunning, "\(login.stderr)")
        try await Self.decide(link, code: code, accept: true)

        #expect(await login.finish() == 0, "\(login.stderr)")
        #expect(login.stdout.contains("Signed in.") && login.stdout.contains("dana@example.com"), "\(login.stdout)")

        let session = try await AuthHubBinary.runDetached(["session", "--json"], in: directory)
        #expect(session.status == 0, "\(session.stderr)")
        let summary = try JSONValue.parse(Data(session.stdout.utf8))
        // The user is userinfo's `sub` (Django's user id) with its claims.
        #expect(summary["provider"] == "dot" && summary["user"] == "1" && summary["email"] == "dana@example.com", "\(session.stdout)")
        #expect(summary["hasIDToken"] == false && summary["hasRefreshToken"] == true, "\(session.stdout)")

        let refresh = try await AuthHubBinary.runDetached(["refresh", "--json"], in: directory)
        #expect(refresh.status == 0, "\(refresh.stderr)")
        #expect(try JSONValue.parse(Data(refresh.stdout.utf8))["version"] != summary["version"], "the renewed session was stored")

        let logout = try await AuthHubBinary.runDetached(["logout"], in: directory)
        #expect(logout.status == 0, "\(logout.stderr)")
    }

    @Test func deniedOnAnotherDevice() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let login = try RunningBinary(["login", "--device", "--no-qr"], in: directory)
        try await login.wait { _, err in err.contains("Waiting for the approval") }
        let (code, link) = try Self.prompt(login.stderr)
        try await Self.decide(link, code: code, accept: false)
        #expect(await login.finish() != 0)
        let lastLine = login.stderr.split(separator: "\n").last.map(String.init) ?? ""
        #expect(lastLine.lowercased().contains("denied"), "\(login.stderr)")
        let session = try await AuthHubBinary.runDetached(["session", "--json"], in: directory)
        #expect(session.status != 0, "no session was stored: \(session.stdout)")
    }
}
