import AuthHub
import Foundation
import Testing

@Suite struct SecretTests {
    @Test func redactsEverywhere() throws {
        let secret = Secret("tok-123-very-secret")
        #expect(secret.description == "<redacted>")
        #expect("\(secret)" == "<redacted>")
        #expect(String(reflecting: secret) == "Secret(<redacted>)")
        var dumped = ""
        dump(secret, to: &dumped)
        #expect(!dumped.contains("tok-123"))
        let session = Session(providerID: "p", accessToken: Secret("access-xyz"), idToken: Secret("id-xyz"),
                              refreshToken: Secret("refresh-xyz"), secretExtras: ["k": Secret("extra-xyz")])
        var dumpedSession = ""
        dump(session, to: &dumpedSession)
        for rendered in [session.description, "\(session)", String(reflecting: session), dumpedSession] {
            #expect(!rendered.contains("-xyz"), "leaked in: \(rendered)")
        }
        #expect(secret.revealed() == "tok-123-very-secret")
    }

    @Test func codableRoundTripKeepsValue() throws {
        let data = try JSONEncoder().encode(Secret("v"))
        #expect(try JSONDecoder().decode(Secret<String>.self, from: data).revealed() == "v")
    }

    @Test func equalityIsByValue() {
        #expect(Secret("abc") == Secret("abc"))
        #expect(Secret("abc") != Secret("abd"))
        #expect(Secret("abc") != Secret("abcd"))
    }
}
