import AuthHub
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `authhub emulator` as a separate process: it announces its URL, serves over HTTP, stops cleanly
/// on SIGTERM, and refuses a port that is taken with a one-line error.
@Suite(.serialized) struct EmulatorCommandTests {
    /// Starts `authhub emulator --port 0` and returns the process and the URL it announced.
    func startEmulator(port: Int = 0, _ extra: [String] = []) throws -> (Process, URL, FileHandle) {
        let process = Process()
        process.executableURL = try AuthHubBinary.url()
        process.arguments = ["emulator", "--port", String(port)] + extra
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The first line of stdout is the announcement; read byte by byte up to the newline.
        var line = Data()
        while true {
            let byte = out.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty || byte == Data("\n".utf8) { break }
            line.append(byte)
        }
        let text = String(decoding: line, as: UTF8.self)
        let prefix = "AuthHub emulator listening on "
        guard text.hasPrefix(prefix), let url = URL(string: String(text.dropFirst(prefix.count))) else {
            process.terminate()
            throw CLITestError("unexpected announcement: \(text)")
        }
        return (process, url, out.fileHandleForReading)
    }

    @Test func servesHealthAndStopsOnSIGTERM() async throws {
        let (process, url, _) = try startEmulator()
        defer { if process.isRunning { process.terminate() } }
        #expect(url.host == "127.0.0.1")
        #expect((url.port ?? 0) > 0)

        let reply = try await URLSessionTransport().send(HTTPRequest(method: .get, url: url.appendingPathComponent("__authhub/health")))
        #expect(reply.status == 200)
        #expect(try JSONValue.parse(reply.body)["status"] == "ok")

        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        // The port is released.
        await #expect(throws: TransportError.self) {
            try await URLSessionTransport(defaultTimeout: .seconds(2)).send(HTTPRequest(method: .get, url: url.appendingPathComponent("__authhub/health")))
        }
    }

    @Test func aTakenPortIsAOneLineError() async throws {
        let (process, url, _) = try startEmulator()
        defer { process.terminate(); process.waitUntilExit() }
        let result = try await AuthHubBinary.runDetached(["emulator", "--port", String(url.port ?? 0)])
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("in use"))
    }

    @Test func auth0CanSignIDTokensWithES256() async throws {
        let (process, url, _) = try startEmulator(["--auth0-id-token-alg", "es256"])
        defer { process.terminate(); process.waitUntilExit() }
        let transport = URLSessionTransport()
        let discovery = try await transport.send(HTTPRequest(method: .get, url: url.appendingPathComponent("auth0/.well-known/openid-configuration")))
        #expect(discovery.status == 200)
        #expect(try JSONValue.parse(discovery.body)["id_token_signing_alg_values_supported"] == ["ES256"])
        let jwks = try await transport.send(HTTPRequest(method: .get, url: url.appendingPathComponent("auth0/.well-known/jwks.json")))
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
