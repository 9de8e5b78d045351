import Foundation
import Testing

/// What the `authhub` executable links: never the test kit (`AuthHubTesting`), so a CLI user never
/// ships test code. Read from Package.swift's `authhub` target, the manifest SwiftPM builds from.
@Suite struct CLIDependencyTests {
    @Test func theExecutableLinksNoTestCode() throws {
        let manifest = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Package.swift")
        let text = try String(contentsOf: manifest, encoding: .utf8)
        let start = try #require(text.range(of: ".executableTarget(\n            name: \"authhub\","), "the authhub target is declared")
        let rest = text[start.upperBound...]
        let end = try #require(rest.range(of: "\n        ),"), "the authhub target's declaration ends")
        let target = rest[..<end.lowerBound]
        #expect(target.contains("\"AuthHub\""), "the declaration was found")
        #expect(!target.contains("AuthHubTesting"), "authhub links the test kit: \(target)")
    }
}
