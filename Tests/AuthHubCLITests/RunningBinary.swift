import AuthHub
import Foundation

/// The `authhub` executable running in the background, for commands that talk back and forth
/// (a prompt to answer, a URL to open): its output arrives as it is written.
final class RunningBinary: Sendable {
    private let process: Process
    private let input: Pipe
    private let output = Mutex("")
    private let errors = Mutex("")
    /// How many of the two output pipes have reached their end (the process closed them).
    private let closedPipes = Mutex(0)
    private let changes: AsyncStream<Void>
    private let changed: AsyncStream<Void>.Continuation

    init(_ arguments: [String], in directory: URL, environment: [String: String] = [:]) throws {
        process = Process()
        process.executableURL = try AuthHubBinary.url()
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var env = environment
        env["PATH"] = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        process.environment = env
        input = Pipe()
        let out = Pipe(), err = Pipe()
        process.standardInput = input
        process.standardOutput = out
        process.standardError = err
        (changes, changed) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        out.fileHandleForReading.readabilityHandler = { [output, closedPipes, changed] handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
                closedPipes.withLock { $0 += 1 }
            } else {
                output.withLock { $0 += String(decoding: data, as: UTF8.self) }
            }
            changed.yield()
        }
        err.fileHandleForReading.readabilityHandler = { [errors, closedPipes, changed] handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
                closedPipes.withLock { $0 += 1 }
            } else {
                errors.withLock { $0 += String(decoding: data, as: UTF8.self) }
            }
            changed.yield()
        }
        try process.run()
    }

    var stdout: String { output.withLock { $0 } }
    var stderr: String { errors.withLock { $0 } }
    var isRunning: Bool { process.isRunning }

    /// Waits until `condition` holds for (stdout, stderr), or fails after `seconds`.
    func wait(seconds: Double = 30, until condition: @escaping @Sendable (String, String) -> Bool) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in self.changes where condition(self.stdout, self.stderr) { return }
                if !condition(self.stdout, self.stderr) { throw CLITestError("the process ended first: \(self.stderr)") }
            }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                throw CLITestError("timed out; stdout: \(self.stdout) stderr: \(self.stderr)")
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    /// Writes a line to the process's standard input.
    func send(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// Waits for the process to exit and for everything it wrote to be read (both pipes at their
    /// end, at most 10 s more: a child it left behind may hold them open), then returns its status.
    /// Without the second wait the last line written just before exit could still be unread.
    func finish() async -> Int32 {
        let process = self.process
        let status: Int32 = (try? await onOwnThread {
            process.waitUntilExit()
            return process.terminationStatus
        }) ?? -1
        let deadline = ContinuousClock.now + .seconds(10)
        while closedPipes.withLock({ $0 }) < 2, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return status
    }
}
