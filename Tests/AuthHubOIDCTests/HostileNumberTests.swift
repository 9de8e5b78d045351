import AuthHub
import AuthHubOIDC
import AuthHubTesting
import Foundation
import Testing

/// Numbers from a token endpoint or a signed ID token that used to trap (`Int(-1e300)`) or be stored
/// as an expiry years beyond 9999.
extension IDTokenValidatorTests {
    @Test func timeClaimsOutsideTheCalendarAreRejectedNotConverted() async throws {
        for claim in ["exp", "iat"] {
            for value in [-1e300, 1e300, -1] {
                #expect(try await failure([claim: .number(value)]) == .invalidTimeClaim, "\(claim) = \(value)")
            }
        }
        let withMaxAge = IDTokenExpectations(issuer: "https://idp.example.com/", clientId: "client-1", nonce: Secret("n-1"), maxAge: 60)
        #expect(try await failure(["auth_time": .number(-1e300)], withMaxAge) == .invalidTimeClaim)
        #expect(try await failure(["auth_time": .number(1e300)]) == .invalidTimeClaim)
        #expect(try await failure(["auth_time": .number(now)], withMaxAge) == nil)
    }
}

extension TokenClientTests {
    @Test func expiresInIsRangeChecked() throws {
        let now = Date(timeIntervalSince1970: 1_767_225_600)
        func reply(_ expiresIn: String) throws -> OIDCTokenResponse {
            try OIDCTokenResponse(HTTPReply(status: 200, body: Data(#"{"access_token":"a","token_type":"Bearer","expires_in":\#(expiresIn)}"#.utf8)),
                                  now: now, provider: "oidc")
        }
        for bad in ["-1e300", "-1", "0", "\"nan\"", "\"-inf\"", "1e400"] {
            let error = #expect(throws: AuthError.self, "\(bad)") { try reply(bad) }
            #expect(error?.code == .invalidRequest)
        }
        // Huge lifetimes are clamped to ten years, never stored beyond 9999.
        #expect(try reply("1e300").expiresAt == now.addingTimeInterval(SessionTimeLimits.maxLifetime))
        #expect(try reply("3600").expiresAt == now.addingTimeInterval(3600))
        #expect(try reply("\"3600\"").expiresAt == now.addingTimeInterval(3600))
    }
}
