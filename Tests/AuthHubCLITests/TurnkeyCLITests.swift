import AuthHub
import AuthHubEmulator
import Foundation
import Testing

/// `authhub signup --provider turnkey` creates the passkey and the sub-organization through the
/// app backend's proxy, so `authhub login --provider turnkey` works right after — no code written.
@Suite struct TurnkeyCLITests {
    @Test func signUpWithAPasskeyThenLogIn() async throws {
        let emulator = try await Emulator.start()
        defer { Task { await emulator.stop() } }
        let base = emulator.url("").absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let config = """
        {"defaultEnvironment": "dev", "environments": {"dev": {"defaultProvider": "turnkey",
          "sessionStore": {"type": "file", "path": "sessions"},
          "providers": [{"id": "turnkey", "type": "turnkey", "baseURL": "\(base)/turnkey",
                         "organizationId": "00000000-0000-4000-8000-0000000000aa", "rpId": "localhost",
                         "proxyURL": "\(base)/turnkey-proxy"}]}}}
        """
        let directory = try AuthHubBinary.directory(withConfig: config)
        defer { try? FileManager.default.removeItem(at: directory) }
        func run(_ arguments: [String]) async throws -> AuthHubBinary.Result {
            try await AuthHubBinary.runDetached(arguments, in: directory)
        }

        let bad = try await run(["signup", "--email", "not-an-email"])
        #expect(bad.status != 0 && bad.stderr.contains("is not an email address"), "\(bad.stderr)")
        let withPassword = try await run(["signup", "--email", "tia@example.com", "--password", "x"])
        #expect(withPassword.status != 0 && withPassword.stderr.contains("passkey"), "\(withPassword.stderr)")

        let signup = try await run(["signup", "--email", "tia@example.com", "--json"])
        #expect(signup.status == 0, "\(signup.stderr)")
        let created = try JSONValue.parse(Data(signup.stdout.utf8))
        #expect(created["provider"] == "turnkey" && created["tokenType"] == "TurnkeySession")
        let keys = try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent(".authhub/passkeys").path)
        #expect(!keys.isEmpty, "the passkey lives in the software authenticator's store")

        let lookup = try await URLSessionTransport(defaultTimeout: .seconds(30)).send(.get, emulator.url("/turnkey-proxy/proxy/sub-org-ids?filterType=EMAIL&filterValue=tia%40example.com"))
        let organizations = try JSONValue.parse(lookup.body)["organizationIds"]?.arrayValue ?? []
        #expect(organizations.count == 1, "one sub-organization for the new user")

        #expect(try await run(["logout"]).status == 0)
        let login = try await run(["login", "--email", "tia@example.com", "--json"])
        #expect(login.status == 0, "\(login.stderr)")
        #expect(try JSONValue.parse(Data(login.stdout.utf8))["user"] == created["user"], "the same user signs in")

        let again = try await run(["signup", "--email", "TIA@example.com"])
        #expect(again.status != 0 && again.stderr.contains("already registered"), "\(again.stderr)")
    }
}
