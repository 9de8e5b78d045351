import AuthHub
import AuthHubEmulator
import AuthHubFactors
import AuthHubOIDC
import Foundation
import Testing
import HTTPTypes

/// `authhub login/session/refresh/logout` as a user runs them, against the emulator's Auth0 tenant.
@Suite struct LoginAgainstEmulatorTests {
    static let password = "correct horse battery staple"

    struct Fixture {
        let emulator: RunningEmulator
        let directory: URL
        let wire = URLSessionTransport(defaultTimeout: .seconds(30), followRedirects: false)

        static func start(dpop: Bool = false) async throws -> Fixture {
            let emulator = try await Emulator.start()
            let config = """
            {"defaultEnvironment": "dev", "environments": {"dev": {"defaultProvider": "auth0",
              "sessionStore": {"type": "file", "path": "sessions"},
              "providers": [{"id": "auth0", "type": "auth0", "domain": "\(emulator.url("/auth0").absoluteString)",
                             "clientId": "authhub-cli", "connection": "Username-Password-Authentication", "dpop": \(dpop)}]}}}
            """
            return Fixture(emulator: emulator, directory: try AuthHubBinary.directory(withConfig: config))
        }

        func seed(_ email: String, extra: [String: JSONValue] = [:]) async throws {
            var body: [String: JSONValue] = ["email": .string(email), "password": .string(LoginAgainstEmulatorTests.password)]
            body.merge(extra) { _, new in new }
            let reply = try await wire.send(.post, emulator.url("/auth0/__emulator/users"), headerFields: [.contentType: "application/json"], body: try JSONEncoder().encode(JSONValue.object(body)))
            #expect(reply.status == 201)
        }

        func run(_ arguments: [String], stdin: String? = nil) async throws -> AuthHubBinary.Result {
            try await AuthHubBinary.runDetached(arguments, in: directory, stdin: stdin)
        }

        func stop() async {
            await emulator.stop()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    @Test func passwordLoginSessionRefreshLogout() async throws {
        let f = try await Fixture.start()
        try await f.seed("ada@example.com")
        let login = try await f.run(["login", "--email", "ada@example.com", "--password-stdin"], stdin: Self.password + "\n")
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stdout.contains("Signed in.") && login.stdout.contains("ada@example.com"))

        let session = try await f.run(["session", "--json"])
        #expect(session.status == 0, "\(session.stderr)")
        let summary = try JSONValue.parse(Data(session.stdout.utf8))
        #expect(summary["provider"] == "auth0" && summary["hasRefreshToken"] == true && summary["email"] == "ada@example.com")
        // No token in any output: the stored file's tokens never appear.
        let stored = try String(contentsOf: try #require(FileManager.default.enumerator(at: f.directory.appendingPathComponent("sessions"),
            includingPropertiesForKeys: nil)?.allObjects.compactMap { $0 as? URL }.first { $0.lastPathComponent.hasPrefix("session.") }),
            encoding: .utf8)
        let accessToken = try #require(try JSONValue.parse(Data(stored.utf8))["session"]?["accessToken"]?.stringValue
            ?? (try? JSONValue.parse(Data(stored.utf8)))?["accessToken"]?.stringValue)
        #expect(!(login.stdout + login.stderr + session.stdout).contains(accessToken))

        let refresh = try await f.run(["refresh"])
        #expect(refresh.status == 0 && refresh.stdout.contains("Session renewed."), "\(refresh.stderr)")
        let logout = try await f.run(["logout"])
        #expect(logout.status == 0 && logout.stdout.contains("Signed out."), "\(logout.stderr)")
        #expect(try await f.run(["session"]).status != 0)

        let wrong = try await f.run(["login", "--email", "ada@example.com", "--password-stdin"], stdin: "wrong\n")
        #expect(wrong.status != 0 && wrong.stderr.contains("Wrong email or password."), "\(wrong.stderr)")
        await f.stop()
    }

    /// `authhub token --url` prints the request's header lines: for a DPoP-bound session,
    /// `Authorization: DPoP` and a proof made for that method and URL (which the emulator's
    /// `/userinfo` accepts, once); plain `authhub token` warns on standard error that the token needs a proof.
    @Test func tokenPrintsTheHeadersOfADPoPBoundSession() async throws {
        let f = try await Fixture.start(dpop: true)
        try await f.seed("dpop@example.com")
        let login = try await f.run(["login", "--email", "dpop@example.com", "--password-stdin"], stdin: Self.password + "\n")
        #expect(login.status == 0, "\(login.stderr)")
        let userinfo = f.emulator.url("/auth0/userinfo")
        let printed = try await f.run(["token", "--method", "get", "--url", userinfo.absoluteString])
        #expect(printed.status == 0, "\(printed.stderr)")
        let lines = printed.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2 && lines[0].hasPrefix("Authorization: DPoP ") && lines[1].hasPrefix("DPoP: "), "\(lines.count) lines")
        var fields: HTTPFields = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":"), let name = HTTPField.Name(String(line[..<colon])) else { continue }
            fields[name] = String(line[line.index(colon, offsetBy: 2)...])
        }
        #expect(try await f.wire.send(.get, userinfo, headerFields: fields).status == 200, "the printed headers call the API")
        #expect(try await f.wire.send(.get, userinfo, headerFields: fields).status == 401, "a proof is good once")
        let plain = try await f.run(["token"])
        #expect(plain.status == 0 && plain.stderr.contains("DPoP-bound"), "\(plain.stderr)")
        for bad in [["token", "--url", "ftp://example.com/x"], ["token", "--url", "http://example.com/x"], ["token", "--method", "GET"],
                    ["token", "--url", userinfo.absoluteString, "--method", "GE T"]] {
            let refused = try await f.run(bad)
            #expect(refused.status != 0 && refused.stdout.isEmpty, "\(bad)")
        }
        await f.stop()
    }

    /// The hub's one rule through the CLI: `authhub login` while signed in replaces the stored
    /// session, and the replaced refresh token is revoked at Auth0 before the command exits (the
    /// revocation runs in the background and `authhub` waits for it, bounded, on its way out).
    @Test func loginWhileSignedInReplacesAndRevokesTheOldSession() async throws {
        let f = try await Fixture.start()
        try await f.seed("ada@example.com")
        try await f.seed("bob@example.com")
        let first = try await f.run(["login", "--email", "ada@example.com", "--password-stdin"], stdin: Self.password + "\n")
        #expect(first.status == 0, "\(first.stderr)")
        let adaRefreshToken = try #require(try storedSession(in: f.directory)["refreshToken"]?.stringValue)
        let second = try await f.run(["login", "--email", "bob@example.com", "--password-stdin"], stdin: Self.password + "\n")
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try storedSession(in: f.directory)["claims"]?["email"] == "bob@example.com")
        let form = "grant_type=refresh_token&client_id=authhub-cli&refresh_token=" + adaRefreshToken
        let renew = try await f.wire.send(.post, f.emulator.url("/auth0/oauth/token"), headerFields: [.contentType: "application/x-www-form-urlencoded"],
                                          body: Data(form.utf8))
        #expect(renew.status == 403 && (try? JSONValue.parse(renew.body)["error"]) == "invalid_grant", "ada's refresh token was revoked")
        await f.stop()
    }

    /// The one session file the file store keeps in `directory`'s `sessions` folder (unsealed).
    func storedSession(in directory: URL) throws -> JSONValue {
        let files = FileManager.default.enumerator(at: directory.appendingPathComponent("sessions"), includingPropertiesForKeys: nil)?
            .allObjects.compactMap { $0 as? URL }.filter { $0.lastPathComponent.hasPrefix("session.") } ?? []
        #expect(files.count == 1)
        let stored = try JSONValue.parse(Data(contentsOf: try #require(files.first)))
        return stored["session"] ?? stored
    }

    @Test func mfaChallengeIsAnsweredWithATOTPCode() async throws {
        let f = try await Fixture.start()
        let secret = Base32.encode(SystemRandom().bytes(20))
        try await f.seed("eve@example.com", extra: ["totp_secret": .string(secret)])
        let code = try TOTP(secret: Secret(try Base32.decode(secret))).code(at: Date()).revealed()
        let login = try await f.run(["login", "--email", "eve@example.com", "--password-stdin", "--otp", code], stdin: Self.password + "\n")
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stdout.contains("eve@example.com"))
        #expect(!(login.stdout + login.stderr).contains(code))
        await f.stop()
    }

    @Test func passwordlessCodeTypedAtThePrompt() async throws {
        let f = try await Fixture.start()
        let running = try RunningBinary(["login", "--passwordless", "--email", "gus@example.com"], in: f.directory)
        try await running.wait { _, err in err.contains("Enter it:") }
        let outbox = try await f.wire.send(.get, f.emulator.url("/auth0/__emulator/passwordless?email=gus%40example.com"))
        running.send(try #require(try JSONValue.parse(outbox.body)["code"]?.stringValue))
        #expect(await running.finish() == 0, "\(running.stderr)")
        #expect(running.stdout.contains("gus@example.com"))
        await f.stop()
    }

    /// The browser flags reach `/authorize`, and a loopback `redirectURI` from providers.json is
    /// listened on as configured (its port and path) and sent exactly.
    @Test func browserLoginWithOptionsAndAConfiguredLoopbackRedirect() async throws {
        let emulator = try await Emulator.start()
        defer { Task { await emulator.stop() } }
        let port = try LoopbackRedirectReceiver().port  // a free port, released again
        let redirect = "http://127.0.0.1:\(port)/auth/cb"
        let config = """
        {"defaultEnvironment": "dev", "environments": {"dev": {"defaultProvider": "auth0",
          "sessionStore": {"type": "file", "path": "sessions"},
          "providers": [{"id": "auth0", "type": "auth0", "domain": "\(emulator.url("/auth0").absoluteString)",
                         "clientId": "authhub-cli", "redirectURI": "\(redirect)"}]}}}
        """
        let directory = try AuthHubBinary.directory(withConfig: config)
        defer { try? FileManager.default.removeItem(at: directory) }
        let wire = URLSessionTransport(defaultTimeout: .seconds(30), followRedirects: false)
        _ = try await wire.send(.post, emulator.url("/auth0/__emulator/users"), headerFields: [.contentType: "application/json"], body: Data(#"{"email":"opt@example.com","password":"correct horse battery staple"}"#.utf8))
        let running = try RunningBinary(["login", "--browser", "--no-open", "--timeout", "60", "--scope", "openid email offline_access",
                                         "--audience", "https://api.example.com/", "--login-hint", "opt@example.com", "--prompt", "login",
                                         "--max-age", "600", "--param", "ui_locales=fr"], in: directory)
        try await running.wait { out, _ in out.contains("http://") && out.contains("\n") }
        let url = try #require(running.stdout.split(separator: "\n").first.flatMap { URL(string: String($0)) })
        let q = Dictionary((URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map { ($0.name, $0.value ?? "") },
                           uniquingKeysWith: { _, b in b })
        #expect(q["redirect_uri"] == redirect)
        #expect(q["scope"] == "openid email offline_access" && q["audience"] == "https://api.example.com/")
        #expect(q["login_hint"] == "opt@example.com" && q["prompt"] == "login" && q["max_age"] == "600" && q["ui_locales"] == "fr")
        let authorize = try await wire.send(.get, url, headerFields: [HTTPField.Name.constant("X-AuthHub-Emulator-User"): "opt@example.com"])
        let callback = try #require(authorize.headerFields["Location"].flatMap(URL.init(string:)))
        #expect(callback.port == Int(port) && callback.path == "/auth/cb")
        _ = try await wire.send(.get, callback)
        #expect(await running.finish() == 0, "\(running.stderr)")
        let session = try await AuthHubBinary.runDetached(["session", "--json"], in: directory)
        #expect(session.stdout.contains("openid email offline_access"), "\(session.stdout)")
    }

    /// The browser flags are refused without --browser, and malformed ones before any request.
    @Test func browserFlagsAreCheckedFirst() async throws {
        let f = try await Fixture.start()
        let alone = try await f.run(["login", "--email", "a@example.com", "--scope", "openid"])
        #expect(alone.status != 0 && alone.stderr.contains("--scope goes with --browser"), "\(alone.stderr)")
        let reserved = try await f.run(["login", "--browser", "--no-open", "--param", "state=forged"])
        #expect(reserved.status != 0 && reserved.stderr.contains("state"), "\(reserved.stderr)")
        let malformed = try await f.run(["login", "--browser", "--no-open", "--param", "novalue"])
        #expect(malformed.status != 0 && malformed.stderr.contains("name=value"), "\(malformed.stderr)")
        let maxAge = try await f.run(["login", "--browser", "--no-open", "--max-age=-5"])
        #expect(maxAge.status != 0 && maxAge.stderr.contains("max_age"), "\(maxAge.stderr)")
        let invitation = try await f.run(["login", "--browser", "--no-open", "--invitation", "https://x.example/login?invitation=i"])
        #expect(invitation.status != 0 && invitation.stderr.contains("invitation"), "\(invitation.stderr)")
        await f.stop()
    }

    /// Auth0's bot detection (`requires_verification`) on a password sign-in: the CLI says so and
    /// continues in the browser, where the login page's CAPTCHA is solved by a person (the test).
    @Test func botDetectionContinuesInTheBrowser() async throws {
        let f = try await Fixture.start()
        try await f.seed("bot@example.com")
        let switched = try await f.wire.send(.post, f.emulator.url("/auth0/__emulator/attack-protection"), headerFields: [.contentType: "application/json"], body: Data(#"{"bot_detection":true}"#.utf8))
        #expect(switched.status == 200)
        let running = try RunningBinary(["login", "--email", "bot@example.com", "--password-stdin", "--no-open", "--timeout", "60"],
                                        in: f.directory)
        running.send(Self.password)
        try await running.wait { out, _ in out.contains("http://") && out.contains("\n") }
        #expect(running.stderr.contains("wants to check that a person is signing in; continuing in the browser"), "\(running.stderr)")
        let url = try #require(running.stdout.split(separator: "\n").first.flatMap { URL(string: String($0)) })
        #expect(url.query?.contains("login_hint=bot%40example.com") == true, "\(url)")
        let page = try await f.wire.send(.get, url)
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(html.contains("I am not a robot"))
        let transaction = try #require(html.firstMatch(of: /name="transaction" value="([^"]+)"/)?.output.1).description
        func form(_ fields: [(String, String)]) -> Data {
            Data(fields.map { "\($0)=\($1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&").utf8)
        }
        let login = f.emulator.url("/auth0/u/login")
        let noCaptcha = try await f.wire.send(.post, login, headerFields: [.contentType: "application/x-www-form-urlencoded"], body: form([("transaction", transaction), ("email", "bot@example.com"), ("password", Self.password)]))
        #expect(noCaptcha.status == 400, "the checkbox is required")
        let solved = try await f.wire.send(.post, login, headerFields: [.contentType: "application/x-www-form-urlencoded"], body: form([("transaction", transaction), ("email", "bot@example.com"),
                                                                   ("password", Self.password), ("captcha", "1")]))
        let callback = try #require(solved.headerFields["Location"].flatMap(URL.init(string:)), "\(solved.status)")
        _ = try await f.wire.send(.get, callback)
        #expect(await running.finish() == 0, "\(running.stderr)")
        #expect(running.stdout.contains("Signed in.") && running.stdout.contains("bot@example.com"))
        await f.stop()
    }

    /// `logout --federated` ends the provider's browser session too: before it, a new `/authorize`
    /// with the browser's cookie signs in silently; after the printed logout URL is opened, the same
    /// cookie gets the login page again.
    @Test func federatedLogoutEndsTheProvidersBrowserSession() async throws {
        let f = try await Fixture.start()
        try await f.seed("sso@example.com")
        let login = try RunningBinary(["login", "--browser", "--no-open", "--timeout", "60"], in: f.directory)
        try await login.wait { out, _ in out.contains("http://") && out.contains("\n") }
        let authorizeURL = try #require(login.stdout.split(separator: "\n").first.flatMap { URL(string: String($0)) })
        let first = try await f.wire.send(.get, authorizeURL, headerFields: [HTTPField.Name.constant("X-AuthHub-Emulator-User"): "sso@example.com"])
        let cookie = try #require(first.headerFields["Set-Cookie"]?.split(separator: ";").first.map(String.init), "the browser session cookie")
        _ = try await f.wire.send(.get, try #require(first.headerFields["Location"].flatMap(URL.init(string:))))
        #expect(await login.finish() == 0, "\(login.stderr)")

        let silent = try await f.wire.send(.get, authorizeURL, headerFields: [.cookie: cookie])
        #expect(silent.status == 302, "single sign-on: no credentials asked while the browser session lives")

        let logout = try await f.run(["logout", "--federated", "--no-open"])
        #expect(logout.status == 0, "\(logout.stderr)")
        let lines = logout.stdout.split(separator: "\n").map(String.init)
        #expect(lines.last == "Signed out.")
        let logoutURL = try #require(lines.first.flatMap { URL(string: $0) })
        #expect(logoutURL.path.hasSuffix("/auth0/v2/logout") && logoutURL.query?.hasPrefix("federated") == true, "\(logoutURL)")
        #expect(logoutURL.query?.contains("client_id=authhub-cli") == true)
        let ended = try await f.wire.send(.get, logoutURL, headerFields: [.cookie: cookie])
        #expect(ended.status == 200)

        let again = try await f.wire.send(.get, authorizeURL, headerFields: [.cookie: cookie])
        #expect(again.status == 200 && String(decoding: again.body, as: UTF8.self).contains("name=\"password\""),
                "the login page asks for credentials again")
        let session = try await f.run(["session"])
        #expect(session.status != 0, "the local session is gone too")
        await f.stop()
    }

    /// `logout --browser` ends the provider's browser session without `federated` (Auth0.swift's
    /// default `clearSession()`: `/v2/logout?returnTo=…&client_id=…`).
    @Test func browserLogoutEndsTheProvidersBrowserSessionWithoutFederated() async throws {
        let f = try await Fixture.start()
        try await f.seed("plain@example.com")
        let login = try RunningBinary(["login", "--browser", "--no-open", "--timeout", "60"], in: f.directory)
        try await login.wait { out, _ in out.contains("http://") && out.contains("\n") }
        let authorizeURL = try #require(login.stdout.split(separator: "\n").first.flatMap { URL(string: String($0)) })
        let first = try await f.wire.send(.get, authorizeURL, headerFields: [HTTPField.Name.constant("X-AuthHub-Emulator-User"): "plain@example.com"])
        let cookie = try #require(first.headerFields["Set-Cookie"]?.split(separator: ";").first.map(String.init), "the browser session cookie")
        _ = try await f.wire.send(.get, try #require(first.headerFields["Location"].flatMap(URL.init(string:))))
        #expect(await login.finish() == 0, "\(login.stderr)")

        let refused = try await f.run(["logout", "--no-open"])
        #expect(refused.status != 0, "--no-open goes with --browser or --federated")
        let logout = try await f.run(["logout", "--browser", "--no-open"])
        #expect(logout.status == 0, "\(logout.stderr)")
        let lines = logout.stdout.split(separator: "\n").map(String.init)
        #expect(lines.last == "Signed out.")
        let logoutURL = try #require(lines.first.flatMap { URL(string: $0) })
        #expect(logoutURL.path.hasSuffix("/auth0/v2/logout"), "\(logoutURL)")
        #expect(logoutURL.query?.contains("federated") == false && logoutURL.query?.contains("client_id=authhub-cli") == true, "\(logoutURL)")
        let ended = try await f.wire.send(.get, logoutURL, headerFields: [.cookie: cookie])
        #expect(ended.status == 200)
        let again = try await f.wire.send(.get, authorizeURL, headerFields: [.cookie: cookie])
        #expect(again.status == 200 && String(decoding: again.body, as: UTF8.self).contains("name=\"password\""),
                "the login page asks for credentials again")
        await f.stop()
    }

    @Test func browserLoginWithNoOpen() async throws {
        let f = try await Fixture.start()
        try await f.seed("dee@example.com")
        let running = try RunningBinary(["login", "--browser", "--no-open", "--timeout", "60"], in: f.directory)
        try await running.wait { out, _ in out.contains("http://") && out.contains("\n") }
        let url = try #require(running.stdout.split(separator: "\n").first.flatMap { URL(string: String($0)) })
        #expect(url.path.hasSuffix("/auth0/authorize"))
        let authorize = try await f.wire.send(.get, url, headerFields: [HTTPField.Name.constant("X-AuthHub-Emulator-User"): "dee@example.com"])
        let callback = try #require(authorize.headerFields["Location"].flatMap(URL.init(string:)))
        let page = try await f.wire.send(.get, callback)
        #expect(page.status == 200 && String(decoding: page.body, as: UTF8.self).lowercased().contains("<html"))
        #expect(await running.finish() == 0, "\(running.stderr)")
        #expect(running.stdout.contains("Signed in.") && running.stdout.contains("dee@example.com"))
        await f.stop()
    }
}
