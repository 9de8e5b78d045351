import AuthHub
import AuthHubEmulator
import Foundation
import Testing

/// `authhub login --provider openfort` with a password, as a guest and with an email OTP, against
/// the emulator's Openfort routes.
@Suite struct OpenfortCLITests {
    @Test func passwordGuestAndOTPSignIn() async throws {
        let emulator = try await Emulator.start()
        let config = """
        {"defaultEnvironment": "dev", "environments": {"dev": {"defaultProvider": "openfort",
          "sessionStore": {"type": "file", "path": "sessions"},
          "providers": [{"id": "openfort", "type": "openfort", "publishableKey": "pk_test_00000000-0000-4000-8000-000000000001",
                         "baseURL": "\(emulator.url("/openfort").absoluteString)"}]}}}
        """
        let directory = try AuthHubBinary.directory(withConfig: config)
        func run(_ arguments: [String], stdin: String? = nil) async throws -> AuthHubBinary.Result {
            try await AuthHubBinary.runDetached(arguments, in: directory, stdin: stdin)
        }

        let guest = try await run(["login", "--guest", "--json"])
        #expect(guest.status == 0, "\(guest.stderr)")
        #expect(try JSONValue.parse(Data(guest.stdout.utf8))["provider"] == "openfort")
        #expect(try await run(["logout"]).status == 0)

        let signup = try await run(["signup", "--email", "ola@example.com", "--password-stdin"], stdin: "correct horse battery\n")
        #expect(signup.status == 0, "\(signup.stderr)")
        #expect(try await run(["logout"]).status == 0)
        let login = try await run(["login", "--email", "ola@example.com", "--password-stdin"], stdin: "correct horse battery\n")
        #expect(login.status == 0 && login.stdout.contains("Signed in."), "\(login.stderr)")
        let session = try await run(["session", "--json"])
        #expect(try JSONValue.parse(Data(session.stdout.utf8))["user"]?.stringValue?.isEmpty == false, "\(session.stdout)")
        #expect(try await run(["logout"]).status == 0)

        // Email OTP: the code is typed at the prompt, read here from the emulator's hook.
        let running = try RunningBinary(["login", "--passwordless", "--email", "ola@example.com"], in: directory)
        try await running.wait { _, err in err.contains("Enter it") }
        let otp = try await URLSessionTransport(defaultTimeout: .seconds(30)).send(.get, emulator.url("/openfort/__emulator/otp?email=ola@example.com"))
        running.send(try #require(try JSONValue.parse(otp.body)["otp"]?.stringValue))
        #expect(await running.finish() == 0, "\(running.stderr)")
        #expect(running.stdout.contains("Signed in."))

        // A reset finished with the link's token, and the email verified with the link's token.
        let hook = URLSessionTransport(defaultTimeout: .seconds(30))
        func tokens(_ email: String = "ola@example.com") async throws -> JSONValue {
            try JSONValue.parse(try await hook.send(.get, emulator.url("/openfort/__emulator/tokens?email=\(email)")).body)
        }
        let reset = try await run(["reset-password", "--email", "ola@example.com"])
        #expect(reset.status == 0, "\(reset.stderr)")
        let resetToken = try #require(try await tokens()["reset_token"]?.stringValue)
        let confirmed = try await run(["reset-password", "--code=" + resetToken, "--password-stdin"], stdin: "brand new battery\n")
        #expect(confirmed.status == 0 && confirmed.stdout.contains("Password changed."), "\(confirmed.stderr)")
        let relogin = try await run(["login", "--email", "ola@example.com", "--password-stdin"], stdin: "brand new battery\n")
        #expect(relogin.status == 0, "\(relogin.stderr)")
        let vic = try await run(["signup", "--email", "vic@example.com", "--password-stdin"], stdin: "correct horse battery\n")
        #expect(vic.status == 0, "\(vic.stderr)")
        let send = try await run(["verify-email"])
        #expect(send.status == 0, "\(send.stderr)")
        let verificationToken = try #require(try await tokens("vic@example.com")["verification_token"]?.stringValue)
        let verified = try await run(["verify-email", "--code=" + verificationToken])
        #expect(verified.status == 0 && verified.stdout.contains("Email address verified."), "\(verified.stderr)")

        // A guest that signs up keeps its user; --code uses a code sent earlier (no new one), and a
        // wrong one is reported as a wrong code.
        #expect(try await run(["logout"]).status == 0)
        let guest2 = try await run(["login", "--guest", "--json"])
        let guestUser = try JSONValue.parse(Data(guest2.stdout.utf8))["user"]?.stringValue
        let upgraded = try await run(["signup", "--email", "wes@example.com", "--password-stdin", "--json"], stdin: "correct horse battery\n")
        #expect(upgraded.status == 0, "\(upgraded.stderr)")
        let upgradedSession = try await run(["session", "--json"])
        let upgradedUser = try JSONValue.parse(Data(upgradedSession.stdout.utf8))["user"]?.stringValue
        #expect(guestUser != nil && upgradedUser == guestUser, "signing up as a guest upgrades the guest: \(upgradedSession.stdout)")

        let sendEarlier = try await run(["login", "--passwordless", "--email", "ola@example.com", "--code", "000000"])
        #expect(sendEarlier.status != 0 && !sendEarlier.stderr.contains("MFA"), "\(sendEarlier.stderr)")
        #expect(sendEarlier.stderr.lowercased().contains("otp") || sendEarlier.stderr.lowercased().contains("code"), "\(sendEarlier.stderr)")
        // A code sent by another process (which gives up at the prompt), then used with --code.
        let prompt = try RunningBinary(["login", "--passwordless", "--email", "ola@example.com"], in: directory)
        try await prompt.wait { _, err in err.contains("Enter it") }
        let sent = try #require(try JSONValue.parse(try await hook.send(.get, emulator.url("/openfort/__emulator/otp?email=ola@example.com")).body)["otp"]?.stringValue)
        prompt.send("")  // that process gives up without using the code
        _ = await prompt.finish()
        let withCode = try await run(["login", "--passwordless", "--email", "ola@example.com", "--code", sent])
        #expect(withCode.status == 0 && withCode.stdout.contains("Signed in."), "the earlier code still works: \(withCode.stderr)")

        let wrong = try await run(["login", "--email", "nobody@example.com", "--password-stdin"], stdin: "whatever-password\n")
        #expect(wrong.status != 0 && wrong.stderr.hasPrefix("error: ") && wrong.stderr.split(separator: "\n").count == 1, "\(wrong.stderr)")
        await emulator.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}
