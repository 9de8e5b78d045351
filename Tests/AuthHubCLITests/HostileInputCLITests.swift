import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What used to crash or hang the CLI: a stored session with an absurd expiry (every `authhub
/// session` trapped until `logout`), a session file linked to `/dev/zero` or replaced by a FIFO, and
/// a `--timeout` past `Int64` seconds. Each must be one clear line and a non-zero exit, never a trap.
@Suite struct HostileInputCLITests {
    func directoryWithSessions() throws -> (URL, URL) {
        let directory = try AuthHubBinary.directory(withConfig: SessionCommandsTests.config)
        let sessions = directory.appendingPathComponent("sessions")
        try FileManager.default.createDirectory(at: sessions, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return (directory, sessions.appendingPathComponent("session.auth0.default.json"))
    }

    func expectOneLineFailure(_ arguments: [String], in directory: URL, mentioning text: String) async throws {
        let result = try await AuthHubBinary.runDetached(arguments, in: directory)
        #expect(result.status == 1, "\(arguments): \(result.stderr)")
        #expect(result.stderr.hasPrefix("error: ") && result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains(text), "\(result.stderr)")
        #expect(!result.stderr.contains("Fatal error"))
    }

    @Test func aStoredExpiryBeyondTheCalendarIsOneLineNotATrap() async throws {
        let (directory, file) = try directoryWithSessions()
        defer { try? FileManager.default.removeItem(at: directory) }
        let stored = #"""
        {"format":"authhub.session","version":1,"key":{"provider":"auth0","account":"default"},
         "session":{"providerID":"auth0","accountKey":"default","accessToken":"a","tokenType":"Bearer","claims":{},
                    "extras":{},"secretExtras":{},"version":1,"expiresAt":1e300}}
        """#
        try Data(stored.utf8).write(to: file)
        for command in ["session", "refresh"] {
            try await expectOneLineFailure([command], in: directory, mentioning: "Cannot read session file")
        }
        // A new sign-in or a logout still gets the user out of it.
        let logout = try await AuthHubBinary.runDetached(["logout"], in: directory)
        #expect(logout.status == 0, "\(logout.stderr)")
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test func aSessionFileLinkedToADeviceOrAFIFOIsRefusedWithoutHanging() async throws {
        let (directory, file) = try directoryWithSessions()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createSymbolicLink(atPath: file.path, withDestinationPath: "/dev/zero")
        try await expectOneLineFailure(["session"], in: directory, mentioning: "symbolic link")
        try FileManager.default.removeItem(at: file)
        #expect(mkfifo(file.path, 0o600) == 0)
        try await expectOneLineFailure(["session"], in: directory, mentioning: "not a regular file")
    }

    @Test func aBrowserTimeoutPastInt64IsAUsageError() async throws {
        let directory = try AuthHubBinary.directory(withConfig: SessionCommandsTests.config)
        defer { try? FileManager.default.removeItem(at: directory) }
        for value in ["9223372036854775807", "0", "86401"] {
            let result = try await AuthHubBinary.runDetached(["login", "--browser", "--timeout", value], in: directory)
            #expect(result.status == 64, "\(value): \(result.stderr)")
            #expect(result.stderr.hasPrefix("Error: --timeout must be between 1 and 86400 seconds."), "\(result.stderr)")
        }
    }
}
