import AuthHub
import AuthHubTesting
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
        let workers = try (0..<2).map { _ in try ChildProcess(executable: worker, arguments: arguments, environment: environment) }
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

    static func workerExecutable(filePath: String = #filePath) throws -> URL {
        try ChildProcess.packageExecutable("AuthHubRefreshWorker", filePath: filePath)
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
