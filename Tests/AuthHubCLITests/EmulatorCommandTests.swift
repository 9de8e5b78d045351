import AuthHub
import AuthHubTesting
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `authhub emulator` as a separate process: it announces its URL, serves over HTTP, stops cleanly
/// on SIGTERM, and refuses a port that is taken with a one-line error.
@Suite(.serialized) struct EmulatorCommandTests {
    /// Starts `authhub emulator --port 0` and returns the process and the URL it announced. The
    /// announcement is read with blocking calls, on a thread of its own: blocking one of Swift's
    /// cooperative threads (two on a 2-core machine) while a debug binary starts under load stalled
    /// every other test's tasks, and timed checks elsewhere failed for want of a thread.
    func startEmulator(port: Int? = 0, _ extra: [String] = [], in directory: URL? = nil) async throws -> (SpawnedProcess, URL, FileHandle) {
        let executable = try AuthHubBinary.url()
        return try await onOwnThread { try Self.launchEmulator(executable, port: port, extra, in: directory) }
    }

    /// Waits for `process` to exit, on a thread of its own.
    func waitForExit(_ process: SpawnedProcess) async {
        await process.exit()
    }

    static func launchEmulator(_ executable: URL, port: Int?, _ extra: [String], in directory: URL?) throws -> (SpawnedProcess, URL, FileHandle) {
        let process = try SpawnedProcess(executable, ["emulator"] + (port.map { ["--port", String($0)] } ?? []) + extra,
                                         directory: directory, output: .pipe, errorOutput: .null)
        let out = process.output!
        // The first line of stdout is the announcement (read without FileHandle's EINTR trap).
        let text = PipeReader.readLine(out)
        let prefix = "AuthHub emulator listening on "
        guard text.hasPrefix(prefix), let url = URL(string: String(text.dropFirst(prefix.count))) else {
            process.terminate()
            throw CLITestError("unexpected announcement: \(text)")
        }
        return (process, url, out)
    }

    @Test func servesHealthAndStopsOnSIGTERM() async throws {
        let (process, url, _) = try await startEmulator()
        defer { process.terminate() }
        #expect(url.host == "127.0.0.1")
        #expect((url.port ?? 0) > 0)

        let reply = try await URLSessionTransport().send(.get, url.appendingPathComponent("__authhub/health"))
        #expect(reply.status == 200)
        #expect(try JSONValue.parse(reply.body)["status"] == "ok")

        process.send(SIGTERM)
        await waitForExit(process)
        #expect(process.termination == .exited(0))
        // The port is released.
        await #expect(throws: TransportError.self) {
            try await URLSessionTransport(defaultTimeout: .seconds(2)).send(.get, url.appendingPathComponent("__authhub/health"))
        }
    }

    /// Without --port, the emulator listens where providers.json expects it, so the committed kind
    /// of providers.json works with `authhub emulator` in one terminal and `authhub login` in another.
    @Test func servesWhereProvidersJSONExpectsIt() async throws {
        let free = try await startEmulator()  // borrow a free port, then release it
        let port = free.1.port ?? 0
        free.0.send(SIGTERM)
        await waitForExit(free.0)
        let config = """
        {"defaultEnvironment": "dev", "environments": {"dev": {"defaultProvider": "auth0",
          "sessionStore": {"type": "file", "path": "sessions"},
          "providers": [{"id": "auth0", "type": "auth0", "domain": "http://127.0.0.1:\(port)/auth0", "clientId": "authhub-dev"},
                        {"id": "firebase", "type": "firebase", "apiKey": "k", "projectId": "authhub-dev", "emulatorHost": "127.0.0.1:\(port)"}]},
          "other": {"defaultProvider": "auth0", "providers": [{"id": "auth0", "type": "auth0", "domain": "http://127.0.0.1:1/auth0", "clientId": "c"},
                                  {"id": "firebase", "type": "firebase", "apiKey": "k", "projectId": "p", "emulatorHost": "127.0.0.1:2"}]}}}
        """
        let directory = try AuthHubBinary.directory(withConfig: config)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (process, url, _) = try await startEmulator(port: nil, in: directory)
        defer { process.terminate() }
        #expect(url.port == port, "\(url)")

        let signup = try await AuthHubBinary.runDetached(["signup", "--email", "two@example.com", "--password-stdin"], in: directory,
                                                         stdin: "correct horse battery staple\n")
        #expect(signup.status == 0, "\(signup.stderr)")
        let firebase = try await AuthHubBinary.runDetached(["signup", "--provider", "firebase", "--email", "two@example.com", "--password-stdin"],
                                                           in: directory, stdin: "correct horse battery\n")
        #expect(firebase.status == 0, "\(firebase.stderr)")

        let conflicting = try await AuthHubBinary.runDetached(["emulator", "--env", "other"], in: directory)
        #expect(conflicting.status != 0 && conflicting.stderr.contains("several ports") && conflicting.stderr.contains("give --port"),
                "\(conflicting.stderr)")
        let missing = try await AuthHubBinary.runDetached(["emulator", "--config", "nope.json"], in: directory)
        #expect(missing.status != 0 && missing.stderr.hasPrefix("error: nope.json"), "\(missing.stderr)")
    }

    @Test func aTakenPortIsAOneLineError() async throws {
        let (process, url, _) = try await startEmulator()
        defer { process.terminate() }
        let result = try await AuthHubBinary.runDetached(["emulator", "--port", String(url.port ?? 0)])
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("in use"))
    }

    @Test func auth0CanSignIDTokensWithES256() async throws {
        let (process, url, _) = try await startEmulator(["--auth0-id-token-alg", "es256"])
        defer { process.terminate() }
        let transport = URLSessionTransport()
        let discovery = try await transport.send(.get, url.appendingPathComponent("auth0/.well-known/openid-configuration"))
        #expect(discovery.status == 200)
        #expect(try JSONValue.parse(discovery.body)["id_token_signing_alg_values_supported"] == ["ES256"])
        let jwks = try await transport.send(.get, url.appendingPathComponent("auth0/.well-known/jwks.json"))
        let key = try JSONValue.parse(jwks.body)["keys"]?.arrayValue?.first
        #expect(key?["kty"] == "EC")
        #expect(key?["crv"] == "P-256")
    }

    @Test func anUnknownSigningAlgorithmIsAUsageError() async throws {
        let result = try await AuthHubBinary.runDetached(["emulator", "--port", "0", "--auth0-id-token-alg", "HS256"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("--auth0-id-token-alg must be RS256 or ES256"), "\(result.stderr)")
    }
}
