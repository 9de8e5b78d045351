import AuthHub
import Foundation
#if canImport(Glibc)
import Glibc
#endif

// Test support for this package's own tests (package access: not part of the public kit).

/// A child process whose standard output arrives line by line.
///
/// Used from one task only (not `Sendable`); the pipe readers run on threads of their own and hand
/// over lines through an `AsyncStream`.
package final class ChildProcess {
    private let process: SpawnedProcess
    private var lines: AsyncStream<String>.Iterator
    private let errors = Mutex(Data())

    package init(executable: URL, arguments: [String], environment: [String: String]) throws {
        let process = try SpawnedProcess(executable, arguments, environment: environment, input: .pipe)
        let (lineStream, lineContinuation) = AsyncStream<String>.makeStream()
        self.process = process
        self.lines = lineStream.makeAsyncIterator()

        // Blocking pipe reads run on threads of their own: not on the cooperative pool, and not on
        // Dispatch's global queue either, whose width is the CPU count (blocked readers starve it).
        // Both are pipes (asked for above).
        let output = process.output!, errorOutput = process.errorOutput!
        Thread.detachNewThread {
            var buffer = Data()
            while true {
                let chunk = PipeReader.readChunk(output)
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
        let errors = self.errors
        Thread.detachNewThread {
            while true {
                let chunk = PipeReader.readChunk(errorOutput)
                if chunk.isEmpty { break }
                errors.withLock { $0.append(chunk) }
            }
        }
    }

    /// The next line of standard output, or nil once the process closed it.
    package func nextLine() async -> String? {
        await lines.next()
    }

    /// Writes a line to the process's standard input.
    package func send(_ line: String) {
        guard let input = process.input else { return }
        try? input.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Waits for the process to exit and returns its status.
    package func exitStatus() async -> Int32 {
        await process.exit().status
    }

    /// What the process wrote to standard error so far.
    package var standardError: String { errors.withLock { String(decoding: $0, as: UTF8.self) } }

    /// The process id.
    package var pid: Int32 { process.pid }

    /// Sends SIGKILL (no chance to clean up: the crash a replica can always suffer).
    package func killNow() {
        process.send(SIGKILL)
    }

    package func terminate() {
        process.terminate()
    }

    /// An executable product of this package (`AuthHubRefreshWorker`, `authhub`), for tests that run it.
    ///
    /// SwiftPM builds every product of a configuration into one directory (`.build/debug`, a link to
    /// `.build/<triple>/debug`), and a test target that runs one depends on its target, so it is
    /// built before the tests run and sits next to the test bundle. Looked up, in order:
    /// 1. `AUTHHUB_REFRESH_WORKER` (for the worker), for unusual layouts;
    /// 2. the directory of the running test binary and its parents up to three levels (Linux runs the
    ///    `.xctest` file itself from that directory; on macOS the binary is inside
    ///    `AuthHubPackageTests.xctest/Contents/MacOS`);
    /// 3. `.build/debug` and `.build/release` of the package, found by walking up from this source
    ///    file to the directory holding `Package.swift` (covers test runners living elsewhere, such
    ///    as Xcode's `xctest` tool).
    package static func packageExecutable(_ name: String, filePath: String = #filePath) throws -> URL {
        var candidates: [URL] = []
        if name == "AuthHubRefreshWorker", let override = ProcessInfo.processInfo.environment["AUTHHUB_REFRESH_WORKER"] {
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
            throw ExecutableNotFound(name: name, searched: candidates.map(\.path))
        }
        return found
    }

    package struct ExecutableNotFound: Error, CustomStringConvertible {
        package var name: String
        package var searched: [String]
        package var description: String {
            "\(name) not found (run `swift build --build-tests`); searched: \(searched.joined(separator: ", "))"
        }
    }
}
