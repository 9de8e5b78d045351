import Foundation
import Testing

/// The DocC article shows the example app's router as it is: a change to the example without the
/// article (or the other way round) fails here.
@Suite struct ArticleExampleTests {
    @Test func theArticleQuotesTheExampleRouter() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let source = try String(contentsOf: root.appendingPathComponent("Examples/WebApp/Sources/AuthHubWebExample/WebExampleApp.swift"), encoding: .utf8)
        let article = try String(contentsOf: root.appendingPathComponent(
            "Sources/AuthHubHummingbird/AuthHubHummingbird.docc/AddingSignInToAHummingbirdApp.md"), encoding: .utf8)
        let start = try #require(source.range(of: "    public static func router("))
        let end = try #require(source.range(of: "    static func home("))
        let quoted = source[start.lowerBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("    ") ? String($0.dropFirst(4)) : String($0) }.joined(separator: "\n")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(article.contains(quoted), "regenerate the article's example from WebExampleApp.router")
    }
}
