import Foundation
import AuthHub
import AuthHubTesting
import Testing

/// Runs the built `authhub` executable, as a user would.
enum AuthHubBinary {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The executable next to the test bundle (`.build/<triple>/debug/authhub`), else under `.build/debug`.
    static func url() throws -> URL {
        var candidates: [URL] = []
        let argv0 = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        // argv[0] is the test runner inside (or next to) the build products directory.
        var directory = argv0.deletingLastPathComponent()
        for _ in 0..<4 {
            candidates.append(directory.appendingPathComponent("authhub"))
            directory = directory.deletingLastPathComponent()
        }
        candidates.append(Bundle.main.bundleURL.appendingPathComponent("authhub"))
        candidates.append(packageRoot.appendingPathComponent(".build/debug/authhub"))
        for candidate in candidates where FileManager.default.isExecutableFile(atPath: candidate.path) {
            return candidate
        }
        throw CLITestError("authhub executable not found; tried \(candidates.map(\.path))")
    }

    /// Runs `authhub arguments…` in `directory` with exactly `environment` (plus PATH).
    static func run(_ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:],
                    stdin: String? = nil) throws -> Result {
        var env = environment
        env["PATH"] = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        // An empty standard input rather than /dev/null when none is given: the CLI sees a pipe, as
        // when a script runs it.
        let result = try SpawnedProcess.run(try url(), arguments, environment: env, directory: directory,
                                            input: Data((stdin ?? "").utf8))
        return Result(status: result.status, stdout: result.standardOutput, stderr: result.standardError)
    }

    /// ``run(_:in:environment:stdin:)`` off Swift's cooperative thread pool, for tests that serve
    /// the binary from this process (an in-process emulator needs the pool while the binary runs).
    static func runDetached(_ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:],
                            stdin: String? = nil) async throws -> Result {
        // A thread of its own: blocking a dispatch worker would starve what else runs on the global
        // queues (URLSession's delegate queues among them) until libdispatch notices and adds threads.
        try await onOwnThread { try run(arguments, in: directory, environment: environment, stdin: stdin) }
    }

    /// A fresh temporary directory holding `providers.json` with `text`.
    static func directory(withConfig text: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authhub-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: directory.appendingPathComponent("providers.json"))
        return directory
    }
}

struct CLITestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Runs blocking `work` on a new thread and resumes with its result, so that neither Swift's cooperative
/// pool nor libdispatch's worker threads are held while it blocks.
func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
    }
}
