import AuthHub
import AuthHubTesting
import Foundation
import Testing

/// Numbers from outside that reach the core: a third-party provider's expiry (the manager's min-TTL
/// message converted it with `Int(…)` and trapped on `-1e300`) and passkey option timeouts
/// (`.milliseconds(Int64(1e300))` trapped while parsing a server's challenge).
extension SessionManagerTests {
    @Test func anAbsurdExpiryFromAThirdPartyProviderIsAnErrorNotATrap() async throws {
        for lifetime in [-1e300, -1e18] {
            let server = StubTokenServer(lifetime: lifetime)
            let store = InMemorySessionStore()
            _ = try await seedExpired(store)
            let error = try await #require(throws: AuthError.self) { try await manager(server, store).session(minTTL: 60) }
            #expect(error.code == .invalidRequest)
            #expect(error.details["lifetime"] == String(-Int(SessionTimeLimits.dateRange.upperBound)))
            #expect(error.details["minTTL"] == "60")
            // The rotated tokens were still stored (their refresh token may be the only valid one).
            #expect(try await store.load(SessionKey(provider: "ex"))?.refreshToken?.revealed() == server.validRefreshToken)
        }
    }
}

@Suite struct PasskeyOptionTimeoutTests {
    let challenge = "dGhpcyBpcyBhIGNoYWxsZW5nZQ"

    func assertionTimeout(_ timeout: JSONValue) throws -> Duration? {
        try PasskeyAssertionOptions(json: ["rpId": "example.com", "challenge": .string(challenge), "timeout": timeout]).timeout
    }

    @Test func timeoutsAreRangeCheckedAndClamped() throws {
        #expect(try assertionTimeout(60_000) == .seconds(60))
        #expect(try assertionTimeout(1e300) == .seconds(600))
        #expect(try assertionTimeout(-1e300) == nil)
        #expect(try assertionTimeout(0) == nil)
        #expect(try assertionTimeout("soon") == nil)
        let registration = try PasskeyRegistrationOptions(json: [
            "rp": ["id": "example.com", "name": "Example"], "user": ["id": "dXNlcg", "name": "u", "displayName": "U"],
            "challenge": .string(challenge), "pubKeyCredParams": [["type": "public-key", "alg": -7]], "timeout": 1e300,
        ])
        #expect(registration.timeout == .seconds(600))
    }

    @Test func wholeSecondsNeverTraps() {
        let now = Date(timeIntervalSince1970: 1_767_225_600)
        #expect(SessionTimeLimits.wholeSeconds(from: now, to: now.addingTimeInterval(90.7)) == 90)
        #expect(SessionTimeLimits.wholeSeconds(from: now, to: Date(timeIntervalSince1970: 1e300)) == Int(SessionTimeLimits.dateRange.upperBound))
        #expect(SessionTimeLimits.wholeSeconds(from: now, to: Date(timeIntervalSince1970: .nan)) == 0)
    }
}
