import AuthHub
import AuthHubEmulator
import AuthHubFactors
import Foundation
import Testing

/// `authhub login --provider turnkey --email …` with the software passkey authenticator over
/// `--passkey-store`, against the emulator's Turnkey routes.
@Suite struct TurnkeyCLITests {
    @Test func passkeyLoginSessionRefreshAndLogout() async throws {
        let emulator = try await Emulator.start()
        let wire = URLSessionTransport(defaultTimeout: .seconds(10))
        let notarizer = try await emulator.turnkeyNotarizerPublicKey(transport: wire)
        let config = """
        {"defaultEnvironment": "dev", "environments": {"dev": {"defaultProvider": "turnkey",
          "sessionStore": {"type": "file", "path": "sessions"},
          "providers": [{"id": "turnkey", "type": "turnkey", "baseURL": "\(emulator.url("/turnkey").absoluteString)",
                         "organizationId": "00000000-0000-4000-8000-0000000000aa", "rpId": "localhost",
                         "proxyURL": "\(emulator.url("/turnkey-proxy").absoluteString)", "notarizerPublicKey": "\(notarizer)"}]}}}
        """
        let directory = try AuthHubBinary.directory(withConfig: config)
        defer { try? FileManager.default.removeItem(at: directory) }
        func run(_ arguments: [String], stdin: String? = nil) async throws -> AuthHubBinary.Result {
            try await AuthHubBinary.runDetached(arguments, in: directory, stdin: stdin)
        }
        // The user's passkey lives in the store the CLI reads (`--passkey-store`).
        let passkeys = directory.appendingPathComponent("keys", isDirectory: true)
        let authenticator = try SoftwarePasskeyAuthenticator(store: try FilePasskeyCredentialStore(directory: passkeys))
        let user = try await emulator.registerTurnkeyUser(email: "ada@example.com", authenticator: authenticator, transport: wire)

        // Turnkey signs in only with passkeys, so --email alone means a passkey login.
        let login = try await run(["login", "--email", "ada@example.com", "--passkey-store", "keys", "--json"])
        #expect(login.status == 0, "\(login.stderr)")
        let summary = try JSONValue.parse(Data(login.stdout.utf8))
        #expect(summary["provider"] == "turnkey" && summary["user"] == .string(user.userId), "\(login.stdout)")
        #expect(summary["tokenType"] == "TurnkeySession" && summary["hasRefreshToken"] == true)

        let session = try await run(["session", "--json"])
        #expect(try JSONValue.parse(Data(session.stdout.utf8))["user"] == .string(user.userId), "\(session.stdout)")
        let refresh = try await run(["refresh"])
        #expect(refresh.status == 0, "\(refresh.stderr)")
        // No secret (session JWT or private key) reaches the terminal.
        for output in [login.stdout, session.stdout, refresh.stdout, login.stderr] {
            #expect(!output.contains("eyJ"), "a JWT was printed: \(output)")
        }
        #expect(try await run(["logout"]).status == 0)
        #expect(try await run(["session"]).status != 0)

        // --passkey explicitly works too; an unknown email and a password are one-line refusals.
        let explicit = try await run(["login", "--passkey", "--email", "ada@example.com", "--passkey-store", "keys"])
        #expect(explicit.status == 0 && explicit.stdout.contains("Signed in."), "\(explicit.stderr)")
        let unknown = try await run(["login", "--email", "nobody@example.com", "--passkey-store", "keys"])
        #expect(unknown.status != 0 && unknown.stderr.hasPrefix("error: ") && unknown.stderr.split(separator: "\n").count == 1, "\(unknown.stderr)")
        #expect(unknown.stderr.localizedCaseInsensitiveContains("no turnkey account"), "\(unknown.stderr)")
        // A passkey this store does not hold (another store, empty) cannot sign in.
        let empty = try await run(["login", "--email", "ada@example.com", "--passkey-store", "other-keys"])
        #expect(empty.status != 0 && empty.stderr.split(separator: "\n").count == 1, "\(empty.stderr)")
        let password = try await run(["login", "--email", "ada@example.com", "--password-stdin"], stdin: "not a passkey\n")
        #expect(password.status != 0 && password.stderr.contains("does not support"), "\(password.stderr)")
        let conflicting = try await run(["login", "--passkey", "--password-stdin"], stdin: "x\n")
        #expect(conflicting.status != 0)
        await emulator.stop()
    }
}
