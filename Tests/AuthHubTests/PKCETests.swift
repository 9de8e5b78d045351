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
}
