import AuthHub
import Foundation
import MallocInterposerSwift
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

// MARK: - Options

struct BenchOptions: Sendable {
    var json = false
    var quick = false
    var filters: [String] = []
    var authhubPath: String?
    var workerPath: String?
    /// A Python with PyJWT and joserfc (Benchmarks/run makes a virtual environment of its own).
    var pythonPath: String?

    static func parse(_ arguments: [String]) -> BenchOptions {
        var options = BenchOptions()
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--json": options.json = true
            case "--quick": options.quick = true
            case "--filter":
                index += 1
                if index < arguments.count { options.filters += arguments[index].split(separator: ",").map(String.init) }
            case "--authhub":
                index += 1
                if index < arguments.count { options.authhubPath = arguments[index] }
            case "--worker":
                index += 1
                if index < arguments.count { options.workerPath = arguments[index] }
            case "--python":
                index += 1
                if index < arguments.count { options.pythonPath = arguments[index] }
            case "-h", "--help":
                print("""
                    usage: authhub-bench [--quick] [--json] [--filter SUBSTRING[,SUBSTRING…]] [--authhub PATH]
                      --quick     fewer samples and smaller batches (a smoke run; figures are noisy)
                      --json      print the rows as JSON instead of the table
                      --filter    run only benchmarks whose name contains one of the substrings
                                  (one ending in `$` must equal the whole name)
                      --authhub   the release `authhub` binary, for the CLI rows (skipped without it)
                      --worker    the release `AuthHubRefreshWorker` binary, for pg.replicas.4x250
                      --python    a Python with PyJWT and joserfc, for the peers.* rows (skipped without it)
                    """)
                exit(0)
            default:
                FileHandle.standardError.write(Data("authhub-bench: unknown argument \(argument)\n".utf8))
                exit(2)
            }
            index += 1
        }
        return options
    }

    func wants(_ name: String) -> Bool {
        // A filter ending in `$` names one benchmark exactly (`web.vapor.session$`: not its layers).
        filters.isEmpty || filters.contains { $0.hasSuffix("$") ? name == $0.dropLast() : name.contains($0) }
    }

    /// Samples per benchmark (each sample is one baseline batch and one subject batch).
    var samples: Int { quick ? 5 : 15 }

    /// Scales a batch size down for `--quick`.
    func batch(_ full: Int) -> Int { quick ? max(1, full / 10) : full }
}

// MARK: - Clocks

enum Clock {
    static func monotonicNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    static func threadCPUNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Wall nanoseconds per operation of `ops` operations done by a synchronous `body`.
    static func perOpSync(_ ops: Int, _ body: () throws -> Void) rethrows -> Double {
        let start = monotonicNanoseconds()
        try body()
        return Double(monotonicNanoseconds() - start) / Double(ops)
    }

    /// Wall nanoseconds per operation of `ops` operations done by `body`.
    static func perOp(_ ops: Int, _ body: () async throws -> Void) async rethrows -> Double {
        let start = monotonicNanoseconds()
        try await body()
        return Double(monotonicNanoseconds() - start) / Double(ops)
    }
}

// MARK: - Allocation counting

enum Allocations {
    /// Whether the interposer is preloaded and counting (checked once with a sanity allocation).
    nonisolated(unsafe) static var available = false

    nonisolated(unsafe) static var sink: UnsafeMutableRawPointer?

    /// One heap allocation through the Swift runtime (opaque to the optimizer, which may delete a
    /// plain malloc/free pair).
    @inline(never)
    static func sanityAllocation() {
        let pointer = UnsafeMutableRawPointer.allocate(byteCount: 64 + Int(getpid() % 7), alignment: 16)
        sink = pointer
        pointer.deallocate()
    }

    static func check() {
        guard ProcessInfo.processInfo.environment["LD_PRELOAD"]?.contains("libMallocInterposerSwift") == true else {
            available = false
            return
        }
        MallocInterposerSwift.reset()
        MallocInterposerSwift.hook()
        sanityAllocation()
        MallocInterposerSwift.unhook()
        available = MallocInterposerSwift.getStatistics().mallocCount >= 1
        MallocInterposerSwift.reset()
    }

    /// Allocations (malloc, calloc, realloc, posix_memalign calls) per operation while `body` does
    /// `ops` operations; nil when counting is unavailable.
    static func perOp(_ ops: Int, _ body: () async throws -> Void) async rethrows -> Double? {
        guard available else { return nil }
        MallocInterposerSwift.reset()
        MallocInterposerSwift.hook()
        try await body()
        MallocInterposerSwift.unhook()
        let count = MallocInterposerSwift.getStatistics().mallocCount
        MallocInterposerSwift.reset()
        return Double(count) / Double(ops)
    }

    /// Re-executes this program with the interposer preloaded, unless it already is (or the library
    /// is not beside the executable, in which case counts are reported as unavailable).
    static func reexecWithInterposerIfNeeded() {
        let environment = ProcessInfo.processInfo.environment
        if environment["AUTHHUB_BENCH_REEXEC"] != nil { return }
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return }
        let library = URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("libMallocInterposerSwift.so").path
        guard FileManager.default.fileExists(atPath: library) else { return }
        let preload = [environment["LD_PRELOAD"], library].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ":")
        setenv("LD_PRELOAD", preload, 1)
        setenv("AUTHHUB_BENCH_REEXEC", "1", 1)
        execv(executable, CommandLine.unsafeArgv)
        // execv returned: it failed; carry on without counts.
        unsetenv("LD_PRELOAD")
    }
}

// MARK: - Statistics

struct Samples: Sendable {
    var values: [Double]
    var sorted: [Double] { values.sorted() }
    var median: Double {
        let s = sorted
        guard !s.isEmpty else { return .nan }
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
    var min: Double { values.min() ?? .nan }
    var max: Double { values.max() ?? .nan }
}

struct PairedResult: Sendable {
    var subject: Samples
    var baseline: Samples
    /// subject / baseline of each pair.
    var ratios: Samples
}

/// Runs `samples` pairs of (baseline batch, subject batch), alternating which goes first, after
/// one untimed warm-up of each. Each closure returns its batch's cost per operation.
func paired(samples: Int, baseline: () async throws -> Double, subject: () async throws -> Double) async rethrows -> PairedResult {
    _ = try await baseline()
    _ = try await subject()
    var b: [Double] = []
    var s: [Double] = []
    var r: [Double] = []
    for i in 0..<samples {
        let bv: Double
        let sv: Double
        if i % 2 == 0 {
            bv = try await baseline()
            sv = try await subject()
        } else {
            sv = try await subject()
            bv = try await baseline()
        }
        b.append(bv)
        s.append(sv)
        r.append(sv / bv)
    }
    return PairedResult(subject: Samples(values: s), baseline: Samples(values: b), ratios: Samples(values: r))
}

// MARK: - Rows

struct Row: Encodable, Sendable {
    var name: String
    var median: Double?
    var min: Double?
    var max: Double?
    var unit: String
    /// Operations per second at the median (for per-operation units).
    var perSecond: Double?
    var baseline: String
    var baselineMedian: Double?
    /// Median of the per-sample subject/baseline ratios.
    var ratio: Double?
    var target: String
    var verdict: String
    var allocsPerOp: Double?
    var baselineAllocsPerOp: Double?
    var note: String = ""

    static func skipped(_ name: String, target: String, reason: String) -> Row {
        Row(name: name, unit: "", baseline: "", target: target, verdict: "skipped", note: reason)
    }
}

func timeRow(_ name: String, _ result: PairedResult, unit: String = "ns/op", baseline: String, targetRatio: Double,
             allocs: Double? = nil, baselineAllocs: Double? = nil, extraCheck: Bool = true, note: String = "") -> Row {
    let ratio = result.ratios.median
    let scale: Double = unit == "µs/op" ? 1_000 : (unit == "ms/op" ? 1_000_000 : 1)
    let verdict = !extraCheck ? "MISS" : (ratio <= targetRatio ? "pass" : "MISS")
    return Row(name: name, median: result.subject.median / scale, min: result.subject.min / scale, max: result.subject.max / scale,
               unit: unit, perSecond: 1e9 / result.subject.median, baseline: baseline, baselineMedian: result.baseline.median / scale,
               ratio: ratio, target: "≤ \(format(targetRatio))×", verdict: verdict, allocsPerOp: allocs,
               baselineAllocsPerOp: baselineAllocs, note: note)
}

func format(_ value: Double?) -> String {
    guard let value, value.isFinite else { return "–" }
    let magnitude = Swift.abs(value)
    if magnitude >= 1_000_000 { return String(format: "%.3g", value) }
    if magnitude >= 1_000 { return String(format: "%.0f", value) }
    if magnitude >= 100 { return String(format: "%.1f", value) }
    if magnitude >= 10 { return String(format: "%.2f", value) }
    return String(format: "%.2f", value)
}

func formatRate(_ value: Double?) -> String {
    guard let value, value.isFinite else { return "–" }
    if value >= 1_000_000 { return String(format: "%.2fM", value / 1_000_000) }
    if value >= 1_000 { return String(format: "%.1fk", value / 1_000) }
    return String(format: "%.1f", value)
}

func printTable(_ rows: [Row], allocationsAvailable: Bool) {
    let header = ["name", "median", "min", "max", "unit", "ops/s", "baseline", "baseline median", "ratio", "target", "verdict",
                  "allocs/op", "baseline allocs/op"]
    var lines: [[String]] = []
    for row in rows {
        let allocText: (Double?) -> String = { value in
            guard let value else { return allocationsAvailable ? "–" : "n/a" }
            return String(format: "%.1f", value)
        }
        lines.append([row.name, format(row.median), format(row.min), format(row.max), row.unit, formatRate(row.perSecond),
                      row.baseline, format(row.baselineMedian), row.ratio.map { String(format: "%.2f×", $0) } ?? "–", row.target,
                      row.verdict, allocText(row.allocsPerOp), allocText(row.baselineAllocsPerOp)])
    }
    print("| " + header.joined(separator: " | ") + " |")
    print("|" + header.map { _ in "---" }.joined(separator: "|") + "|")
    for line in lines { print("| " + line.joined(separator: " | ") + " |") }
    let notes = rows.filter { !$0.note.isEmpty }
    if !notes.isEmpty {
        print("")
        for row in notes { print("- \(row.name): \(row.note)") }
    }
    if !allocationsAvailable { print("\nallocation counts unavailable (libMallocInterposerSwift.so not preloaded or not counting)") }
}

// MARK: - Transports

/// Counts requests, optionally forwarding them; with no inner transport every request fails.
final class CountingTransport: HTTPTransport {
    /// A request as it was sent: head, body and URL.
    struct Sent: Sendable {
        var head: HTTPRequest
        var body: Data?
        var url: URL
    }

    let inner: (any HTTPTransport)?
    private let state = Mutex<(total: Int, matching: Int, last: Sent?)>((0, 0, nil))
    let matchPath: String

    init(inner: (any HTTPTransport)?, countingPathsContaining matchPath: String = "") {
        self.inner = inner
        self.matchPath = matchPath
    }

    var total: Int { state.withLock { $0.total } }
    var matching: Int { state.withLock { $0.matching } }
    /// The last request sent.
    var last: Sent? { state.withLock { $0.last } }

    func reset() { state.withLock { $0 = (0, 0, nil) } }

    func send(_ request: HTTPRequest, body: Data?, timeout: Duration?) async throws -> HTTPReply {
        let url = request.url
        let matches = !matchPath.isEmpty && (url?.absoluteString.contains(matchPath) ?? false)
        state.withLock {
            $0.total += 1
            $0.last = url.map { Sent(head: request, body: body, url: $0) }
            if matches { $0.matching += 1 }
        }
        guard let inner else { throw TransportError(.connection, "the benchmark forbids network requests") }
        return try await inner.send(request, body: body, timeout: timeout)
    }
}

/// Serves one fixed document for every request (a JWKS), counting requests.
final class FixedDocumentTransport: HTTPTransport {
    let body: Data
    let counter = Mutex(0)
    init(body: Data) { self.body = body }
    func send(_ request: HTTPRequest, body: Data?, timeout: Duration?) async throws -> HTTPReply {
        counter.withLock { $0 += 1 }
        return HTTPReply(status: 200, headerFields: [.contentType: "application/json", .cacheControl: "public, max-age=86400"], body: self.body)
    }
}

// MARK: - Processes

enum Spawn {
    /// The environment for child processes: ours without the interposer.
    static func childEnvironment() -> [String] {
        ProcessInfo.processInfo.environment.filter { $0.key != "LD_PRELOAD" && $0.key != "AUTHHUB_BENCH_REEXEC" }
            .map { "\($0.key)=\($0.value)" }
    }

    /// Runs `arguments` (arguments[0] is the path) with stdin from /dev/null, stdout to `stdout`
    /// (or /dev/null) and stderr to /dev/null; returns the exit status.
    @discardableResult
    static func run(_ arguments: [String], stdout: String? = nil, environment: [String]? = nil) -> Int32 {
        guard let pid = spawn(arguments, stdout: stdout, environment: environment) else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status >> 8) & 0xff
    }

    /// ``run(_:stdout:environment:)`` without blocking a thread while the child runs: its exit is
    /// polled every 10 ms from a task that sleeps in between, so that a server of this process keeps
    /// every thread of the concurrency pool while the child (a load generator) talks to it.
    static func runSuspending(_ arguments: [String], stdout: String? = nil, environment: [String]? = nil) async -> Int32 {
        guard let pid = spawn(arguments, stdout: stdout, environment: environment) else { return -1 }
        var status: Int32 = 0
        while true {
            let done = waitpid(pid, &status, WNOHANG)
            if done == pid { return (status >> 8) & 0xff }
            if done < 0 && errno != EINTR { return -1 }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Starts `arguments` as ``run(_:stdout:environment:)`` does; nil when it cannot be started.
    static func spawn(_ arguments: [String], stdout: String? = nil, environment: [String]? = nil) -> pid_t? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let env = environment ?? childEnvironment()
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = env.map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, arguments[0], &actions, nil, &argv, &envp)
        return rc == 0 ? pid : nil
    }

    static func which(_ name: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(dir)/\(name)"
            if access(path, X_OK) == 0 { return path }
        }
        return nil
    }
}

/// Unpadded base64url of some bytes, for the tokens and keys this package builds (AuthHub's own
/// encoder is internal to the AuthHub package).
func base64url<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
    Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}
