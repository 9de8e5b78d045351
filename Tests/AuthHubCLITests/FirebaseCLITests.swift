import AuthHub
import AuthHubEmulator
import AuthHubFactors
import AuthHubFirebase
import AuthHubTesting
import Foundation
import Testing

/// `authhub signup / login / reset-password / session` with `--provider firebase`, against the
/// emulator's Firebase routes (providers.json points `emulatorHost` at it).
@Suite struct FirebaseCLITests {
    struct Fixture {
        let emulator: RunningEmulator
        let directory: URL

        static func start() async throws -> Fixture {
            try await start { emulator in """
            {"defaultEnvironment": "dev", "environments": {"dev": {"defaultProvider": "auth0",
              "sessionStore": {"type": "file", "path": "sessions"},
              "providers": [{"id": "auth0", "type": "auth0", "domain": "\(emulator.url("/auth0").absoluteString)", "clientId": "authhub-cli"},
                            {"id": "firebase", "type": "firebase", "apiKey": "cli-key", "projectId": "authhub-dev",
                             "emulatorHost": "\(emulator.host):\(emulator.port)"}]}}}
            """
            }
        }

        /// An emulator and a folder with the providers.json `config` makes for it.
        static func start(config: (RunningEmulator) -> String) async throws -> Fixture {
            let emulator = try await Emulator.start()
            return Fixture(emulator: emulator, directory: try AuthHubBinary.directory(withConfig: config(emulator)))
        }

        func run(_ arguments: [String], stdin: String? = nil) async throws -> AuthHubBinary.Result {
            try await AuthHubBinary.runDetached(arguments, in: directory, stdin: stdin)
        }

        func stop() async {
            await emulator.stop()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    @Test func signUpLoginSessionResetAndErrors() async throws {
        let f = try await Fixture.start()
        let signup = try await f.run(["signup", "--provider", "firebase", "--email", "gil@example.com", "--password-stdin"],
                                     stdin: "correct horse battery\n")
        #expect(signup.status == 0 && signup.stdout.contains("Account created; signed in."), "\(signup.stderr)")

        let login = try await f.run(["login", "--provider", "firebase", "--email", "gil@example.com", "--password-stdin", "--json"],
                                    stdin: "correct horse battery\n")
        #expect(login.status == 0, "\(login.stderr)")
        let summary = try JSONValue.parse(Data(login.stdout.utf8))
        #expect(summary["provider"] == "firebase" && summary["email"] == "gil@example.com" && summary["hasRefreshToken"] == true)

        let refresh = try await f.run(["refresh", "--provider", "firebase"])
        #expect(refresh.status == 0 && refresh.stdout.contains("Session renewed."), "\(refresh.stderr)")

        let reset = try await f.run(["reset-password", "--provider", "firebase", "--email", "gil@example.com"])
        #expect(reset.status == 0 && reset.stdout.contains("password-reset message"), "\(reset.stderr)")
        let codes = try JSONValue.parse(try await URLSessionTransport(defaultTimeout: .seconds(30)).send(.get, f.emulator.url("/emulator/v1/projects/authhub-dev/oobCodes")).body)
        #expect(codes["oobCodes"]?.arrayValue?.contains { $0["email"] == "gil@example.com" && $0["requestType"] == "PASSWORD_RESET" } == true)

        let wrong = try await f.run(["login", "--provider", "firebase", "--email", "gil@example.com", "--password-stdin"], stdin: "nope-nope\n")
        #expect(wrong.status != 0 && wrong.stderr.hasPrefix("error: "), "\(wrong.stderr)")
        let taken = try await f.run(["signup", "--provider", "firebase", "--email", "gil@example.com", "--password", "another one"])
        #expect(taken.status != 0 && taken.stderr.contains("already"), "\(taken.stderr)")
        #expect(!(signup.stdout + login.stdout + refresh.stdout).contains("eyJ"), "no token is printed")
        await f.stop()
    }

    /// A Firebase user with a TOTP second factor signs in with `authhub login --otp` — the same
    /// provider-neutral step Auth0 uses; a wrong code says the code is wrong.
    @Test func totpSecondFactorThroughTheUnifiedLogin() async throws {
        // The emulator's clock starts 90 s back, so that moving it a TOTP step on stays in the past
        // of the CLI's own clock (which checks ID-token times).
        let clock = FakeClock(now: Date().addingTimeInterval(-90), mode: .manual)
        let emulator = try await Emulator.start(EmulatorConfiguration(clock: clock))
        defer { Task { await emulator.stop() } }
        let config = """
        {"defaultEnvironment": "dev", "environments": {"dev": {"defaultProvider": "firebase", "sessionStore": {"type": "file", "path": "sessions"},
          "providers": [{"id": "firebase", "type": "firebase", "apiKey": "cli-key", "projectId": "authhub-dev",
                         "emulatorHost": "\(emulator.host):\(emulator.port)"}]}}}
        """
        let directory = try AuthHubBinary.directory(withConfig: config)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Enrollment through the library (the CLI's `mfa` command manages Auth0 methods).
        let provider = FirebaseProvider(id: "firebase", configuration: FirebaseConfiguration(
            apiKey: Secret("cli-key"), projectId: "authhub-dev", emulatorHost: "\(emulator.host):\(emulator.port)"),
            context: ProviderContext(transport: URLSessionTransport(defaultTimeout: .seconds(30))))
        let auth = FirebaseAuth(provider: provider, store: InMemorySessionStore())
        let seeded = try await URLSessionTransport(defaultTimeout: .seconds(30)).send(.post, emulator.url("/emulator/v1/projects/authhub-dev/accounts"), headerFields: [.contentType: "application/json"], body: Data(#"{"email":"mfa@example.com","password":"correct horse battery","emailVerified":true}"#.utf8))
        #expect(seeded.status == 200)
        _ = try await auth.signIn(email: "mfa@example.com", password: Secret("correct horse battery"))
        let challenge = try await auth.startTOTPEnrollment()
        try await auth.finalizeTOTPEnrollment(challenge, code: try challenge.totp.code(at: clock.now))
        clock.advance(by: 60)  // a later time step: codes are not accepted twice

        let wrongCode = try await AuthHubBinary.runDetached(["login", "--email", "mfa@example.com", "--password-stdin", "--otp", "000000"],
                                                            in: directory, stdin: "correct horse battery\n")
        #expect(wrongCode.status != 0 && wrongCode.stderr.contains("second-factor code is wrong"), "\(wrongCode.stderr)")
        let code = try challenge.totp.code(at: clock.now).revealed()
        let login = try await AuthHubBinary.runDetached(["login", "--email", "mfa@example.com", "--password-stdin", "--otp", code, "--json"],
                                                        in: directory, stdin: "correct horse battery\n")
        #expect(login.status == 0, "\(login.stderr)")
        #expect(try JSONValue.parse(Data(login.stdout.utf8))["email"] == "mfa@example.com")
    }

    /// The newest code the emulator "sent" to `email` for `requestType`.
    static func oobCode(_ f: Fixture, _ email: String, _ requestType: String) async throws -> String {
        let codes = try JSONValue.parse(try await URLSessionTransport(defaultTimeout: .seconds(30)).send(.get, f.emulator.url("/emulator/v1/projects/authhub-dev/oobCodes")).body)
        let code = codes["oobCodes"]?.arrayValue?.last { $0["email"]?.stringValue == email && $0["requestType"]?.stringValue == requestType }
        return try #require(code?["oobCode"]?.stringValue)
    }

    /// A reset finished with the emailed code, email verification sent and confirmed, and the
    /// account deleted — all from the CLI.
    @Test func resetWithTheCodeVerifyTheEmailAndDeleteTheAccount() async throws {
        let f = try await Fixture.start()
        let signup = try await f.run(["signup", "--provider", "firebase", "--email", "hal@example.com", "--password-stdin"],
                                     stdin: "correct horse battery\n")
        #expect(signup.status == 0, "\(signup.stderr)")

        let send = try await f.run(["verify-email", "--provider", "firebase"])
        #expect(send.status == 0 && send.stdout.contains("--code CODE"), "\(send.stdout)\(send.stderr)")
        let verifyCode = try await Self.oobCode(f, "hal@example.com", "VERIFY_EMAIL")
        let verified = try await f.run(["verify-email", "--provider", "firebase", "--code=" + verifyCode])
        #expect(verified.status == 0 && verified.stdout.contains("Email address verified. The session was renewed."), "\(verified.stderr)")
        let session = try await f.run(["session", "--provider", "firebase", "--json"])
        #expect(session.status == 0)

        let reset = try await f.run(["reset-password", "--provider", "firebase", "--email", "hal@example.com"])
        #expect(reset.status == 0 && reset.stdout.contains("reset-password --provider firebase --code CODE"), "\(reset.stdout)")
        let resetCode = try await Self.oobCode(f, "hal@example.com", "PASSWORD_RESET")
        let wrongCode = try await f.run(["reset-password", "--provider", "firebase", "--code", "not-a-code", "--password-stdin"],
                                        stdin: "brand new battery\n")
        #expect(wrongCode.status != 0 && wrongCode.stderr.hasPrefix("error: "), "\(wrongCode.stderr)")
        let confirmed = try await f.run(["reset-password", "--provider", "firebase", "--code=" + resetCode, "--password-stdin"],
                                        stdin: "brand new battery\n")
        #expect(confirmed.status == 0 && confirmed.stdout.contains("Password changed."), "\(confirmed.stderr)")
        let oldPassword = try await f.run(["login", "--provider", "firebase", "--email", "hal@example.com", "--password-stdin"],
                                          stdin: "correct horse battery\n")
        #expect(oldPassword.status != 0)
        let newPassword = try await f.run(["login", "--provider", "firebase", "--email", "hal@example.com", "--password-stdin"],
                                          stdin: "brand new battery\n")
        #expect(newPassword.status == 0, "\(newPassword.stderr)")

        let refused = try await f.run(["delete-account", "--provider", "firebase"], stdin: "no\n")
        #expect(refused.status != 0 && refused.stderr.contains("not deleted"), "\(refused.stderr)")
        let deleted = try await f.run(["delete-account", "--provider", "firebase"], stdin: "DELETE\n")
        #expect(deleted.status == 0 && deleted.stdout.contains("deleted"), "\(deleted.stderr)")
        let gone = try await f.run(["login", "--provider", "firebase", "--email", "hal@example.com", "--password-stdin"],
                                   stdin: "brand new battery\n")
        #expect(gone.status != 0, "the account no longer exists")
        let auth0 = try await f.run(["reset-password", "--code", "x", "--password-stdin"], stdin: "whatever pw\n")
        #expect(auth0.status != 0 && auth0.stderr.contains("does not support"), "Auth0 finishes resets on its own page: \(auth0.stderr)")
        await f.stop()
    }
}
