import AuthHub
import AuthHubEmulator
import AuthHubFactors
import Foundation
import Testing

/// `authhub mfa list|enroll|delete` as a user runs them, against the emulator's Auth0 tenant.
@Suite struct MFACommandTests {
    typealias Fixture = LoginAgainstEmulatorTests.Fixture

    /// A fixture with `email` signed in through `authhub login`.
    func signedIn(_ email: String) async throws -> Fixture {
        let f = try await Fixture.start()
        try await f.seed(email)
        let login = try await f.run(["login", "--email", email, "--password-stdin"], stdin: LoginAgainstEmulatorTests.password + "\n")
        #expect(login.status == 0, "\(login.stderr)")
        return f
    }

    @Test func enrollTOTPDrawsTheQRCodeAcceptsTheCodeAfterAWrongOneThenListAndDelete() async throws {
        let f = try await signedIn("quinn@example.com")
        let running = try RunningBinary(["mfa", "enroll", "totp"], in: f.directory)
        try await running.wait { out, err in out.contains("Key for manual entry:") && err.contains("6-digit code") }
        let output = running.stdout
        // The QR code is drawn with half blocks, and its key works in an authenticator.
        #expect(output.contains("▀") || output.contains("▄"))
        let key = try #require(output.split(separator: "\n").first { $0.hasPrefix("Key for manual entry:") }?
            .split(separator: ":").last?.trimmingCharacters(in: .whitespaces))
        let code = try TOTP(secret: Secret(try Base32.decode(key)), skew: 0).code(at: Date()).revealed()
        running.send(String(code.dropLast()) + (code.last == "0" ? "1" : "0"))
        try await running.wait { _, err in err.contains("Try again.") }
        running.send(code)
        #expect(await running.finish() == 0, "\(running.stderr)")
        #expect(running.stdout.contains("Enrolled totp ("))

        let list = try await f.run(["mfa", "list", "--json"])
        #expect(list.status == 0, "\(list.stderr)")
        let methods = try JSONValue.parse(Data(list.stdout.utf8))["authentication_methods"]?.arrayValue ?? []
        let id = try #require(methods.first { $0["type"] == "totp" }?["id"]?.stringValue)
        let table = try await f.run(["mfa", "list"])
        #expect(table.stdout.contains(id) && table.stdout.contains("TYPE"))

        let delete = try await f.run(["mfa", "delete", id])
        #expect(delete.status == 0 && delete.stdout.contains("Deleted \(id)."), "\(delete.stderr)")
        #expect(try await f.run(["mfa", "list"]).stdout.contains(id) == false)
        let again = try await f.run(["mfa", "delete", id])
        #expect(again.status != 0 && again.stderr.contains("no authentication method"))
        await f.stop()
    }

    @Test func recoveryCodeIsPrintedOnceAndBadInputIsRefusedBeforeAnyRequest() async throws {
        let f = try await signedIn("rio@example.com")
        let recovery = try await f.run(["mfa", "enroll", "recovery-code"])
        #expect(recovery.status == 0, "\(recovery.stderr)")
        #expect(recovery.stdout.contains("Recovery code (shown once") && recovery.stdout.contains("Enrolled recovery-code"))

        let badEmail = try await f.run(["mfa", "enroll", "email", "--email", "not-an-address"])
        #expect(badEmail.status != 0 && badEmail.stderr.contains("valid email"), "\(badEmail.stderr)")
        let badPhone = try await f.run(["mfa", "enroll", "phone", "--phone", "555-0100"])
        #expect(badPhone.status != 0 && badPhone.stderr.contains("international form"), "\(badPhone.stderr)")
        let missing = try await f.run(["mfa", "enroll", "email"])
        #expect(missing.status != 0 && missing.stderr.contains("--email"))
        await f.stop()
    }

    @Test func passkeyEnrollmentKeepsTheCredentialInTheStoreDirectory() async throws {
        let f = try await signedIn("pia@example.com")
        let enroll = try await f.run(["mfa", "enroll", "passkey", "--passkey-store", "keys", "--json"])
        #expect(enroll.status == 0, "\(enroll.stderr)")
        let method = try JSONValue.parse(Data(enroll.stdout.utf8))
        #expect(method["type"] == "passkey" && method["relying_party_id"] == "localhost")
        let files = try FileManager.default.contentsOfDirectory(atPath: f.directory.appendingPathComponent("keys").path)
        #expect(!files.isEmpty)
        await f.stop()
    }

    @Test func withoutASessionItSaysToSignInFirst() async throws {
        let f = try await Fixture.start()
        let list = try await f.run(["mfa", "list"])
        #expect(list.status != 0 && list.stderr.contains("authhub login"), "\(list.stderr)")
        await f.stop()
    }
}
