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
        let process = Process()
        process.executableURL = try url()
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        var env = environment
        env["PATH"] = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        process.environment = env
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = input
        try process.run()
        if let stdin {
            // The child may stop reading early (a refused input): a broken pipe is then expected, not fatal.
            signal(SIGPIPE, SIG_IGN)
            try? input.fileHandleForWriting.write(contentsOf: Data(stdin.utf8))
        }
        try? input.fileHandleForWriting.close()
        // Read both pipes to the end, at the same time, before waiting: reading one after the other
        // deadlocks once the child fills the second pipe's buffer (64 KiB of trace logs) while the
        // first is still open.
        let errBox = Mutex(Data())
        let errDone = DispatchSemaphore(value: 0)
        let errHandle = err.fileHandleForReading
        Thread.detachNewThread {
            let data = PipeReader.readAll(errHandle)
            errBox.withLock { $0 = data }
            errDone.signal()
        }
        let outData = PipeReader.readAll(out.fileHandleForReading)
        errDone.wait()
        let errData = errBox.withLock { $0 }
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData, as: UTF8.self))
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
