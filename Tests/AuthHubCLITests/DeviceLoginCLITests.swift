import AuthHub
import AuthHubEmulator
import Foundation
import Testing

/// `authhub login --device` as a user runs it against the emulator's Auth0 tenant: the code, the
/// link and a QR code on standard error, a wait of one real polling interval (5 s), the approval on
/// "another device" (the emulator's hook), then the stored session; and a denial.
@Suite struct DeviceLoginCLITests {
    static func fixture() async throws -> (RunningEmulator, URL) {
        let emulator = try await Emulator.start()
        let config = """
        {"defaultEnvironment": "dev", "environments": {"dev": {"defaultProvider": "auth0",
          "sessionStore": {"type": "file", "path": "sessions"},
          "providers": [{"id": "auth0", "type": "auth0", "domain": "\(emulator.url("/auth0").absoluteString)", "clientId": "authhub-cli"}]}}}
        """
        let wire = URLSessionTransport(defaultTimeout: .seconds(30))
        let seeded = try await wire.send(.post, emulator.url("/auth0/__emulator/users"), headerFields: [.contentType: "application/json"],
                                         body: Data(#"{"email":"tv@example.com","password":"correct horse battery staple"}"#.utf8))
        #expect(seeded.status == 201)
        return (emulator, try AuthHubBinary.directory(withConfig: config))
    }

    /// The user code the CLI printed (the indented line after "enter the code:").
    static func userCode(in stderr: String) -> String? {
        let lines = stderr.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let index = lines.firstIndex(where: { $0.hasSuffix("enter the code:") }) else { return nil }
        return lines.dropFirst(index + 1).first { !$0.trimmingCharacters(in: .whitespaces).isEmpty }?.trimmingCharacters(in: .whitespaces)
    }

    @Test(arguments: [true, false])
    func loginDeviceWaitsForTheApproval(approve: Bool) async throws {
        let (emulator, directory) = try await Self.fixture()
        defer { try? FileManager.default.removeItem(at: directory) }
        defer { Task { await emulator.stop() } }
        let running = try RunningBinary(["login", "--device", "--scope", "openid email offline_access"], in: directory)
        try await running.wait { _, err in err.contains("Waiting for the approval") }
        let code = try #require(Self.userCode(in: running.stderr), "\(running.stderr)")
        #expect(running.stderr.contains("/auth0/activate"))
        #expect(running.stderr.contains("user_code=\(code)"))
        #expect(running.stderr.contains("█") || running.stderr.contains("▀"), "a QR code is drawn")
        let body = approve ? #"{"user_code":"\#(code)","email":"tv@example.com"}"# : #"{"user_code":"\#(code)"}"#
        let reply = try await URLSessionTransport(defaultTimeout: .seconds(30)).send(
            .post, emulator.url("/auth0/__emulator/device/" + (approve ? "approve" : "deny")), headerFields: [.contentType: "application/json"],
            body: Data(body.utf8))
        #expect(reply.status == 200)
        let status = await running.finish()
        if approve {
            #expect(status == 0, "\(running.stderr)")
            #expect(running.stdout.contains("Signed in.") && running.stdout.contains("tv@example.com"))
            let session = try await AuthHubBinary.runDetached(["session", "--json"], in: directory)
            #expect(session.stdout.contains("\"hasRefreshToken\" : true"), "\(session.stdout)")
        } else {
            #expect(status != 0)
            #expect(running.stderr.split(separator: "\n").last?.lowercased().contains("denied") == true, "\(running.stderr)")
        }
        // No token on the terminal.
        #expect(!running.stdout.contains("eyJ") && !running.stderr.contains("eyJ"))
    }

    /// An Auth0 application without the device code grant: one clear line, no session.
    @Test func anApplicationWithoutTheGrantIsOneClearLine() async throws {
        let emulator = try await Emulator.start()
        defer { Task { await emulator.stop() } }
        let registered = try await URLSessionTransport(defaultTimeout: .seconds(30)).send(
            .post, emulator.url("/auth0/__emulator/clients"), headerFields: [.contentType: "application/json"],
            body: Data(#"{"client_id":"web-only","callbacks":["https://app.example.com/cb"],"grant_types":["authorization_code","refresh_token"]}"#.utf8))
        #expect(registered.status == 201)
        let config = """
        {"defaultEnvironment": "dev", "environments": {"dev": {"defaultProvider": "auth0",
          "sessionStore": {"type": "file", "path": "sessions"},
          "providers": [{"id": "auth0", "type": "auth0", "domain": "\(emulator.url("/auth0").absoluteString)", "clientId": "web-only"}]}}}
        """
        let directory = try AuthHubBinary.directory(withConfig: config)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await AuthHubBinary.runDetached(["login", "--device"], in: directory)
        #expect(result.status != 0)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("not allowed for the client") && result.stderr.contains("Enable the Device Code grant"), "\(result.stderr)")
        #expect(try await AuthHubBinary.runDetached(["session", "--json"], in: directory).status != 0)
    }

    @Test func deviceOptionsAreCheckedFirst() async throws {
        let (emulator, directory) = try await Self.fixture()
        defer { try? FileManager.default.removeItem(at: directory) }
        defer { Task { await emulator.stop() } }
        for arguments in [["login", "--device", "--email", "a@b.c"], ["login", "--device", "--browser"], ["login", "--device", "--prompt", "login"],
                          ["login", "--no-qr", "--email", "a@b.c"]] {
            let result = try await AuthHubBinary.runDetached(arguments, in: directory)
            #expect(result.status != 0, "\(arguments)")
            #expect(result.stderr.contains("--device") || result.stderr.contains("--no-qr"), "\(arguments): \(result.stderr)")
        }
    }
}
