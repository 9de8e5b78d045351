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
        ]
        for header in headers {
            #expect(BearerTokenAuthenticator.bearerCredentials(header)
                        == BearerTokenAuthenticator.bearerCredentialsOfAnyShape(header), "\(header)")
        }
        #expect(BearerTokenAuthenticator.bearerCredentials("bEaReR  \(token) ") == token)
        #expect(BearerTokenAuthenticator.bearerCredentials("Bearer ") == nil)
    }
}
