import AuthHub
import AuthHubEmulator
import Foundation
import Testing

/// `authhub signup / login / reset-password / session` with `--provider firebase`, against the
/// emulator's Firebase routes (providers.json points `emulatorHost` at it).
@Suite struct FirebaseCLITests {
    struct Fixture {
        let emulator: RunningEmulator
        let directory: URL

        static func start() async throws -> Fixture {
            let emulator = try await Emulator.start()
            let config = """
            {"defaultEnvironment": "dev", "environments": {"dev": {"defaultProvider": "auth0",
              "sessionStore": {"type": "file", "path": "sessions"},
              "providers": [{"id": "auth0", "type": "auth0", "domain": "\(emulator.url("/auth0").absoluteString)", "clientId": "authhub-cli"},
                            {"id": "firebase", "type": "firebase", "apiKey": "cli-key", "projectId": "authhub-dev",
                             "emulatorHost": "\(emulator.host):\(emulator.port)"}]}}}
            """
            return Fixture(emulator: emulator, directory: try AuthHubBinary.directory(withConfig: config))
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
        let codes = try JSONValue.parse(try await URLSessionTransport(defaultTimeout: .seconds(10)).send(
            HTTPRequest(method: .get, url: f.emulator.url("/emulator/v1/projects/authhub-dev/oobCodes"))).body)
        #expect(codes["oobCodes"]?.arrayValue?.contains { $0["email"] == "gil@example.com" && $0["requestType"] == "PASSWORD_RESET" } == true)

        let wrong = try await f.run(["login", "--provider", "firebase", "--email", "gil@example.com", "--password-stdin"], stdin: "nope-nope\n")
        #expect(wrong.status != 0 && wrong.stderr.hasPrefix("error: "), "\(wrong.stderr)")
        let taken = try await f.run(["signup", "--provider", "firebase", "--email", "gil@example.com", "--password", "another one"])
        #expect(taken.status != 0 && taken.stderr.contains("already"), "\(taken.stderr)")
        #expect(!(signup.stdout + login.stdout + refresh.stdout).contains("eyJ"), "no token is printed")
        await f.stop()
    }
}
