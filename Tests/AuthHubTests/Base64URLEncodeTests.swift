@testable import AuthHub
import Foundation
import Testing

/// The table-driven base64url encoder gives what Foundation's base64 gives, translated to the URL
/// alphabet and unpadded, for every length and remainder.
@Suite struct Base64URLEncodeTests {
    static func reference(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    @Test func matchesFoundationOnRandomInputs() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<200 {
            for _ in 0..<20 {
                let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let expected = Self.reference(bytes)
                #expect(Base64URL.encode(bytes) == expected, "\(bytes)")
                #expect(bytes.withUnsafeBytes { Base64URL.encode(buffer: $0) } == expected)
                #expect(Base64URL.encode(AnySequence(bytes)) == expected, "a sequence without contiguous storage")
                #expect(Base64URL.decode(expected) == Data(bytes))
            }
        }
        #expect(Base64URL.encode([UInt8]()) == "")
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
    }
}
