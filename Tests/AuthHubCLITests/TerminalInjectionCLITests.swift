import AuthHub
import AuthHubTesting
import Foundation
import Testing

/// Text from a provider never acts on the user's terminal: every path by which the CLI prints what
/// a server (or a stored session) said — error messages of every provider, the claims, scope and
/// token type of `session`, the device code, a discovered issuer — shows control, C1, line-separator
/// and bidi characters escaped. One hostile server per row, the real `authhub` binary, its real output.
@Suite struct TerminalInjectionCLITests {
    /// "Wrong email or password." then CR, an erase-line sequence and a forged line; a C1 CSI and a
    /// right-to-left override; a window-title sequence.
    static let hostile = "Wrong email or password.\r\u{1B}[2KSigned in as admin.\u{9B}31m\u{202E}gpj.exe\u{1B}]0;pwned\u{7}\u{2028}"

    /// `hostile` inside a JSON string.
    static var hostileJSON: String {
        let data = (try? JSONEncoder().encode(hostile)) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// An id with an erase-display sequence and a right-to-left override, JSON-escaped.
    static let hostileID = #"dev_\u001b[2J\u202e"#

    /// What the output must be free of (every unsafe scalar but the CLI's own line breaks).
    static func unsafeScalars(_ text: String) -> [String] {
        text.unicodeScalars.filter { TerminalText.isUnsafe($0) && $0 != "\n" }.map { "U+" + String($0.value, radix: 16, uppercase: true) }
    }

    struct Row: Sendable, CustomStringConvertible {
        var name: String
        /// The provider entry of providers.json; `PORT` is replaced by the hostile server's port.
        var provider: String
        var arguments: [String]
        var stdin: String? = nil
        /// The hostile server's answer to every request.
        var reply: @Sendable (ScriptedUpstream.Request) -> ScriptedUpstream.Script
        /// A signed-in Auth0 session (with a refresh token) stored before the command runs.
        var signedIn = false
        /// The exit status expected (1 for a failure; 0 for output that succeeds with hostile data).
        var status: Int32 = 1
        var description: String { name }
    }

    static let rows: [Row] = [
        Row(name: "auth0 error_description",
            provider: #"{"id": "p", "type": "auth0", "domain": "http://127.0.0.1:PORT/auth0", "clientId": "cli"}"#,
            arguments: ["login", "--email", "ada@example.com", "--password-stdin"], stdin: "pw\n",
            reply: { _ in .json(403, #"{"error":"invalid_grant","error_description":\#(hostileJSON)}"#) }),
        Row(name: "auth0 device user_code and denial",
            provider: #"{"id": "p", "type": "auth0", "domain": "http://127.0.0.1:PORT/auth0", "clientId": "cli"}"#,
            arguments: ["login", "--device", "--no-qr"],
            reply: { request in
                request.path.hasSuffix("/device/code")
                    ? .json(200, #"{"device_code":"dc","user_code":"WDJB\u202E-MJHT","verification_uri":"http://127.0.0.1:9/activate","expires_in":30,"interval":1}"#)
                    : .json(403, #"{"error":"access_denied","error_description":\#(hostileJSON)}"#)
            }),
        Row(name: "firebase message",
            provider: #"{"id": "p", "type": "firebase", "apiKey": "k", "projectId": "demo", "emulatorHost": "127.0.0.1:PORT"}"#,
            arguments: ["login", "--email", "ada@example.com", "--password-stdin"], stdin: "pw\n",
            reply: { _ in .json(400, #"{"error":{"code":400,"message":\#(hostileJSON),"errors":[{"message":\#(hostileJSON),"domain":"global","reason":"invalid"}]}}"#) }),
        Row(name: "openfort message",
            provider: #"{"id": "p", "type": "openfort", "publishableKey": "pk_test_00000000-0000-4000-8000-000000000001", "baseURL": "http://127.0.0.1:PORT/openfort"}"#,
            arguments: ["login", "--email", "ada@example.com", "--password-stdin"], stdin: "pw\n",
            reply: { _ in .json(400, #"{"message":\#(hostileJSON),"code":"INVALID_INPUT"}"#) }),
        Row(name: "turnkey message",
            provider: #"{"id": "p", "type": "turnkey", "baseURL": "http://127.0.0.1:PORT/turnkey", "organizationId": "00000000-0000-4000-8000-0000000000aa", "rpId": "localhost", "proxyURL": "http://127.0.0.1:PORT/proxy"}"#,
            arguments: ["login", "--email", "ada@example.com"],
            reply: { _ in .json(400, #"{"code":3,"message":\#(hostileJSON),"details":[]}"#) }),
        Row(name: "auth0 mfa list (factor names and ids)",
            provider: #"{"id": "p", "type": "auth0", "domain": "http://127.0.0.1:PORT/auth0", "clientId": "cli"}"#,
            arguments: ["mfa", "list"],
            reply: { request in
                if request.path.hasSuffix("/oauth/token") {
                    return .json(200, #"{"access_token":"myaccount-at","token_type":"Bearer","expires_in":600,"scope":"read:me:authentication_methods read:me:factors"}"#)
                }
                if request.path.hasSuffix("/me/v1/factors") { return .json(200, #"{"factors":[]}"#) }
                return .json(200, #"{"authentication_methods":[{"id":"totp|\#(hostileID)","type":"totp","name":\#(hostileJSON),"created_at":"2026-01-01T00:00:00Z"}]}"#)
            }, signedIn: true, status: 0),
        Row(name: "oidc discovered issuer",
            provider: #"{"id": "p", "type": "oidc", "issuer": "http://127.0.0.1:PORT/", "clientId": "cli"}"#,
            arguments: ["login", "--browser", "--no-open", "--timeout", "5"],
            reply: { _ in .json(200, #"{"issuer":\#(hostileJSON),"authorization_endpoint":"http://127.0.0.1:9/a","token_endpoint":"http://127.0.0.1:9/t","jwks_uri":"http://127.0.0.1:9/k"}"#) }),
    ]

    @Test(arguments: rows)
    func serverTextIsShownEscaped(_ row: Row) async throws {
        let upstream = try ScriptedUpstream(row.reply)
        defer { upstream.stop() }
        let config = #"{"defaultEnvironment": "dev", "environments": {"dev": {"defaultProvider": "p", "sessionStore": {"type": "file", "path": "sessions"}, "providers": [\#(row.provider.replacingOccurrences(of: "PORT", with: String(upstream.port)))]}}}"#
        let directory = try AuthHubBinary.directory(withConfig: config)
        defer { try? FileManager.default.removeItem(at: directory) }
        if row.signedIn {
            let sessions = directory.appendingPathComponent("sessions")
            try FileManager.default.createDirectory(at: sessions, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let stored = #"""
            {"format":"authhub.session","version":1,"key":{"provider":"p","account":"default"},
             "session":{"providerID":"p","accountKey":"default","accessToken":"at","refreshToken":"rt","tokenType":"Bearer","scope":"openid offline_access",
                        "claims":{"sub":"auth0|1"},"userID":"auth0|1","extras":{},"secretExtras":{},"version":1,"expiresAt":4102444800}}
            """#
            try Data(stored.utf8).write(to: sessions.appendingPathComponent("session.p.default.json"))
        }
        let result = try await AuthHubBinary.runDetached(row.arguments, in: directory, stdin: row.stdin)
        let output = result.stdout + result.stderr
        #expect(result.status == row.status, "\(row): \(output)")
        #expect(!upstream.requests.isEmpty, "\(row): the hostile server was never asked")
        #expect(Self.unsafeScalars(output).isEmpty, "\(row): raw \(Self.unsafeScalars(output)) in \(output.debugDescription)")
        // The server's text was shown, escaped, not dropped.
        #expect(output.contains("\\u{1B}") || output.contains("\\u{202E}"), "\(row): \(output.debugDescription)")
    }

    /// `session` shows claims, scope and token type from the stored session (which a provider wrote).
    @Test(arguments: [false, true])
    func storedClaimsAreShownEscaped(json: Bool) async throws {
        let directory = try AuthHubBinary.directory(withConfig: SessionCommandsTests.config)
        defer { try? FileManager.default.removeItem(at: directory) }
        let sessions = directory.appendingPathComponent("sessions")
        try FileManager.default.createDirectory(at: sessions, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let h = Self.hostileJSON
        let stored = #"""
        {"format":"authhub.session","version":1,"key":{"provider":"auth0","account":"default"},
         "session":{"providerID":"auth0","accountKey":"default","accessToken":"a","tokenType":"Bearer","scope":\#(h),"userID":\#(h),
                    "claims":{"sub":\#(h),"email":\#(h)},"extras":{},"secretExtras":{},"version":1,"expiresAt":4102444800}}
        """#
        try Data(stored.utf8).write(to: sessions.appendingPathComponent("session.auth0.default.json"))
        let result = try await AuthHubBinary.runDetached(json ? ["session", "--json"] : ["session"], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.unsafeScalars(result.stdout + result.stderr).isEmpty, "\(result.stdout.debugDescription)")
        if json {
            // Still JSON, and the same text once decoded.
            let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            #expect(object?["email"] as? String == Self.hostile)
        } else {
            #expect(result.stdout.contains("user:     Wrong email or password.\\u{D}\\u{1B}[2KSigned in as admin.\\u{9B}31m\\u{202E}gpj.exe"),
                    "\(result.stdout)")
            #expect(result.stdout.split(separator: "\n").count == 6, "one line per field: \(result.stdout)")
        }
    }
}
