import AuthHub
import AuthHubTesting
import Foundation
import Testing

/// A renewal that the store cannot keep (its version cannot be advanced) must not end in exit 0:
/// with rotating refresh tokens the renewed session holds the only valid refresh token, and it exists
/// only in the command's memory.
@Suite struct VersionExhaustionCLITests {
    @Test(arguments: ["refresh", "token"])
    func aRenewalTheStoreRefusesFailsTheCommand(_ command: String) async throws {
        let upstream = try ScriptedUpstream { request in
            request.path.hasSuffix("/oauth/token")
                ? .json(200, #"{"access_token":"renewed-access","refresh_token":"rotated-refresh","token_type":"Bearer","expires_in":3600}"#)
                : .json(404, #"{"error":"not_found"}"#)
        }
        defer { upstream.stop() }
        let config = #"{"defaultEnvironment": "dev", "environments": {"dev": {"defaultProvider": "auth0", "sessionStore": {"type": "file", "path": "sessions"}, "providers": [{"id": "auth0", "type": "auth0", "domain": "http://127.0.0.1:\#(upstream.port)/auth0", "clientId": "cli"}]}}}"#
        let directory = try AuthHubBinary.directory(withConfig: config)
        defer { try? FileManager.default.removeItem(at: directory) }
        let sessions = directory.appendingPathComponent("sessions")
        try FileManager.default.createDirectory(at: sessions, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // The largest version the file store keeps exactly (2^53): the next write cannot be stored.
        let stored = #"""
        {"format":"authhub.session","version":1,"key":{"provider":"auth0","account":"default"},
         "session":{"providerID":"auth0","accountKey":"default","accessToken":"old-access","refreshToken":"old-refresh","tokenType":"Bearer",
                    "claims":{},"extras":{},"secretExtras":{},"version":9007199254740992,"expiresAt":1000}}
        """#
        let file = sessions.appendingPathComponent("session.auth0.default.json")
        try Data(stored.utf8).write(to: file)
        let result = try await AuthHubBinary.runDetached([command], in: directory)
        #expect(upstream.requests.contains { $0.path.hasSuffix("/oauth/token") }, "the renewal reached the provider")
        #expect(result.status != 0, "\(command) exited 0: \(result.stdout) \(result.stderr)")
        #expect(!result.stdout.contains("Session renewed."), "\(result.stdout)")
        #expect(!result.stdout.contains("renewed-access"), "a token whose renewal is lost is not handed out")
        // The library's warning that it kept the renewal in memory, then the command's one-line failure.
        let last = result.stderr.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last.hasPrefix("error: ") && last.contains("could not be stored"), "\(result.stderr)")
        #expect(try String(contentsOf: file, encoding: .utf8).contains("old-refresh"), "the stored session is untouched")
    }
}
