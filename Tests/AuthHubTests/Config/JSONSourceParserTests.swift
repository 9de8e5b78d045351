@testable import AuthHub
import Foundation
import Testing

@Suite struct JSONSourceParserTests {
    private func parse(_ text: String) throws(JSONSourceError) -> JSONSourceNode {
        try JSONSourceParser().parse(Data(text.utf8))
    }

    private func error(_ text: String) -> JSONSourceError? { error(bytes: Array(text.utf8)) }

    private func error(bytes: [UInt8]) -> JSONSourceError? {
        do {
            _ = try JSONSourceParser().parse(Data(bytes))
            return nil
        } catch {
            return error
        }
    }

    @Test func parsesEveryKindOfValueKeepingMemberOrder() throws {
        let node = try parse(#"{"z": 1, "a": [true, false, null], "m": {"k": "v"}, "n": -12.5e1, "i": 0}"#)
        #expect(node.members?.map(\.key) == ["z", "a", "m", "n", "i"])
        #expect(node["z"]?.value == .number(1, isInteger: true))
        #expect(node["a"]?.elements?.map(\.value) == [.bool(true), .bool(false), .null])
        #expect(node["m"]?["k"]?.string == "v")
        #expect(node["n"]?.value == .number(-125, isInteger: false))
        #expect(node["i"]?.value == .number(0, isInteger: true))
        #expect(node.jsonValue == ["z": 1, "a": [true, false, nil], "m": ["k": "v"], "n": -125.0, "i": 0])
    }

    @Test func recordsPositionsOfValuesAndKeys() throws {
        let node = try parse("{\n  \"a\": [\n    1,\n    \"x\"\n  ]\n}")
        let member = try #require(node.members?.first)
        #expect(member.keyPosition == JSONSourcePosition(line: 2, column: 3))
        #expect(member.value.position == JSONSourcePosition(line: 2, column: 8))
        #expect(member.value.elements?[1].position == JSONSourcePosition(line: 4, column: 5))
    }

    @Test func keepsDuplicateKeysInOrder() throws {
        let node = try parse(#"{"a": 1, "a": 2}"#)
        #expect(node.members?.map(\.key) == ["a", "a"])
        #expect(node["a"]?.value == .number(1, isInteger: true))
        #expect(node.jsonValue == ["a": 2])
    }

    @Test func decodesEscapesAndSurrogatePairs() throws {
        let node = try parse(#"["\"\\\/\b\f\n\r\t", "\u00e9\ud83d\ude00", "é😀"]"#)
        #expect(node.elements?.map(\.string) == ["\"\\/\u{8}\u{c}\n\r\t", "é😀", "é😀"])
    }

    @Test func missingCommaReportsLineAndColumnOfTheNextToken() throws {
        let text = """
            {
              "environments": {
                "dev": {
                  "providers": [] "x": 1
                }
              }
            }
            """
        let e = try #require(error(text))
        #expect(e.position == JSONSourcePosition(line: 4, column: 23))
        #expect(e.reason == "expected ',' or '}'")
        #expect(e.description == "line 4, column 23: expected ',' or '}'")
    }

    @Test(arguments: [
        ("{\"a\": 1,}", 1, 9, "trailing comma before '}'"),
        ("[1, 2,]", 1, 7, "trailing comma before ']'"),
        ("[1 2]", 1, 4, "expected ',' or ']'"),
        ("{\"a\" 1}", 1, 6, "expected ':'"),
        ("{a: 1}", 1, 2, "expected a member name in double quotes, found 'a'"),
        ("{\"a\": tru}", 1, 7, "invalid literal; expected 'true'"),
        ("{\"a\": 01}", 1, 7, "invalid number; leading zeros are not allowed"),
        ("{\"a\": 1.}", 1, 9, "invalid number; expected a digit after '.'"),
        ("{\"a\": \"x\n\"}", 1, 9, "unterminated string (line break inside a string)"),
        ("{\"a\": \"\\q\"}", 1, 8, "invalid escape sequence"),
        ("{\"a\": \"\\ud800\"}", 1, 8, "unpaired surrogate in \\u escape"),
        ("{\"a\": 1} x", 1, 10, "unexpected character after the JSON value"),
        ("{\"a\": ", 1, 7, "unexpected end of input; expected a value"),
        ("{\"a\": 1", 1, 8, "unexpected end of input; expected ',' or '}'"),
        ("{\"a\": \"abc", 1, 7, "unterminated string"),
        ("", 1, 1, "unexpected end of input; expected a value"),
        ("// comment\n{}", 1, 1, "expected a value, found '/'"),
    ] as [(String, Int, Int, String)])
    func reportsSyntaxErrors(text: String, line: Int, column: Int, reason: String) throws {
        let e = try #require(error(text), "should not parse: \(text)")
        #expect(e.reason == reason)
        #expect(e.position == JSONSourcePosition(line: line, column: column))
    }

    @Test func columnsCountCharactersNotBytes() throws {
        // "é" is two UTF-8 bytes but one column.
        let e = try #require(error("{\"é\": 1 2}"))
        #expect(e.position == JSONSourcePosition(line: 1, column: 9))
    }

    @Test func skipsAByteOrderMark() throws {
        let node = try JSONSourceParser().parse(Data([0xEF, 0xBB, 0xBF] + Array("{\"a\":1}".utf8)))
        #expect(node["a"] != nil)
    }

    @Test func rejectsExcessiveNestingWithoutCrashing() throws {
        let depth = JSONSourceParser.maximumDepth + 10
        let e = try #require(error(String(repeating: "[", count: depth) + String(repeating: "]", count: depth)))
        #expect(e.reason == "nesting is too deep")
        #expect(e.position.column == JSONSourceParser.maximumDepth + 1)
    }

    @Test func rejectsInvalidUTF8InStrings() throws {
        let e = try #require(error(bytes: [0x22, 0xFF, 0x22]))
        #expect(e.reason == "string is not valid UTF-8")
    }
}
