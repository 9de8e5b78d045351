import AuthHub
import AuthHubTesting
import Crypto
import Foundation
import Testing
@testable import AuthHubOIDC

/// OpenID Connect Back-Channel Logout 1.0, section 2.6: a valid logout token names a session or a
/// user; every fault of one is refused with its own reason.
@Suite struct LogoutTokenValidatorTests {
    let server = KeyServer([(TestKeys.first, "k1"), (TestKeys.ecFirst, "e1")])
    static let issuer = "https://idp.example.com/"
    static let event = "http://schemas.openid.net/event/backchannel-logout"

    var now: Double { server.clock.now.timeIntervalSince1970.rounded(.down) }

    func validator() -> LogoutTokenValidator {
        let keys = JWKSCache(jwksURI: server.path, api: makeAPI(server.transport, clock: server.clock), clock: server.clock)
        return LogoutTokenValidator(issuer: Self.issuer, clientId: "client-1", keys: keys, clock: server.clock, maxAge: 300, leeway: 60)
    }

    func claims(_ changes: [String: JSONValue] = [:], removing: [String] = []) -> [String: JSONValue] {
        var claims: [String: JSONValue] = [
            "iss": .string(Self.issuer), "aud": "client-1", "iat": .number(now), "exp": .number(now + 120), "jti": "jti-1",
            "events": .object([Self.event: .object([:])]), "sid": "sid-1", "sub": "user-1",
        ]
        claims.merge(changes) { _, new in new }
        for name in removing { claims[name] = nil }
        return claims
    }

    func reason(_ token: String) async -> String? {
        do {
            _ = try await validator().validate(Secret(token))
            return nil
        } catch let error as AuthError {
            return error.details["reason"]
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test func aValidLogoutTokenNamesTheSessionAndTheUser() async throws {
        let rs256 = try await sign(claims())
        let parsed = try await validator().validate(Secret(rs256))
        #expect(parsed.sessionID == "sid-1" && parsed.subject == "user-1" && parsed.jti == "jti-1")
        // Explicitly typed (logout+jwt), ES256, only sid, aud as an array.
        let typed = try await signWithHeader(["alg": "ES256", "kid": "e1", "typ": "logout+jwt"],
                                             claims(["aud": ["other", "client-1"]], removing: ["sub"]), pem: TestKeys.ecFirst)
        let onlySID = try await validator().validate(Secret(typed))
        #expect(onlySID.sessionID == "sid-1" && onlySID.subject == nil)
    }

    /// Each fault and the reason it is refused with.
    @Test func everyFaultOfALogoutTokenIsRefusedWithItsOwnReason() async throws {
        let header: JSONValue = ["alg": "RS256", "kid": "k1", "typ": "logout+jwt"]
        let hmac = HMAC<SHA256>.authenticationCode(for: Data("x".utf8), using: SymmetricKey(size: .bits256))
        let cases: [(String, String, String)] = [
            ("alg none", try compact(header: ["alg": "none", "kid": "k1"], claims: claims(), signature: []).token, "logoutTokenAlgorithm"),
            ("HS256", try compact(header: ["alg": "HS256", "kid": "k1"], claims: claims(), signature: Array(hmac)).token, "logoutTokenAlgorithm"),
            ("typ at+jwt", try await signWithHeader(["alg": "RS256", "kid": "k1", "typ": "at+jwt"], claims(), pem: TestKeys.first), "logoutTokenWrongType"),
            ("signed by another key", try await signWithHeader(header, claims(), pem: TestKeys.second), "logoutTokenSignature"),
            ("wrong iss", try await signWithHeader(header, claims(["iss": "https://evil.example.com/"]), pem: TestKeys.first), "logoutTokenIssuer"),
            ("wrong aud", try await signWithHeader(header, claims(["aud": "client-2"]), pem: TestKeys.first), "logoutTokenAudience"),
            ("no aud", try await signWithHeader(header, claims(removing: ["aud"]), pem: TestKeys.first), "logoutTokenAudience"),
            ("no iat", try await signWithHeader(header, claims(removing: ["iat"]), pem: TestKeys.first), "logoutTokenIssuedAt"),
            ("iat in the future", try await signWithHeader(header, claims(["iat": .number(now + 120)]), pem: TestKeys.first), "logoutTokenIssuedAt"),
            ("iat too old", try await signWithHeader(header, claims(["iat": .number(now - 600)], removing: ["exp"]), pem: TestKeys.first), "logoutTokenIssuedAt"),
            ("expired", try await signWithHeader(header, claims(["exp": .number(now - 61)]), pem: TestKeys.first), "logoutTokenExpired"),
            ("no jti", try await signWithHeader(header, claims(removing: ["jti"]), pem: TestKeys.first), "logoutTokenJTI"),
            ("no events", try await signWithHeader(header, claims(removing: ["events"]), pem: TestKeys.first), "logoutTokenEvents"),
            ("another event", try await signWithHeader(header, claims(["events": ["http://schemas.openid.net/event/other": [:]]]), pem: TestKeys.first), "logoutTokenEvents"),
            ("event not an object", try await signWithHeader(header, claims(["events": [Self.event: "yes"]]), pem: TestKeys.first), "logoutTokenEvents"),
            ("neither sid nor sub", try await signWithHeader(header, claims(removing: ["sid", "sub"]), pem: TestKeys.first), "logoutTokenNoSubject"),
            ("empty sub only", try await signWithHeader(header, claims(["sub": ""], removing: ["sid"]), pem: TestKeys.first), "logoutTokenNoSubject"),
            ("a nonce", try await signWithHeader(header, claims(["nonce": "n-1"]), pem: TestKeys.first), "logoutTokenNonce"),
            ("not a JWT", "a.b", "logoutTokenMalformed"),
            ("huge", String(repeating: "a", count: 17_000) + ".b.c", "logoutTokenMalformed"),
        ]
        for (name, token, expected) in cases {
            #expect(await reason(token) == expected, "\(name)")
        }
    }
}
