import AuthHub
import AuthHubTesting
import Foundation

/// The `authhub` executable running in the background, for commands that talk back and forth
/// (a prompt to answer, a URL to open): its output arrives as it is written.
final class RunningBinary: Sendable {
    private let process: SpawnedProcess
    private let output = Mutex("")
    private let errors = Mutex("")
    /// How many of the two output pipes have reached their end (the process closed them).
    private let closedPipes = Mutex(0)
    private let changes: AsyncStream<Void>
    private let changed: AsyncStream<Void>.Continuation

    init(_ arguments: [String], in directory: URL, environment: [String: String] = [:]) throws {
        var env = environment
        env["PATH"] = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        process = try SpawnedProcess(try AuthHubBinary.url(), arguments, environment: env, directory: directory, input: .pipe)
        let out = process.output!, err = process.errorOutput!
        (changes, changed) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        out.readabilityHandler = { [output, closedPipes, changed] handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
                closedPipes.withLock { $0 += 1 }
            } else {
                output.withLock { $0 += String(decoding: data, as: UTF8.self) }
            }
            changed.yield()
        }
        err.readabilityHandler = { [errors, closedPipes, changed] handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
                closedPipes.withLock { $0 += 1 }
            } else {
                errors.withLock { $0 += String(decoding: data, as: UTF8.self) }
            }
            changed.yield()
        }
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
        try? process.input?.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Waits for the process to exit and for everything it wrote to be read (both pipes at their
    /// end, at most 10 s more: a child it left behind may hold them open), then returns its status.
    /// Without the second wait the last line written just before exit could still be unread.
    func finish() async -> Int32 {
        let status = await process.exit().status
        let deadline = ContinuousClock.now + .seconds(10)
        while closedPipes.withLock({ $0 }) < 2, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return status
    }
}
