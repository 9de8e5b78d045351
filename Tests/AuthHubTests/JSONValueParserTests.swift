import AuthHub
import Foundation
import Testing

/// `JSONValue.parse` reads JSON directly (the benchmarks showed `JSONDecoder`'s type probing cost
/// ~230 allocations per ID token); it must agree with `JSONDecoder` on what it accepts and how.
@Suite struct JSONValueParserTests {
    static func decoder(_ text: String) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    static let valid: [String] = [
        #"{}"#, #"[]"#, #""""#, #"0"#, #"-0"#, #"1"#, #"-12.5e3"#, #"1E-2"#, #"3.141592653589793"#, #"1e308"#,
        #"true"#, #"false"#, #"null"#, "  \n\t {\"a\" : [1, 2 ,{ \"b\":null}] }\r\n ",
        #"{"alg":"RS256","kid":"k1","typ":"JWT"}"#,
        #"{"iss":"https://issuer.example/","sub":"auth0|1","aud":["a","b"],"exp":1700000000,"iat":1.5,"email_verified":true}"#,
        #""esc \" \\ \/ \b \f \n \r \t""#, #""\u00e9\u4e2d\ud83d\ude00""#, #""é中😀 raw""#, #"{"a":1,"a":2}"#, #"[1,]"#, #"{"a":1 , }"#,
        #"[[[[[]]]]]"#, #"{"nested":{"deeper":{"deepest":[true,false,null,"x",-1]}}}"#, #"9007199254740993"#,
    ]

    static let invalid: [String] = [
        "", " ", "{", "}", "[1,,]", "[,1]", "[,]", #"{"a":}"#, #"{"a" 1}"#, #"{a:1}"#, #"{"a":1,,}"#, "01", "1.", ".5", "-", "+1", "1e",
        "1e+", "tru", "nul", "True", #""unterminated"#, "\"tab\there\"", #""\x""#, #""\u12""#, #""\ud83d""#, #""\ude00""#,
        #""\ud83d\u0041""#, "1 2", "[1] x", "NaN", "Infinity", "1e400", "\"\u{1}\"",
    ]

    @Test func agreesWithJSONDecoderOnValidDocuments() throws {
        for text in Self.valid {
            let parsed = try JSONValue.parse(Data(text.utf8))
            #expect(parsed == Self.decoder(text), "\(text)")
        }
    }

    @Test func rejectsWhatJSONDecoderRejects() {
        for text in Self.invalid {
            #expect(throws: DecodingError.self, "\(text)") { try JSONValue.parse(Data(text.utf8)) }
            #expect(Self.decoder(text) == nil, "JSONDecoder accepts \(text)")
        }
    }

    @Test func rejectsInvalidUTF8AndDeepNesting() {
        #expect(throws: DecodingError.self) { try JSONValue.parse(Data([0x22, 0xC3, 0x28, 0x22])) }
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        #expect(throws: DecodingError.self) { try JSONValue.parse(Data(deep.utf8)) }
        let fine = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect((try? JSONValue.parse(Data(fine.utf8))) != nil)
    }

    @Test func roundTripsThroughItsOwnEncoding() throws {
        let value: JSONValue = ["s": "é\n\"", "n": 42, "d": 0.25, "b": true, "z": nil, "a": [1, "two", ["three": 3]]]
        let data = try JSONEncoder().encode(value)
        #expect(try JSONValue.parse(data) == value)
    }
}
