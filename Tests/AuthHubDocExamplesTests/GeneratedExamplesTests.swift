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

    @Test(.enabled(if: python3 != nil, "python3 is not on PATH"))
    func generatedFilesAreCurrent() throws {
        let process = Process()
        process.executableURL = Self.python3
        process.arguments = [Self.root.appendingPathComponent("scripts/doc-examples").path, "--check"]
        process.currentDirectoryURL = Self.root
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
    }
}
