import AuthHub
import Crypto
import Foundation
import Hummingbird
import Logging
import Testing

/// Two OS processes share one FileSessionStore directory and both find the session expired: the
/// refresh token must be spent exactly once.
///
/// The token server rotates the refresh token (the old one answers `invalid_grant`) and takes 300 ms
/// per request, like a real identity provider under load. Both workers are released at the same
/// moment (each prints `ready` and waits for `go` on stdin), so without the cross-process refresh
/// lock both would send a request within that window: the server would count two requests and
/// reject the second. With the lock, the second process waits, re-reads the store, finds the
/// rotated session and sends nothing.
@Suite struct CrossProcessRefreshTests {
    @Test(.timeLimit(.minutes(1)))
    func twoProcessesRefreshOnceAndAgree() async throws {
        let worker = try Self.workerExecutable()
        let root = try TemporaryDirectory("cross-process")
        defer { root.remove() }
        let directory = root.child("sessions")
        let encryptionKey = StorageFixtures.randomKey()
        let key = SessionKey(provider: "test", account: "default")

        // An expired session holding the currently valid refresh token.
        let seeder = try FileSessionStore(directory: directory, encryptionKey: encryptionKey)
        let seeded = try await seeder.save(
            StorageFixtures.session(key, access: "at-0", refresh: "rt-0", expiresAt: Date().addingTimeInterval(-3600)),
            for: key, expectedVersion: nil)
        #expect(seeded.version == 1)

        let tokens = TokenEndpoint(initialRefreshToken: "rt-0")
        let server = try await TestServer.start(tokens)
        defer { server.stop() }

        var environment = ProcessInfo.processInfo.environment
        environment["AUTHHUB_STORE_KEY"] = encryptionKey.revealed()
        let arguments = ["--store", directory.path, "--token-url", "http://127.0.0.1:\(server.port)/token",
                         "--provider", key.provider, "--account", key.account, "--callers", "20", "--wait-for-go"]
        let workers = try (0..<2).map { _ in try WorkerProcess(executable: worker, arguments: arguments, environment: environment) }
        defer { workers.forEach { $0.terminate() } }

        for (i, worker) in workers.enumerated() {
            let ready = try #require(await worker.nextLine(), "worker \(i) exited before ready: \(worker.standardError)")
            #expect(ready.contains(#""event":"ready""#), "worker \(i): \(ready)")
        }

        // While the workers refresh, every read of the session file must parse: a reader never sees a
        // torn or half-written file.
        let file = seeder.fileURL(for: key)
        let reader = try FileSessionStore(directory: directory, encryptionKey: encryptionKey)
        let readLoop = Task { () -> (reads: Int, failures: [String]) in
            var reads = 0
            var failures: [String] = []
            while !Task.isCancelled {
                reads += 1
                do {
                    let raw = try Data(contentsOf: file)
                    let envelope = try JSONValue.parse(raw)
                    if envelope["format"] != "authhub.session" || envelope["sealed"]?.stringValue == nil {
                        failures.append("read \(reads): unexpected envelope")
                    }
                    guard let session = try await reader.load(key) else {
                        failures.append("read \(reads): the session vanished")
                        continue
                    }
                    if session.version != 1 && session.version != 2 {
                        failures.append("read \(reads): version \(session.version)")
                    }
                } catch {
                    failures.append("read \(reads): \(error)")
                }
                await Task.yield()
            }
            return (reads, failures)
        }

        for worker in workers { worker.send("go") }
        var fingerprints: [String] = []
        for (i, worker) in workers.enumerated() {
            let line = await worker.nextLine()
            let status = await worker.exitStatus()
            #expect(status == 0, "worker \(i) exited with \(status): \(worker.standardError)")
            guard let result = line.flatMap({ try? JSONValue.parse(Data($0.utf8)) }) else {
                Issue.record("worker \(i) printed no result: \(worker.standardError)")
                continue
            }
            #expect(result["event"] == "done")
            #expect(result["callers"] == 20)
            if let fingerprint = result["fingerprint"]?.stringValue { fingerprints.append(fingerprint) }
        }
        readLoop.cancel()
        let (reads, readFailures) = await readLoop.value

        let requests = await tokens.requests
        let rejected = await tokens.rejected
        #expect(requests == 1, "POST /token was called \(requests) times; the refresh token must be spent once")
        #expect(rejected == 0, "\(rejected) refresh requests used an already rotated refresh token")
        let expected = SHA256.hash(data: Data("at-1".utf8)).map { String(format: "%02x", $0) }.joined()
        #expect(fingerprints == [expected, expected])
        let stored = try #require(try await reader.load(key))
        #expect(stored.version == 2)
        #expect(stored.accessToken.revealed() == "at-1")
        #expect(stored.refreshToken?.revealed() == "rt-1")
        #expect(stored.isValid(at: Date(), minTTL: 60))
        #expect(reads > 0)
        #expect(readFailures.isEmpty, "\(readFailures.prefix(5))")
    }

    /// The `AuthHubRefreshWorker` executable.
    ///
    /// SwiftPM builds every product of a configuration into one directory (`.build/debug`, a link to
    /// `.build/<triple>/debug`), and the test target depends on the worker target, so the worker is
    /// built before the tests run and sits next to the test bundle. Looked up, in order:
    /// 1. `AUTHHUB_REFRESH_WORKER`, for unusual layouts;
    /// 2. the directory of the running test binary and its parents up to three levels (Linux runs the
    ///    `.xctest` file itself from that directory; on macOS the binary is inside
    ///    `AuthHubPackageTests.xctest/Contents/MacOS`);
    /// 3. `.build/debug` and `.build/release` of the package, found by walking up from this source
    ///    file to the directory holding `Package.swift` (covers test runners living elsewhere, such
    ///    as Xcode's `xctest` tool).
    static func workerExecutable(filePath: String = #filePath) throws -> URL {
        let name = "AuthHubRefreshWorker"
        var candidates: [URL] = []
        if let override = ProcessInfo.processInfo.environment["AUTHHUB_REFRESH_WORKER"] {
            candidates.append(URL(fileURLWithPath: override))
        }
        if var directory = Bundle.main.executableURL?.deletingLastPathComponent() {
            for _ in 0...3 {
                candidates.append(directory.appendingPathComponent(name))
                directory = directory.deletingLastPathComponent()
            }
        }
        var directory = URL(fileURLWithPath: filePath).deletingLastPathComponent()
        while directory.path != "/" {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path) {
                candidates.append(directory.appendingPathComponent(".build/debug/\(name)"))
                candidates.append(directory.appendingPathComponent(".build/release/\(name)"))
                break
            }
            directory = directory.deletingLastPathComponent()
        }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw WorkerNotFound(searched: candidates.map(\.path))
        }
        return found
    }

    struct WorkerNotFound: Error, CustomStringConvertible {
        var searched: [String]
        var description: String {
            "AuthHubRefreshWorker not found (run `swift build --build-tests`); searched: \(searched.joined(separator: ", "))"
        }
    }
}

/// The token endpoint's state: counts requests and rotates the refresh token.
private actor TokenEndpoint {
    private(set) var requests = 0
    private(set) var rejected = 0
    private var validRefreshToken: String
    private var generation = 0

    init(initialRefreshToken: String) { validRefreshToken = initialRefreshToken }

    func arrived() { requests += 1 }

    /// The status and JSON body answering a refresh-token grant.
    func exchange(grantType: String?, refreshToken: String?) -> (Int, String) {
        guard grantType == "refresh_token", let refreshToken, refreshToken == validRefreshToken else {
            rejected += 1
            return (400, #"{"error":"invalid_grant","error_description":"Unknown or already used refresh token."}"#)
        }
        generation += 1
        validRefreshToken = "rt-\(generation)"
        return (200, #"{"access_token":"at-\#(generation)","refresh_token":"rt-\#(generation)","token_type":"Bearer","expires_in":3600}"#)
    }
}

/// A Hummingbird server on 127.0.0.1 with an ephemeral port serving `POST /token`.
private struct TestServer {
    let port: Int
    private let task: Task<Void, any Error>

    static func start(_ tokens: TokenEndpoint) async throws -> TestServer {
        let router = Router()
        router.post("token") { request, _ -> Response in
            var request = request
            await tokens.arrived()
            var body = try await request.collectBody(upTo: 64 * 1024)
            let form = Dictionary(FormEncoding.decode(body.readString(length: body.readableBytes) ?? ""),
                                  uniquingKeysWith: { _, last in last })
            // Server latency (not test synchronisation): keeps a request in flight long enough that
            // two unsynchronised refreshers would overlap.
            try await Task.sleep(for: .milliseconds(300))
            let (status, json) = await tokens.exchange(grantType: form["grant_type"], refreshToken: form["refresh_token"])
            return Response(status: .init(code: status), headers: [.contentType: "application/json"],
                            body: .init(byteBuffer: ByteBuffer(string: json)))
        }
        let (ports, portContinuation) = AsyncStream<Int?>.makeStream()
        var logger = Logger(label: "authhub.tests.token-server")
        logger.logLevel = .critical  // cancelling the server at the end logs a benign error
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in
                                  portContinuation.yield(channel.localAddress?.port)
                                  portContinuation.finish()
                              }, logger: logger)
        let task = Task { try await app.run() }
        var iterator = ports.makeAsyncIterator()
        guard let bound = await iterator.next(), let port = bound else {
            task.cancel()
            throw ServerDidNotStart()
        }
        return TestServer(port: port, task: task)
    }

    func stop() { task.cancel() }

    struct ServerDidNotStart: Error {}
}

/// A child process whose standard output arrives line by line.
///
/// Used from one task only (not `Sendable`); the pipe readers run on dispatch threads and hand over
/// lines through an `AsyncStream`.
private final class WorkerProcess {
    private let process: Process
    private let input: FileHandle
    private var lines: AsyncStream<String>.Iterator
    private let errors = Mutex(Data())
    private var exit: AsyncStream<Int32>.Iterator

    init(executable: URL, arguments: [String], environment: [String: String]) throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr

        let (lineStream, lineContinuation) = AsyncStream<String>.makeStream()
        let (exitStream, exitContinuation) = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { finished in
            exitContinuation.yield(finished.terminationStatus)
            exitContinuation.finish()
        }
        try process.run()

        self.process = process
        self.input = stdin.fileHandleForWriting
        self.lines = lineStream.makeAsyncIterator()
        self.exit = exitStream.makeAsyncIterator()

        // Blocking pipe reads run on threads of their own: not on the cooperative pool, and not on
        // Dispatch's global queue either, whose width is the CPU count (blocked readers starve it).
        let output = stdout.fileHandleForReading
        Thread.detachNewThread {
            var buffer = Data()
            while true {
                let chunk = output.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
                while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    lineContinuation.yield(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
                    buffer = Data(buffer[buffer.index(after: newline)...])
                }
            }
            if !buffer.isEmpty { lineContinuation.yield(String(decoding: buffer, as: UTF8.self)) }
            lineContinuation.finish()
        }
        let errorOutput = stderr.fileHandleForReading
        let errors = self.errors
        Thread.detachNewThread {
            while true {
                let chunk = errorOutput.availableData
                if chunk.isEmpty { break }
                errors.withLock { $0.append(chunk) }
            }
        }
    }

    /// The next line of standard output, or nil once the process closed it.
    func nextLine() async -> String? {
        await lines.next()
    }

    /// Writes a line to the process's standard input.
    func send(_ line: String) {
        input.write(Data((line + "\n").utf8))
    }

    /// Waits for the process to exit and returns its status.
    func exitStatus() async -> Int32 {
        await exit.next() ?? -1
    }

    /// What the process wrote to standard error so far.
    var standardError: String { errors.withLock { String(decoding: $0, as: UTF8.self) } }

    func terminate() {
        if process.isRunning { process.terminate() }
    }
}
