import AuthHub
import Foundation
import Testing

@Suite struct PKCETests {
    /// RFC 7636 Appendix B.
    @Test func rfc7636AppendixB() {
        let bytes: [UInt8] = [116, 24, 223, 180, 151, 153, 224, 37, 79, 250, 96, 125, 216, 173, 187, 186, 22, 212, 37, 77,
                              105, 214, 191, 240, 91, 88, 5, 88, 83, 132, 141, 121]
        #expect(Base64URL.encode(bytes) == "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        let pkce = PKCE(verifier: Secret("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"))
        #expect(pkce.challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(pkce.method == "S256")
    }

    @Test func freshVerifiersAre43CharactersAndDistinct() {
        let a = PKCE(), b = PKCE()
        #expect(a.verifier.revealed().count == 43)
        #expect(a.verifier != b.verifier)
        #expect(PKCE.randomToken().count == 43)
        #expect(!a.verifier.revealed().contains { "+/=".contains($0) })
    }

    @Test func base64URLRoundTripsAndRejectsGarbage() throws {
        for n in 0..<40 {
            let bytes = (0..<n).map { UInt8(($0 * 37 + n) & 0xff) }
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == Data(bytes))
        }
        #expect(Base64URL.decode("a") == nil)
        #expect(Base64URL.decode("!!!!") == nil)
    }

    /// The one-pass decoder (unpadded, canonical input) and the general one (padding, either
    /// alphabet, through Foundation) give the same answer for every input: random strings over the
    /// alphabets, `=` and a few other bytes, of every length up to 14, and a ~1 KB token part.
    @Test func theOnePassDecoderAgreesWithTheGeneralOne() {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_+/=.! é".utf8)
        var generator = SystemRandomNumberGenerator()
        var canonical = 0
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...14, using: &generator)
            let bytes = (0..<length).map { _ in alphabet.randomElement(using: &generator)! }
            let text = String(decoding: bytes, as: UTF8.self)
            let general = Base64URL.decode(bytes: Array(text.utf8))
            #expect(Base64URL.decode(text) == general, "\(text)")
            // The strict reader (JWS signatures) answers only for the URL alphabet without padding,
            // and then as the general one does.
            let strict = Array(text.utf8).withUnsafeBufferPointer { Base64URL.decodeStrictURLSafe(buffer: $0) }
            if let strict {
                #expect(strict == general && !text.contains { "+/=".contains($0) }, "\(text)")
            } else if general != nil, !text.contains(where: { "+/=".contains($0) }) {
                // Refused only for non-zero bits in the last digit.
                #expect(text.utf8.count % 4 != 0, "\(text)")
            }
            if general != nil, !text.contains("=") { canonical += 1 }
        }
        #expect(canonical > 100)
        // Non-zero bits in the last digit, padded, and a long part.
        for text in ["YR", "YWF", "YQ", "YWE", "YQ==", "YWE=", "YQ=", String(repeating: "QUJD", count: 300) + "RA"] {
            #expect(Base64URL.decode(text) == Base64URL.decode(bytes: Array(text.utf8)), "\(text)")
        }
        #expect(Base64URL.decode(String(repeating: "QUJD", count: 300) + "RA") == Data(String(repeating: "ABC", count: 300).utf8 + [0x44]))
    }
}
