import AuthHub
import Foundation
import Testing

/// `JSONValue.serialized()` writes request bodies without `JSONEncoder`; it must produce the very
/// bytes `JSONEncoder` with `[.sortedKeys, .withoutEscapingSlashes]` produces, so a provider sees
/// the same body (and a stamped body stays what was stamped).
@Suite struct JSONValueWriterTests {
    static func encoder(_ value: JSONValue) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }

    static let values: [JSONValue] = [
        nil, true, false, 0, -0.0, 1, -1, 42, 0.25, -12.5, 1.5e-7, 3.141592653589793, 1e300, 8_999_999_999_999_999,
        9.0e15, 1.0e16, -9.5e15, 123_456_789.125, 0.1, 1e-5, 5e-324, .number(Double.greatestFiniteMagnitude),
        "", "plain", "é中😀", "quote \" backslash \\ slash / url https://a.example/b?c=d",
        "controls \u{0}\u{1}\u{8}\u{9}\u{A}\u{B}\u{C}\u{D}\u{1F}\u{7F}", "line\u{2028}sep\u{2029}",
        [], [:], [1, "two", [3], ["four": 4]],
        ["b": 1, "a": 2, "A": 3, "_": 4, "a10": 5, "a2": 6, "é": 7, "e": 8, "Z": 9, "": 10, "aa": 11, "a b": 12],
        ["email": "user@example.com", "password": "correct horse", "returnSecureToken": true, "tenantId": nil,
         "nested": ["deeper": ["list": [1.5, nil, false, ["k": "v"]]]]],
    ]

    @Test func writesTheBytesJSONEncoderWrites() throws {
        for value in Self.values {
            let ours = try value.serialized()
            let theirs = try Self.encoder(value)
            #expect(ours == theirs, "\(value): \(String(decoding: ours, as: UTF8.self)) vs \(String(decoding: theirs, as: UTF8.self))")
            #expect(try JSONValue.parse(ours) == JSONValue.parse(theirs))
        }
    }

    @Test func refusesNonFiniteNumbersAsJSONEncoderDoes() {
        for number in [Double.nan, .infinity, -.infinity] {
            #expect(throws: EncodingError.self) { try JSONValue.number(number).serialized() }
            #expect(throws: (any Error).self) { try Self.encoder(.number(number)) }
        }
    }

    @Test func requestBodiesOfJSONValueUseTheWriter() throws {
        let body: [String: JSONValue] = ["b": "x/y", "a": [1, 2.5]]
        let request = try APIRequest.json(.post, "p", body)
        guard case .json(let data) = request.body else {
            Issue.record("expected a JSON body")
            return
        }
        #expect(data == Data(#"{"a":[1,2.5],"b":"x/y"}"#.utf8))
        let nan = #expect(throws: AuthError.self) { try APIRequest.json(.post, "p", JSONValue.number(.nan)) }
        #expect(nan?.code == .invalidRequest)
    }
}
