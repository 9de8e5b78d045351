import AuthHub
import AuthHubEmulator
import AuthHubFactors
import Foundation
import Testing

/// `authhub account …` as a user runs it, against the emulator: the same commands over Auth0's My
/// Account API and Firebase's account endpoints.
@Suite struct AccountCommandTests {
    typealias Auth0Fixture = LoginAgainstEmulatorTests.Fixture
    typealias FirebaseFixture = FirebaseCLITests.Fixture

    @Test func auth0MethodsEnrollTOTPAndRecoveryCodesThenRemove() async throws {
        let f = try await Auth0Fixture.start()
        try await f.seed("acli@example.com")
        let login = try await f.run(["login", "--email", "acli@example.com", "--password-stdin"], stdin: LoginAgainstEmulatorTests.password + "\n")
        #expect(login.status == 0, "\(login.stderr)")
        let capabilities = try await f.run(["account", "capabilities"])
        #expect(capabilities.status == 0 && capabilities.stdout.contains("enrollTOTP") && !capabilities.stdout.contains("changePassword"))

        let running = try RunningBinary(["account", "enroll", "totp", "--name", "Laptop"], in: f.directory)
        try await running.wait { out, err in out.contains("Key for manual entry:") && err.contains("authenticator app shows") }
        let key = try #require(running.stdout.split(separator: "\n").first { $0.hasPrefix("Key for manual entry:") }?
            .split(separator: ":").last?.trimmingCharacters(in: .whitespaces))
        let code = try TOTP(secret: Secret(try Base32.decode(key)), skew: 0).code(at: Date()).revealed()
        running.send(code == "000000" ? "111111" : "000000")
        try await running.wait { _, err in err.contains("Try again.") }
        running.send(code)
        #expect(await running.finish() == 0, "\(running.stderr)")
        #expect(running.stdout.contains("Added totp ("))
        #expect(running.stdout.components(separatedBy: "Key for manual entry:").count == 2, "the key is shown once, not again on a retry")

        let recovery = try await f.run(["account", "enroll", "recovery-codes"])
        #expect(recovery.status == 0 && recovery.stdout.contains("Recovery codes (shown once"), "\(recovery.stderr)")

        let list = try await f.run(["account", "methods", "--json"])
        #expect(list.status == 0, "\(list.stderr)")
        let methods = try JSONValue.parse(Data(list.stdout.utf8)).arrayValue ?? []
        #expect(Set(methods.compactMap { $0["kind"]?.stringValue }) == ["password", "totp", "recoveryCode"], "\(list.stdout)")
        let totp = try #require(methods.first { $0["kind"] == "totp" }?["id"]?.stringValue)
        let password = try #require(methods.first { $0["kind"] == "password" }?["id"]?.stringValue)
        let table = try await f.run(["account", "methods"])
        #expect(table.stdout.contains("KIND") && table.stdout.contains(totp) && table.stdout.contains("secondary"))

        let removed = try await f.run(["account", "remove", totp])
        #expect(removed.status == 0 && removed.stdout.contains("Removed"), "\(removed.stderr)")
        let again = try await f.run(["account", "remove", totp])
        #expect(again.status != 0 && again.stderr.contains("no sign-in method with that id"), "\(again.stderr)")
        let keep = try await f.run(["account", "remove", password])
        #expect(keep.status != 0 && keep.stderr.contains("cannot be removed"), "\(keep.stderr)")
        let unsupported = try await f.run(["account", "password"], stdin: "old\nnew-password\n")
        #expect(unsupported.status != 0 && unsupported.stderr.contains("does not support"), "\(unsupported.stderr)")
        await f.stop()
    }

    /// `authhub account sessions`: the user's sessions in the store (two CLI accounts of one user),
    /// another one signed out, then refusals.
    @Test func sessionsAreListedAndOthersSignedOut() async throws {
        let f = try await FirebaseFixture.start()
        let signup = try await f.run(["signup", "--provider", "firebase", "--email", "sess@example.com", "--password-stdin"], stdin: "correct horse battery\n")
        #expect(signup.status == 0, "\(signup.stderr)")
        let laptop = try await f.run(["login", "--provider", "firebase", "--account", "laptop", "--email", "sess@example.com", "--password-stdin"],
                                     stdin: "correct horse battery\n")
        #expect(laptop.status == 0, "\(laptop.stderr)")
        let list = try await f.run(["account", "sessions", "--provider", "firebase", "--json"])
        #expect(list.status == 0, "\(list.stderr)")
        let rows = try JSONValue.parse(Data(list.stdout.utf8)).arrayValue ?? []
        #expect(Set(rows.compactMap { $0["account"]?.stringValue }) == ["default", "laptop"], "\(list.stdout)")
        #expect(rows.first { $0["current"] == true }?["account"] == "default")
        let table = try await f.run(["account", "sessions", "--provider", "firebase"])
        #expect(table.stdout.contains("(this one)") && table.stdout.contains("laptop"))
        let both = try await f.run(["account", "sessions", "--provider", "firebase", "--sign-out-others", "--everywhere"])
        #expect(both.status != 0, "one choice at a time")
        let unknown = try await f.run(["account", "sessions", "--provider", "firebase", "--sign-out", "nope"])
        #expect(unknown.status != 0 && unknown.stderr.contains("no session"), "\(unknown.stderr)")
        let others = try await f.run(["account", "sessions", "--provider", "firebase", "--sign-out-others"])
        #expect(others.status == 0 && others.stdout.contains("Signed out 1 session."), "\(others.stderr)")
        let gone = try await f.run(["session", "--provider", "firebase", "--account", "laptop"])
        #expect(gone.status != 0, "the laptop's session is gone")
        let mine = try await f.run(["session", "--provider", "firebase"])
        #expect(mine.status == 0, "this one stays: \(mine.stderr)")
        await f.stop()
    }

    @Test func firebaseNameAndPasswordAndNoSession() async throws {
        let f = try await FirebaseFixture.start()
        let none = try await f.run(["account", "methods", "--provider", "firebase"])
        #expect(none.status != 0 && none.stderr.contains("authhub login"), "\(none.stderr)")
        let signup = try await f.run(["signup", "--provider", "firebase", "--email", "fcli@example.com", "--password-stdin"],
                                     stdin: "first passphrase\n")
        #expect(signup.status == 0, "\(signup.stderr)")
        let name = try await f.run(["account", "profile", "--provider", "firebase", "--name", "Fay Cli"])
        #expect(name.status == 0 && name.stdout.contains("Profile changed."), "\(name.stderr)")
        let both = try await f.run(["account", "profile", "--provider", "firebase", "--name", "A", "--email", "a@example.com"])
        #expect(both.status != 0 && both.stderr.contains("one of --name or --email"))
        let password = try await f.run(["account", "password", "--provider", "firebase", "--no-current"], stdin: "second passphrase\n")
        #expect(password.status == 0 && password.stdout.contains("Password changed."), "\(password.stderr)")
        #expect(!password.stdout.contains("second passphrase") && !password.stderr.contains("second passphrase"))
        let login = try await f.run(["login", "--provider", "firebase", "--email", "fcli@example.com", "--password-stdin"], stdin: "second passphrase\n")
        #expect(login.status == 0, "\(login.stderr)")
        await f.stop()
    }
}
