import Foundation
import Testing

/// `login`, `session`, `refresh` and `logout` without a server: argument checks and the signed-out state.
@Suite struct SessionCommandsTests {
    static let config = #"""
    {"defaultEnvironment": "dev", "environments": {"dev": {"defaultProvider": "auth0",
      "sessionStore": {"type": "file", "path": "sessions"},
      "providers": [{"id": "auth0", "type": "auth0", "domain": "http://127.0.0.1:9/auth0", "clientId": "cli"}]}}}
    """#

    @Test func signedOutSessionAndRefreshFailWithOneLine() async throws {
        let directory = try AuthHubBinary.directory(withConfig: Self.config)
        defer { try? FileManager.default.removeItem(at: directory) }
        for command in ["session", "refresh"] {
            let result = try await AuthHubBinary.runDetached([command], in: directory)
            #expect(result.status != 0, "\(command)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("not signed in to "), "one wording: \(command): \(result.stderr)")
        }
        let logout = try await AuthHubBinary.runDetached(["logout"], in: directory)
        #expect(logout.status == 0 && logout.stdout.contains("nothing to sign out"), "\(logout.stdout)")
    }

    @Test(arguments: [
        (["login"], "--email or --username"),
        (["login", "--passwordless"], "exactly one of --email or --phone"),
        (["login", "--passwordless", "--email", "a@b.c", "--phone", "+1"], "exactly one of --email or --phone"),
        (["login", "--email", "a@b.c", "--password", "x", "--password-stdin"], "not both"),
        (["login", "--email", "a@b.c", "--otp", "1", "--recovery-code", "2"], "not both"),
    ])
    func loginArgumentsAreChecked(arguments: [String], message: String) async throws {
        let directory = try AuthHubBinary.directory(withConfig: Self.config)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await AuthHubBinary.runDetached(arguments, in: directory)
        #expect(result.status != 0)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test func unreachableProviderIsOneLineAndPrintsNoPassword() async throws {
        let directory = try AuthHubBinary.directory(withConfig: Self.config)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await AuthHubBinary.runDetached(["login", "--email", "ada@example.com", "--password-stdin"], in: directory,
                                           stdin: "hunter2-secret\n")
        #expect(result.status != 0)
        #expect(result.stderr.hasPrefix("error: ") && result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(!(result.stdout + result.stderr).contains("hunter2-secret"))
    }
}
