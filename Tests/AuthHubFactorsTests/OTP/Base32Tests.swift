import AuthHub
import AuthHubFactors
import Testing

@Suite struct Base32Tests {
    /// RFC 4648 §10 test vectors.
    static let vectors: [(plain: String, encoded: String)] = [
        ("", ""),
        ("f", "MY======"),
        ("fo", "MZXQ===="),
        ("foo", "MZXW6==="),
        ("foob", "MZXW6YQ="),
        ("fooba", "MZXW6YTB"),
        ("foobar", "MZXW6YTBOI======"),
    ]

    @Test(arguments: vectors)
    func encodesTheRFC4648Vectors(plain: String, encoded: String) {
        #expect(Base32.encode(Array(plain.utf8), padding: true) == encoded)
        #expect(Base32.encode(Array(plain.utf8)) == encoded.replacingOccurrences(of: "=", with: ""))
    }

    @Test(arguments: vectors)
    func decodesTheRFC4648VectorsWithOrWithoutPaddingInAnyCase(plain: String, encoded: String) throws {
        let unpadded = encoded.replacingOccurrences(of: "=", with: "")
        #expect(try Base32.decode(encoded) == Array(plain.utf8))
        #expect(try Base32.decode(unpadded) == Array(plain.utf8))
        #expect(try Base32.decode(encoded.lowercased()) == Array(plain.utf8))
    }

    @Test func ignoresSpacesAndHyphens() throws {
        #expect(try Base32.decode("MZXW 6YTB-OI") == Array("foobar".utf8))
        #expect(try Base32.decode(" jbsw y3dp ehpk 3pxp ") == Array("Hello!\u{DE}\u{AD}\u{BE}\u{EF}".unicodeScalars.map { UInt8($0.value) }))
    }

    @Test func roundTripsEveryLengthUpTo64Bytes() throws {
        for length in 0...64 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ length) }
            #expect(try Base32.decode(Base32.encode(bytes)) == bytes, "length \(length)")
            #expect(try Base32.decode(Base32.encode(bytes, padding: true)) == bytes, "length \(length), padded")
            #expect(Base32.encode(bytes, padding: true).count % 8 == 0)
        }
    }

    @Test func aCharacterOutsideTheAlphabetIsNamedWithItsPosition() {
        let text = "MZXW1YTBOI"
        let error = #expect(throws: AuthError.self) { try Base32.decode(text) }
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains("'1' at position 5") == true, "\(String(describing: error?.message))")
        #expect(error?.details["position"] == "5")
        #expect(error?.message.contains(text) == false)
        #expect(error?.message.contains("MZXW") == false)
    }

    @Test func positionsCountSkippedSeparators() {
        let error = #expect(throws: AuthError.self) { try Base32.decode("ab-c8") }
        #expect(error?.details["position"] == "5")
        #expect(error?.message.contains("'8'") == true)
    }

    @Test func invisibleCharactersAreNamedByCodePoint() {
        let error = #expect(throws: AuthError.self) { try Base32.decode("MZXW\u{00A0}6YTB") }
        #expect(error?.message.contains("U+00A0 at position 5") == true, "\(String(describing: error?.message))")
    }

    @Test func dataAfterPaddingIsRejected() {
        let error = #expect(throws: AuthError.self) { try Base32.decode("MY======MY") }
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains("follows '=' padding") == true)
        #expect(error?.details["position"] == "9")
    }

    @Test func incompletePaddingIsRejected() {
        let error = #expect(throws: AuthError.self) { try Base32.decode("MY===") }
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains("3 '=' padding characters where 6 were expected") == true)
    }

    @Test(arguments: ["M", "MZX", "MZXW6Y", "MZXW6YTBO"])
    func lengthsThatCannotEncodeWholeBytesAreRejected(text: String) {
        let error = #expect(throws: AuthError.self) { try Base32.decode(text) }
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains("do not encode a whole number of bytes") == true)
    }
}
