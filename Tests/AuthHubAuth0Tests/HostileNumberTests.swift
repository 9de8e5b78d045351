import AuthHub
@_spi(Internals) @testable import AuthHubAuth0
import Foundation
import Testing

/// `expires_in` of an Auth0 token reply: `-1e300` trapped `authhub mfa …` (Int of the lifetime),
/// `1e300` was stored and trapped `authhub session` ever after.
@Suite struct Auth0HostileNumberTests {
    let now = Date(timeIntervalSince1970: 1_767_225_600)

    /// Decodes a token reply the way the Authentication API does.
    func credentials(_ json: JSONValue) throws -> Auth0Credentials {
        try Auth0Credentials.decode(try json.serialized(), now: now, provider: "auth0")
    }

    @Test func expiresInIsRangeChecked() throws {
        for bad: JSONValue in [-1e300, -1, 0, "nan", "-inf", "-1e300"] {
            let error = #expect(throws: AuthError.self, "\(bad)") {
                try credentials(["access_token": "a", "expires_in": bad])
            }
            #expect(error?.code == .invalidRequest)
        }
        #expect(try credentials(["access_token": "a", "expires_in": 1e300]).expiresAt
            == now.addingTimeInterval(SessionTimeLimits.maxLifetime))
        #expect(try credentials(["access_token": "a", "expires_in": "86400"]).expiresAt
            == now.addingTimeInterval(86_400))
        // No expires_in at all: expired now (renewed before use), as before.
        #expect(try credentials(["access_token": "a"]).expiresAt == now)
    }
}
