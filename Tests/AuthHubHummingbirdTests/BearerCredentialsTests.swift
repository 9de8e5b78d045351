@testable import AuthHubHummingbird
import Testing

/// The `Authorization` header's token as the bearer middleware reads it: the byte-level reading of
/// the usual shape gives what the general reading gives, for every shape of header.
@Suite struct BearerCredentialsTests {
    @Test func theFastReadingAgreesWithTheGeneralOne() {
        let token = String(repeating: "eyJhbGciOiJSUzI1NiJ9.", count: 2) + String(repeating: "sig-_", count: 60)
        let headers = [
            "Bearer \(token)", "bearer \(token)", "BEARER \(token)", "BeArEr \(token)", "Bearer  \(token)", "Bearer \(token)  ",
            "Bearer \t\(token)\t", "Bearer ", "Bearer  ", "Bearer", "Bearer\t\(token)", " Bearer \(token)", "Bearerx \(token)",
            "Basic \(token)", "Bearer \(token) extra", "Bearer é\(token)", "Bearer \(token)\u{00A0}", "Beaœer \(token)", "",
            "Bearer\u{00A0}\(token)", "Bearer \u{2003}\(token)",
            // Other schemes and near misses, refused by the byte-level reading without the general scan.
            "DPoP \(token)", "dpop x", "Bearer x", "Bearer  x", "B e", "Bea rer x", "Bearers \(token)", "  Bearer x", "x",
            "Bearer x y", "Bearé \(token)", "Bearer\u{00A0}x", "Token\(token)", "é", " ",
        ]
        for header in headers {
            #expect(BearerTokenAuthenticator.bearerCredentials(header)
                        == BearerTokenAuthenticator.bearerCredentialsOfAnyShape(header), "\(header)")
        }
        #expect(BearerTokenAuthenticator.bearerCredentials("bEaReR  \(token) ") == token)
        #expect(BearerTokenAuthenticator.bearerCredentials("Bearer ") == nil)
    }
}
