import AuthHub
import AuthHubEmulator
import AuthHubFactors
import Foundation
import Testing

/// AuthHub-held factors from the CLI, for Openfort (no second factors of its own) with providers.json's
/// `heldFactors` on a file store: enrolled with `authhub account enroll`, kept across processes in
/// the store's `.factors/`, asked for by `authhub login`.
@Suite struct HeldFactorsCLITests {
    static let password = "correct horse battery staple"

    typealias Fixture = FirebaseCLITests.Fixture

    static func start() async throws -> Fixture {
        try await Fixture.start { emulator in """
            {"defaultEnvironment": "dev", "environments": {"dev": {"defaultProvider": "openfort",
              "sessionStore": {"type": "file", "path": "sessions"},
              "heldFactors": {"providers": ["openfort"], "issuer": "CLI tests", "relyingPartyID": "cli.example.test"},
              "providers": [{"id": "openfort", "type": "openfort", "publishableKey": "pk_test_00000000-0000-4000-8000-000000000001",
                             "baseURL": "\(emulator.url("/openfort").absoluteString)"}]}}}
            """
        }
    }

    @Test func recoveryCodesAndAPasskeyFromTheCommandLine() async throws {
        let f = try await Self.start()
        let signup = try await f.run(["signup", "--email", "held-cli@example.com", "--password-stdin"], stdin: Self.password + "\n")
        #expect(signup.status == 0, "\(signup.stderr) \(signup.stdout)")
        let capabilities = try await f.run(["account", "capabilities"])
        #expect(capabilities.stdout.contains("enrollRecoveryCodes") && capabilities.stdout.contains("enrollPasskey"), "\(capabilities.stdout)")

        let enrolled = try await f.run(["account", "enroll", "recovery-codes"])
        #expect(enrolled.status == 0, "\(enrolled.stderr)")
        let codes = enrolled.stdout.split(separator: "\n").filter { $0.hasPrefix("  ") }.map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(codes.count == RecoveryCode.defaultCount, "\(enrolled.stdout)")
        let methods = try await f.run(["account", "methods", "--json"])
        let listed = try JSONValue.parse(Data(methods.stdout.utf8)).arrayValue ?? []
        #expect(listed.contains { $0["kind"] == "recoveryCode" && $0["source"] == "authHub" }, "\(methods.stdout)")
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: f.directory.appendingPathComponent("sessions/.factors").path)
        #expect(onDisk.contains { $0.hasSuffix(".json") }, "kept in the file store's .factors")

        #expect(try await f.run(["logout"]).status == 0)
        let withoutCode = try await f.run(["login", "--email", "held-cli@example.com", "--password-stdin"], stdin: Self.password + "\n")
        #expect(withoutCode.status != 0, "a second factor is required: \(withoutCode.stdout)")
        let session = try await f.run(["session"])
        #expect(session.status != 0, "nothing stored before the second step: \(session.stdout)")
        let login = try await f.run(["login", "--email", "held-cli@example.com", "--password-stdin", "--recovery-code", codes[0]],
                                    stdin: Self.password + "\n")
        #expect(login.status == 0 && login.stdout.contains("Signed in."), "\(login.stderr)")
        #expect(try await f.run(["logout"]).status == 0)
        let reused = try await f.run(["login", "--email", "held-cli@example.com", "--password-stdin", "--recovery-code", codes[0]],
                                     stdin: Self.password + "\n")
        #expect(reused.status != 0 && reused.stderr.contains("already used"), "\(reused.stderr)")

        // A passkey: enrolled with the software authenticator, then it answers the second step by itself.
        let again = try await f.run(["login", "--email", "held-cli@example.com", "--password-stdin", "--recovery-code", codes[1]],
                                    stdin: Self.password + "\n")
        #expect(again.status == 0, "\(again.stderr)")
        let passkey = try await f.run(["account", "enroll", "passkey", "--name", "CLI key"])
        #expect(passkey.status == 0 && passkey.stdout.contains("Added passkey"), "\(passkey.stderr)")
        #expect(try await f.run(["logout"]).status == 0)
        let withPasskey = try await f.run(["login", "--email", "held-cli@example.com", "--password-stdin"], stdin: Self.password + "\n")
        #expect(withPasskey.status == 0 && withPasskey.stderr.contains("using your passkey"), "\(withPasskey.stderr)")
        await f.stop()
    }
}
