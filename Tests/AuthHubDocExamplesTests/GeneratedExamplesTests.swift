import AuthHubTesting
import Foundation
import Testing

/// The generated files (Generated/) are what scripts/doc-examples writes from the documentation as it
/// is now: an example edited, added or removed without running the script fails here. The examples
/// themselves are checked by compiling this target; they are never run.
@Suite struct GeneratedExamplesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// python3 on PATH: the generator is a Python script (CI always has it: `.ci/run` runs the same check).
    static let python3: URL? = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        .split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent("python3") }
        .first { FileManager.default.isExecutableFile(atPath: $0.path) }

    /// Async, with the script's output read on threads of their own (`ChildProcess`): a test that
    /// blocks in `waitUntilExit` holds one of the cooperative pool's threads — two on a 2-core
    /// machine — for the script's whole run, and the emulator-backed tests running beside it then
    /// time out.
    @Test(.enabled(if: python3 != nil, "python3 is not on PATH"))
    func generatedFilesAreCurrent() async throws {
        let script = Self.root.appendingPathComponent("scripts/doc-examples").path
        let child = try ChildProcess(executable: try #require(Self.python3), arguments: [script, "--check"],
                                     environment: ProcessInfo.processInfo.environment)
        var lines: [String] = []
        while let line = await child.nextLine() { lines.append(line) }
        let status = await child.exitStatus()
        #expect(status == 0, "\(lines.joined(separator: "\n"))\n\(child.standardError)")
    }
}
