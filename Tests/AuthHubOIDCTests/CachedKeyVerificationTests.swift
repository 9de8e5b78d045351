import AuthHub
import AuthHubTesting
import Crypto
import Foundation
import JWTKit
import Testing
@testable import AuthHubOIDC

/// The hit path: once the JWKS is cached, a signature is checked synchronously with the swift-crypto
/// key built when the JWKS was parsed (no actor, no fetch). Every hostile token is refused there
/// exactly as on the fetch path, and none causes a fetch.
@Suite struct CachedKeyVerificationTests {
    let server = KeyServer([(TestKeys.first, "k1"), (TestKeys.ecFirst, "e1")])
    let expectations = IDTokenExpectations(issuer: "https://idp.example.com/", clientId: "client-1")
    static let api = "https://api.example.com"

    func claims(_ changes: [String: JSONValue?] = [:]) -> [String: JSONValue] {
        let now = server.clock.now.timeIntervalSince1970
        var c: [String: JSONValue] = ["iss": "https://idp.example.com/", "sub": "user-1", "aud": "client-1",
                                      "exp": .number(now + 3600), "iat": .number(now), "scope": "read:things"]
        for (k, v) in changes { c[k] = v }
        return c
    }

    /// A validator whose cache holds the JWKS, fetched for one valid RS256 token.
    func warmed() async throws -> IDTokenValidator {
        let validator = server.validator()
        #expect(validator.keys.cachedKey(kid: "k1") == nil)
        _ = try await validator.validate(Secret(try await sign(claims())), expecting: expectations)
        #expect(server.fetches == 1)
        #expect(validator.keys.cachedKey(kid: "k1")?.algorithm == .rs256)
        #expect(validator.keys.cachedKey(kid: "e1")?.algorithm == .es256)
        #expect(validator.keys.cachedKey(kid: "") == nil)  // two keys: no sole key
        #expect(validator.keys.cachedKey(kid: "k-unknown") == nil)
        return validator
    }

    /// Tokens that must never verify, with the failure each gets, all against a JWKS of one RSA key
    /// (`k1`) and one P-256 key (`e1`).
    func hostileTokens(_ claims: [String: JSONValue]) async throws -> [(String, String, IDTokenValidationFailure)] {
        let valid = try await sign(claims)
        let parts = valid.split(separator: ".").map(String.init)
        var flipped = try #require(Base64URL.decode(parts[2]))
        flipped[10] ^= 0x01
        var forgedClaims = claims
        forgedClaims["sub"] = "admin"
        let forgedPayload = Base64URL.encode(try JSONEncoder().encode(JSONValue.object(forgedClaims)))
        let publicPEM = try Insecure.RSA.PrivateKey(pem: TestKeys.first).publicKey.pemRepresentation
        let hs256 = try compact(header: ["alg": "HS256", "typ": "JWT", "kid": "k1"], claims: claims, signature: [])
        let mac = HMAC<SHA256>.authenticationCode(for: Data(hs256.signingInput.utf8), using: SymmetricKey(data: Data(publicPEM.utf8)))
        let es256 = try await signES256(claims, kid: "e1")
        let esParts = es256.split(separator: ".").map(String.init)
        let der = try P256.Signing.ECDSASignature(rawRepresentation: try #require(Base64URL.decode(esParts[2]))).derRepresentation
        let signature = try #require(Base64URL.decode(parts[2]))
        return [
            ("alg none", try compact(header: ["alg": "none", "kid": "k1"], claims: claims, signature: []).token, .invalidAlgorithm),
            ("alg none, no kid", try compact(header: ["alg": "none"], claims: claims, signature: []).token, .invalidAlgorithm),
            ("no alg", try compact(header: ["kid": "k1"], claims: claims, signature: Array(signature)).token, .invalidAlgorithm),
            ("HS256 keyed with the RSA public key", hs256.signingInput + "." + Base64URL.encode(Data(mac)), .invalidAlgorithm),
            ("ES256 header naming the RSA key",
             try await signWithHeader(["alg": "ES256", "kid": "k1"], claims, pem: TestKeys.ecFirst), .invalidAlgorithm),
            ("RS256 header naming the EC key",
             try await signWithHeader(["alg": "RS256", "kid": "e1"], claims, pem: TestKeys.first), .invalidAlgorithm),
            ("unknown kid", try await sign(claims, pem: TestKeys.second, kid: "k-unknown"), .missingPublicKey),
            ("RSA: another key under a known kid", try await sign(claims, pem: TestKeys.second, kid: "k1"), .invalidSignature),
            ("EC: another key under a known kid", try await signES256(claims, pem: TestKeys.ecSecond, kid: "e1"), .invalidSignature),
            ("tampered payload", parts[0] + "." + forgedPayload + "." + parts[2], .invalidSignature),
            ("flipped signature bit", parts[0] + "." + parts[1] + "." + Base64URL.encode(flipped), .invalidSignature),
            ("empty signature", parts[0] + "." + parts[1] + ".", .invalidSignature),
            ("truncated signature", parts[0] + "." + parts[1] + "." + Base64URL.encode(signature.dropLast()), .invalidSignature),
            ("padded signature", parts[0] + "." + parts[1] + "." + parts[2] + "==", .invalidSignature),
            ("standard base64 signature", parts[0] + "." + parts[1] + "." + signature.base64EncodedString(), .invalidSignature),
            ("ES256 DER signature", esParts[0] + "." + esParts[1] + "." + Base64URL.encode(der), .invalidSignature),
            ("ES256 signature with a byte more", esParts[0] + "." + esParts[1] + "." + Base64URL.encode(
                try #require(Base64URL.decode(esParts[2])) + [0]), .invalidSignature),
        ]
    }

    @Test func validTokensOfBothAlgorithmsVerifyOnTheCachedPath() async throws {
        let validator = try await warmed()
        #expect(try await validator.validate(Secret(try await sign(claims())), expecting: expectations).subject == "user-1")
        #expect(try await validator.validate(Secret(try await signES256(claims())), expecting: expectations).subject == "user-1")
        #expect(server.fetches == 1)
    }

    @Test func hostileTokensAreRefusedOnTheCachedPathWithoutAFetch() async throws {
        let validator = try await warmed()
        let expectations = self.expectations
        for (name, token, failure) in try await hostileTokens(claims()) {
            let error = await asyncAuthError { _ = try await validator.validate(Secret(token), expecting: expectations) }
            #expect(error?.code == .invalidToken, "\(name)")
            #expect(error?.idTokenFailure == failure, "\(name): \(String(describing: error?.details))")
        }
        // The claims are still checked after a valid signature.
        for (changes, failure): ([String: JSONValue?], IDTokenValidationFailure) in [
            (["iss": "https://evil.example.com/"], .mismatchedIss), (["aud": "client-2"], .mismatchedAudString),
            (["exp": .number(server.clock.now.timeIntervalSince1970 - 3600)], .pastExp),
        ] {
            let token = try await sign(claims(changes))
            let error = await asyncAuthError { _ = try await validator.validate(Secret(token), expecting: expectations) }
            #expect(error?.idTokenFailure == failure, "\(changes)")
        }
        #expect(server.fetches == 1)
    }

    /// The same tokens through an API's access-token verifier sharing the cache, plus its own claims
    /// checks (issuer, audience, lifetime, scopes).
    @Test func accessTokenVerifierRefusesTheSameTokensOnTheCachedPath() async throws {
        let validator = try await warmed()
        let verifier = AccessTokenVerifier(issuer: "https://idp.example.com/", audience: Self.api, keys: validator.keys, clock: server.clock)
        let apiClaims = claims(["aud": .string(Self.api)])
        let verified = try await verifier.verify(Secret(try await sign(apiClaims)), requiredScopes: ["read:things"])
        #expect(verified.subject == "user-1" && verified.scopes == ["read:things"])
        #expect(try await verifier.verify(Secret(try await signES256(apiClaims))).subject == "user-1")
        for (name, token, failure) in try await hostileTokens(apiClaims) {
            let error = await asyncAuthError { _ = try await verifier.verify(Secret(token)) }
            #expect(error?.code == .invalidToken, "\(name)")
            #expect(error?.idTokenFailure == failure, "\(name): \(String(describing: error?.details))")
        }
        let now = server.clock.now.timeIntervalSince1970
        for (changes, reason): ([String: JSONValue?], String) in [
            (["iss": "https://evil.example.com/"], "mismatchedIss"), (["aud": "https://other.example.com"], "mismatchedAud"),
            (["exp": .number(now - 3600)], "pastExp"), (["exp": nil], "missingExp"), (["nbf": .number(now + 3600)], "futureNbf"),
        ] {
            var changed = apiClaims
            for (k, v) in changes { changed[k] = v }
            let token = try await sign(changed)
            let error = await asyncAuthError { _ = try await verifier.verify(Secret(token)) }
            #expect(error?.code == .invalidToken, "\(changes)")
            #expect(error?.details["reason"] == reason, "\(changes)")
        }
        let error = await asyncAuthError { _ = try await verifier.verify(Secret(try await sign(apiClaims)), requiredScopes: ["write:things"]) }
        #expect(error?.code == .accessDenied && error?.details["scope"] == "write:things")
        #expect(server.fetches == 1)
    }

    /// A JWKS of a single key serves tokens without `kid` from the cache too, with the same pairing
    /// of `alg` and key.
    @Test func soleKeyIsCachedAndBoundToItsAlgorithm() async throws {
        let single = KeyServer([(TestKeys.ecFirst, "e1")])
        let validator = single.validator()
        let expectations = self.expectations
        let noKid = try await signES256(claims(), kid: nil)
        #expect(try await validator.validate(Secret(noKid), expecting: expectations).subject == "user-1")
        #expect(validator.keys.cachedKey(kid: "")?.algorithm == .es256)
        #expect(try await validator.validate(Secret(noKid), expecting: expectations).subject == "user-1")
        let rsaNoKid = try await signWithHeader(["alg": "RS256"], claims(), pem: TestKeys.first)
        let mismatch = await asyncAuthError { _ = try await validator.validate(Secret(rsaNoKid), expecting: expectations) }
        #expect(mismatch?.idTokenFailure == .invalidAlgorithm)
        let forged = try await signES256(claims(), pem: TestKeys.ecSecond, kid: nil)
        let bad = await asyncAuthError { _ = try await validator.validate(Secret(forged), expecting: expectations) }
        #expect(bad?.idTokenFailure == .invalidSignature)
        #expect(single.fetches == 1)
    }
}
