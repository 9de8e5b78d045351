import AuthHub
import AuthHubAuth0
import AuthHubEmulator
import AuthHubPostgres
import Crypto
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// The PostgreSQL store's rows (issue 19), on the server in `AUTHHUB_TEST_POSTGRES_URL` (`Benchmarks/run`
/// starts a throwaway one with `scripts/postgres-dev` when none is given):
/// - `pg.session.cached.1`: `hub.session()` on a PostgreSQL store, the session fresh in the
///   manager's cache, against the actor-dictionary read of the other cached rows;
/// - `pg.save+load`: the store's compare-and-swap save and its load of one session, against the same
///   two statements (the same SQL, the same sealed bytes, the same notification) sent directly with
///   postgres-nio's `PostgresClient` — the floor: what remains is sealing, encoding and the store's
///   checks;
/// - `pg.replicas.4x250`: four `AuthHubRefreshWorker` processes of 250 callers each on one expired
///   session, released together, against one process renewing it alone; the emulator's Auth0 tenant
///   counts the refresh grants (the verdict needs exactly one per round).
enum PostgresBenchmarks {
    static let names = ["pg.session.cached.1", "pg.save+load", "pg.replicas.4x250"]

    static func run(_ options: BenchOptions) async throws -> [Row] {
        let wanted = names.filter(options.wants)
        guard !wanted.isEmpty else { return [] }
        guard let url = ProcessInfo.processInfo.environment["AUTHHUB_TEST_POSTGRES_URL"], !url.isEmpty else {
            return wanted.map { Row.skipped($0, target: "", reason: "no PostgreSQL (AUTHHUB_TEST_POSTGRES_URL unset; Benchmarks/run starts one when PostgreSQL is installed)") }
        }
        let table = "bench_\(getpid())"
        let storeKey = Secret(Data(SystemRandom().bytes(32)).base64EncodedString())
        var logger = Logger(label: "authhub.bench.postgres")
        logger.logLevel = .error
        let store = try PostgresSessionStore(url: Secret(url), table: table, encryptionKey: storeKey, logger: logger)
        let raw = try RawPostgres(url: url, logger: logger)
        var rows: [Row] = []
        do {
            if options.wants("pg.session.cached.1") { rows.append(try await cachedSession(store, options)) }
            if options.wants("pg.save+load") { rows.append(try await saveLoad(store, raw: raw, table: table, options)) }
            if options.wants("pg.replicas.4x250") {
                if let worker = options.workerPath {
                    rows.append(try await replicas(url: url, table: table, storeKey: storeKey, store: store, worker: worker, options))
                } else {
                    rows.append(.skipped("pg.replicas.4x250", target: "1 refresh",
                                         reason: "no --worker (Benchmarks/run passes the release AuthHubRefreshWorker)"))
                }
            }
        } catch {
            rows.append(.skipped("pg.*", target: "", reason: "failed: \(error)"))
        }
        try? await store.dropTable()
        await store.shutdown()
        raw.stop()
        return rows
    }

    // MARK: Cached session

    static func cachedSession(_ store: PostgresSessionStore, _ options: BenchOptions) async throws -> Row {
        let environment = try ConfigLoader(registry: .builtIn, environmentVariables: [:])
            .load(data: Data(SessionBenchmarks.configuration.utf8), environment: "bench", file: "<bench>")
        let hub = try AuthHub(environment: environment, registry: .builtIn, context: ProviderContext(transport: CountingTransport(inner: nil)),
                              store: store)
        let stored = try await hub.manager().store(SessionBenchmarks.validSession(provider: "auth0"))
        let plain = PlainSessionDictionary()
        await plain.set(stored, for: stored.key)
        let key = stored.key
        let ops = options.batch(20_000)
        let result = try await paired(samples: options.samples,
                                      baseline: { try await Clock.perOp(ops) {
                                          for _ in 0..<ops { guard await plain.get(key) != nil else { throw BenchFailure("no session") } }
                                      } },
                                      subject: { try await Clock.perOp(ops) { for _ in 0..<ops { _ = try await hub.session() } } })
        return timeRow("pg.session.cached.1", result, baseline: "actor dictionary read (1 caller)", targetRatio: 3)
    }

    // MARK: Save and load

    static func saveLoad(_ store: PostgresSessionStore, raw: RawPostgres, table: String, _ options: BenchOptions) async throws -> Row {
        let storeKey = SessionKey(provider: "bench", account: "store")
        let rawKey = SessionKey(provider: "bench", account: "raw")
        let session = SessionBenchmarks.validSession(provider: "bench")
        let first = try await store.save(session, for: storeKey, expectedVersion: nil)
        _ = try await store.save(session, for: rawKey, expectedVersion: nil)
        // The raw client writes the bytes the store wrote (a sealed session of the same size).
        let sealed = try await raw.client.query("""
            SELECT data FROM \(unescaped: "\"\(table)\"") WHERE provider = \(ByteBuffer(string: "bench")) AND account = \(ByteBuffer(string: "raw"))
            """, logger: raw.logger).collect().map { try $0.decode(ByteBuffer.self) }.first ?? ByteBuffer()
        let storeVersion = Box(first.version)
        let rawVersion = Box(Int64(1))
        let channel = "authhub_changes_\(table)"
        let notice = "authhub1;bench;r;YmVuY2g;cmF3;"
        let ops = options.batch(200)
        let result = try await paired(samples: options.samples, baseline: {
            try await Clock.perOp(ops) { for _ in 0..<ops {
                let expected = rawVersion.value
                let written = try await raw.client.query("""
                    WITH w AS (
                        UPDATE \(unescaped: "\"\(table)\"") SET data = \(sealed), version = version + 1, updated_at = now()
                        WHERE provider = \(ByteBuffer(string: "bench")) AND account = \(ByteBuffer(string: "raw")) AND version = \(expected)
                        RETURNING version)
                    SELECT w.version FROM w CROSS JOIN LATERAL (SELECT pg_notify(\(channel), \(notice) || w.version::text)) AS n
                    """, logger: raw.logger).collect().map { try $0.decode(Int64.self) }
                guard let version = written.first else { throw BenchFailure("raw update changed no row") }
                rawVersion.value = version
                let read = try await raw.client.query("""
                    SELECT version, data FROM \(unescaped: "\"\(table)\"")
                    WHERE provider = \(ByteBuffer(string: "bench")) AND account = \(ByteBuffer(string: "raw"))
                    """, logger: raw.logger).collect().map { try $0.decode((Int64, ByteBuffer).self) }
                guard read.count == 1 else { throw BenchFailure("raw select") }
            } }
        }, subject: {
            try await Clock.perOp(ops) { for _ in 0..<ops {
                let saved = try await store.save(session, for: storeKey, expectedVersion: storeVersion.value)
                storeVersion.value = saved.version
                guard try await store.load(storeKey) != nil else { throw BenchFailure("store load") }
            } }
        })
        return timeRow("pg.save+load", result, unit: "µs/op", baseline: "the same UPDATE … RETURNING (with its pg_notify) and SELECT through PostgresClient",
                       targetRatio: 1.3)
    }

    // MARK: Replicas

    static func replicas(url: String, table: String, storeKey: Secret<String>, store: PostgresSessionStore, worker: String,
                         _ options: BenchOptions) async throws -> Row {
        let emulator = try await Emulator.start()
        defer { Task { await emulator.stop() } }
        let wire = URLSessionTransport(defaultTimeout: .seconds(10))
        let json: HTTPFields = [.contentType: "application/json"]
        _ = try await wire.send(.post, emulator.url("/auth0/__emulator/clients"), headerFields: json,
                                body: Data(#"{"client_id":"authhub-bench","refresh_token_leeway":30}"#.utf8))
        _ = try await wire.send(.post, emulator.url("/auth0/__emulator/users"), headerFields: json,
                                body: Data(#"{"email":"bench@example.com","password":"correct horse battery staple"}"#.utf8))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authhub-bench-replicas-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = """
            {"defaultEnvironment": "production", "environments": {"production": {"defaultProvider": "auth0",
              "sessionStore": {"type": "postgres", "url": "${DATABASE_URL}", "table": "\(table)", "encryptionKey": "${AUTHHUB_STORE_KEY}"},
              "providers": [{"id": "auth0", "type": "auth0", "domain": "\(emulator.url("/auth0").absoluteString)", "clientId": "authhub-bench"}]}}}
            """
        let configPath = directory.appendingPathComponent("providers.json").path
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["DATABASE_URL"] = url
        environment["AUTHHUB_STORE_KEY"] = storeKey.revealed()
        let loaded = try ConfigLoader(registry: ProviderRegistry([Auth0Plugin()]).registering(storeFactory: PostgresSessionStoreFactory()),
                                      environmentVariables: environment).load(data: Data(config.utf8))
        let hub = try AuthHub(environment: loaded, registry: .init([Auth0Plugin()]), context: ProviderContext(transport: wire), store: store)
        _ = try await hub.signIn(.password(identifier: "bench@example.com", password: Secret("correct horse battery staple")))
        let key = SessionKey(provider: "auth0")

        func expire() async throws {
            guard var session = try await store.load(key) else { throw BenchFailure("no session") }
            let version = session.version
            session.expiresAt = Date().addingTimeInterval(-60)
            _ = try await store.save(session, for: key, expectedVersion: version)
        }
        func grants() async throws -> Int {
            let reply = try await wire.send(.get, emulator.url("/auth0/__emulator/stats"))
            return try JSONValue.parse(reply.body)["refresh_grants"]?.intValue ?? -1
        }
        /// Releases `processes` workers of `callers` each at once; the wall time from release to the
        /// last result, and the refresh grants the tenant received meanwhile.
        func round(processes: Int, callers: Int) async throws -> (seconds: Double, refreshes: Int) {
            try await expire()
            let workers = try (0..<processes).map { _ in
                try LineProcess(worker, ["--config", configPath, "--callers", String(callers), "--wait-for-go"], environment: environment)
            }
            defer { workers.forEach { $0.terminate() } }
            for worker in workers {
                guard let ready = await worker.nextLine(), ready.contains("ready") else { throw BenchFailure("worker not ready: \(worker.errors)") }
            }
            let before = try await grants()
            let started = Clock.monotonicNanoseconds()
            for worker in workers { worker.send("go") }
            var prints: Set<String> = []
            for worker in workers {
                guard let line = await worker.nextLine(), let result = try? JSONValue.parse(Data(line.utf8)),
                      result["callers"]?.intValue == callers, let print = result["fingerprint"]?.stringValue else {
                    throw BenchFailure("worker failed: \(worker.errors)")
                }
                prints.insert(print)
            }
            let seconds = Double(Clock.monotonicNanoseconds() - started) / 1e9
            guard prints.count == 1 else { throw BenchFailure("the callers got \(prints.count) different sessions") }
            return (seconds, try await grants() - before)
        }

        let samples = options.quick ? 1 : 5
        var rounds: [Double] = [], singles: [Double] = [], ratios: [Double] = [], refreshCounts: [Int] = []
        for _ in 0..<samples {
            let single = try await round(processes: 1, callers: 1)
            let contended = try await round(processes: 4, callers: 250)
            singles.append(single.seconds * 1e9)
            rounds.append(contended.seconds * 1e9)
            ratios.append(contended.seconds / single.seconds)
            refreshCounts.append(contended.refreshes)
        }
        let result = PairedResult(subject: Samples(values: rounds), baseline: Samples(values: singles), ratios: Samples(values: ratios))
        let oneEach = refreshCounts.allSatisfy { $0 == 1 }
        var row = timeRow("pg.replicas.4x250", result, unit: "ms/op", baseline: "one process renewing alone (1 caller), from release to result",
                          targetRatio: .infinity, extraCheck: oneEach,
                          note: "refresh grants per round of 1,000 callers: \(refreshCounts.map(String.init).joined(separator: ", "))")
        row.target = "1 refresh per round"
        return row
    }
}

/// A PostgresClient of the benchmark's own (the floor of `pg.save+load`).
final class RawPostgres: Sendable {
    let client: PostgresClient
    let logger: Logger
    private let task: Task<Void, Never>

    init(url: String, logger: Logger) throws {
        guard let parts = URLComponents(string: url), let host = parts.host, let user = parts.user else {
            throw BenchFailure("cannot read AUTHHUB_TEST_POSTGRES_URL")
        }
        let database = String(parts.path.drop(while: { $0 == "/" }))
        let configuration = PostgresClient.Configuration(host: host, port: parts.port ?? 5432, username: user.removingPercentEncoding ?? user,
                                                         password: parts.password?.removingPercentEncoding, database: database.isEmpty ? nil : database,
                                                         tls: .disable)
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.logger = logger
        self.task = Task { await client.run() }
    }

    func stop() { task.cancel() }
}

/// A child process whose standard output is read line by line (on a thread of its own).
final class LineProcess: Sendable {
    private let process: Process
    private let input: FileHandle
    private let lines: Lines
    private let errorData = Box(Data())

    init(_ executable: String, _ arguments: [String], environment: [String: String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let (stream, continuation) = AsyncStream<String>.makeStream()
        self.process = process
        self.input = stdin.fileHandleForWriting
        self.lines = Lines(stream)
        let output = stdout.fileHandleForReading
        Thread.detachNewThread {
            var buffer = Data()
            while true {
                let chunk = output.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
                while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    continuation.yield(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
                    buffer = Data(buffer[buffer.index(after: newline)...])
                }
            }
            continuation.finish()
        }
        let errors = stderr.fileHandleForReading
        let errorData = errorData
        Thread.detachNewThread {
            while true {
                let chunk = errors.availableData
                if chunk.isEmpty { break }
                errorData.update { $0.append(chunk) }
            }
        }
    }

    /// The next line, or nil once the process closed its output.
    func nextLine() async -> String? { await lines.next() }

    func send(_ line: String) { input.write(Data((line + "\n").utf8)) }
    var errors: String { String(decoding: errorData.value, as: UTF8.self) }
    func terminate() { if process.isRunning { process.terminate() } }
}

/// One value behind a lock, shareable between tasks and threads.
final class Box<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>
    init(_ value: Value) { storage = Mutex(value) }
    var value: Value {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
    func update(_ change: (inout Value) -> Void) { storage.withLock { change(&$0) } }
}

/// The lines of a stream, taken one at a time.
actor Lines {
    private var iterator: AsyncStream<String>.Iterator
    init(_ stream: AsyncStream<String>) { iterator = stream.makeAsyncIterator() }
    /// Not reentrant: one caller at a time (each process's lines are read in order by one task).
    func next() async -> String? {
        var current = iterator
        let line = await current.next(isolation: self)
        iterator = current
        return line
    }
}
