import AuthHubTesting
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The tests' process launcher: what the CLI, worker, interop and browser tests rely on.
struct SpawnedProcessTests {
    let shell = URL(fileURLWithPath: "/bin/sh")

    /// The reason it exists: the test process holds well over a thousand descriptors at its busiest
    /// (CI crashed in Foundation's `Process.run` at 1,355). With 1,500 more open — inheritable ones,
    /// not close-on-exec — a child still starts, and sees none of them: only its three standard ones
    /// (and the one `ls` opens to list the directory).
    @Test func startsWithManyDescriptorsOpenAndPassesNoneOfThem() throws {
        var opened: [Int32] = []
        defer { for fd in opened { close(fd) } }
        for _ in 0..<1_500 {
            let fd = open("/dev/null", O_RDONLY)
            try #require(fd >= 0)
            opened.append(fd)
        }
        for _ in 0..<3 {
            let run = try SpawnedProcess.run(shell, ["-c", "ls /proc/self/fd | wc -l"])
            #expect(run.termination == .exited(0))
            let count = Int(run.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
            #expect((3...4).contains(count), "the child saw \(count) descriptors")
        }
    }

    @Test func feedsInputReadsBothStreamsAndReportsTheExit() throws {
        let big = String(repeating: "0123456789abcdef", count: 16_384)  // 256 KiB: more than a pipe holds
        let run = try SpawnedProcess.run(shell, ["-c", "cat; echo oops >&2; exit 7"], input: Data(big.utf8))
        #expect(run.termination == .exited(7))
        #expect(run.standardOutput == big)
        #expect(run.standardError == "oops\n")

        let merged = try SpawnedProcess.run(shell, ["-c", "echo one; echo two >&2"], mergeErrors: true)
        #expect(merged.standardOutput == "one\ntwo\n")
        #expect(merged.stderr.isEmpty)
    }

    @Test func environmentAndDirectoryAreTheGivenOnes() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authhub-spawn-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try SpawnedProcess.run(shell, ["-c", "pwd; echo \"$ONLY_THIS\"; echo \"${HOME:-unset}\""],
                                         environment: ["ONLY_THIS": "yes"], directory: directory)
        let lines = run.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(URL(fileURLWithPath: lines.first ?? "").resolvingSymlinksInPath().path == directory.resolvingSymlinksInPath().path)
        #expect(lines.dropFirst().first == "yes")
        #expect(lines.last == "unset")
    }

    @Test func aSignalEndsItAndIsReportedAsSuch() async throws {
        let child = try SpawnedProcess(shell, ["-c", "exec sleep 30"], output: .null, errorOutput: .null)
        #expect(child.isRunning)
        child.send(SIGKILL)
        #expect(await child.exit() == .signaled(SIGKILL))
        #expect(!child.isRunning)
        child.send(SIGKILL)  // reaped: nothing is sent to a pid that may be reused
        #expect(child.termination == .signaled(SIGKILL))
    }

    @Test func aMissingExecutableIsAnError() {
        #expect(throws: SpawnedProcess.SpawnError.self) {
            try SpawnedProcess.run(URL(fileURLWithPath: "/nonexistent/authhub-\(UUID().uuidString)"), [])
        }
    }
}
