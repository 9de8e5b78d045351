import AuthHub
import AuthHubTesting
import Crypto
import Foundation
import JWTKit
import Testing
@testable import AuthHubOIDC

/// An ES256 token signed by jwt-kit with a P-256 test key.
func signES256(_ claims: [String: JSONValue], pem: String = TestKeys.ecFirst, kid: String? = "e1") async throws -> String {
    let keys = JWTKeyCollection()
    await keys.add(ecdsa: try ES256PrivateKey(pem: pem), kid: kid.map { JWKIdentifier(string: $0) })
    return try await keys.sign(TestClaims(claims), kid: kid.map { JWKIdentifier(string: $0) })
}

/// A token with any header, signed over its signing input by a test key through jwt-kit's algorithm
/// for that key (RS256 for an RSA PEM, ES256 for a P-256 PEM), whatever the header's `alg` says.
func signWithHeader(_ header: JSONValue, _ claims: [String: JSONValue], pem: String) async throws -> String {
    let keys = JWTKeyCollection()
    if let ec = try? ES256PrivateKey(pem: pem) {
        await keys.add(ecdsa: ec)
    } else {
        await keys.add(rsa: try Insecure.RSA.PrivateKey(pem: pem), digestAlgorithm: .sha256)
    }
    let parts = try compact(header: header, claims: claims, signature: [])
    let signature = try await keys.getKey().sign(Array(parts.signingInput.utf8))
    return parts.signingInput + "." + Base64URL.encode(signature)
}

/// ES256 ID tokens (Openfort v1's JWKS and many OpenID providers sign with P-256), and the pairing
/// of each key with its one algorithm.
@Suite struct ES256ValidationTests {
    let expectations = IDTokenExpectations(issuer: "https://idp.example.com/", clientId: "client-1", nonce: Secret("n-1"))

    func claims(_ server: KeyServer, _ changes: [String: JSONValue?] = [:]) -> [String: JSONValue] {
        let now = server.clock.now.timeIntervalSince1970
        var c: [String: JSONValue] = ["iss": "https://idp.example.com/", "sub": "player_1", "aud": "client-1",
                                      "exp": .number(now + 3600), "iat": .number(now), "nonce": "n-1"]
        for (k, v) in changes { c[k] = v }
        return c
    }

    /// The error of validating `token` against `server`'s JWKS (nil = valid).
    func error(_ token: String, _ server: KeyServer, validator: IDTokenValidator? = nil) async -> AuthError? {
        let validator = validator ?? server.validator()
        let expectations = self.expectations
        return await asyncAuthError { _ = try await validator.validate(Secret(token), expecting: expectations) }
    }

    @Test func validES256TokenReturnsClaims() async throws {
        let server = KeyServer([(TestKeys.ecFirst, "e1")])
        let validator = server.validator()
        let token = try await signES256(claims(server, ["email": "p@example.com"]))
        let header = try #require(IDTokenValidator.decode(Secret(token))?.header)
        #expect(header["alg"] == "ES256")
        let result = try await validator.validate(Secret(token), expecting: expectations)
        #expect(result.subject == "player_1")
        #expect(result["email"] == "p@example.com")
        _ = try await validator.validate(Secret(token), expecting: expectations)
        #expect(server.fetches == 1)
    }

    @Test func tamperedES256TokenIsRejected() async throws {
        let server = KeyServer([(TestKeys.ecFirst, "e1")])
        let validator = server.validator()
        let token = try await signES256(claims(server))
        let parts = token.split(separator: ".").map(String.init)
        let forgedPayload = Base64URL.encode(try JSONEncoder().encode(JSONValue.object(claims(server, ["sub": "admin"]))))
        #expect(await error(parts[0] + "." + forgedPayload + "." + parts[2], server, validator: validator)?.idTokenFailure == .invalidSignature)
        var signature = try #require(Base64URL.decode(parts[2]))
        #expect(signature.count == 64)
        signature[40] ^= 0x01
        #expect(await error(parts[0] + "." + parts[1] + "." + Base64URL.encode(signature), server, validator: validator)?.idTokenFailure
            == .invalidSignature)
        #expect(await error(parts[0] + "." + parts[1] + ".", server, validator: validator)?.idTokenFailure == .invalidSignature)
        // The untouched token still verifies: the failures above are the tampering's.
        #expect(await error(token, server, validator: validator) == nil)
    }

    @Test func es256TokenSignedByAnotherP256KeyUnderAKnownKidIsRejected() async throws {
        let server = KeyServer([(TestKeys.ecFirst, "e1")])
        let token = try await signES256(claims(server), pem: TestKeys.ecSecond, kid: "e1")
        let failure = await error(token, server)
        #expect(failure?.idTokenFailure == .invalidSignature)
        #expect(failure?.details["kid"] == "e1")
    }

    /// JWS ES256 signatures are the raw 64-byte `r || s` (RFC 7518 §3.4); the same signature in
    /// ASN.1 DER (what OpenSSL and most ECDSA APIs emit) is refused.
    @Test func derEncodedES256SignatureIsRefused() async throws {
        let server = KeyServer([(TestKeys.ecFirst, "e1")])
        let validator = server.validator()
        let parts = try compact(header: ["alg": "ES256", "typ": "JWT", "kid": "e1"], claims: claims(server), signature: [])
        let key = try P256.Signing.PrivateKey(pemRepresentation: TestKeys.ecFirst)
        let signature = try key.signature(for: Data(parts.signingInput.utf8))
        let der = parts.signingInput + "." + Base64URL.encode(signature.derRepresentation)
        let raw = parts.signingInput + "." + Base64URL.encode(signature.rawRepresentation)
        #expect(signature.derRepresentation.count > 64)
        #expect(await error(der, server, validator: validator)?.idTokenFailure == .invalidSignature)
        #expect(await error(raw, server, validator: validator) == nil)
    }

    /// An ES256 header naming an RSA key fails as `invalidAlgorithm` (the design decision documented
    /// on ``IDTokenValidator``), even when the signature is a valid RSA signature by that very key —
    /// jwt-kit alone would accept it, since it picks the key by `kid` and ignores the header's `alg`.
    @Test func es256HeaderNamingAnRSAKeyIsInvalidAlgorithm() async throws {
        let server = KeyServer([(TestKeys.first, "k1"), (TestKeys.ecFirst, "e1")])
        let validator = server.validator()
        let rsaSigned = try await signWithHeader(["alg": "ES256", "typ": "JWT", "kid": "k1"], claims(server), pem: TestKeys.first)
        let failure = await error(rsaSigned, server, validator: validator)
        #expect(failure?.idTokenFailure == .invalidAlgorithm)
        #expect(failure?.details["actual"] == "ES256")
        #expect(failure?.details["expected"] == "RS256")
        #expect(failure?.details["kid"] == "k1")
        let ecSigned = try await signES256(claims(server), pem: TestKeys.ecFirst, kid: "k1")
        #expect(await error(ecSigned, server, validator: validator)?.idTokenFailure == .invalidAlgorithm)
        // The same RSA signature under its own algorithm is fine.
        let honest = try await signWithHeader(["alg": "RS256", "typ": "JWT", "kid": "k1"], claims(server), pem: TestKeys.first)
        #expect(await error(honest, server, validator: validator) == nil)
    }

    @Test func rs256HeaderNamingAnECKeyIsInvalidAlgorithm() async throws {
        let server = KeyServer([(TestKeys.first, "k1"), (TestKeys.ecFirst, "e1")])
        let validator = server.validator()
        let ecSigned = try await signWithHeader(["alg": "RS256", "typ": "JWT", "kid": "e1"], claims(server), pem: TestKeys.ecFirst)
        let failure = await error(ecSigned, server, validator: validator)
        #expect(failure?.idTokenFailure == .invalidAlgorithm)
        #expect(failure?.details["actual"] == "RS256")
        #expect(failure?.details["expected"] == "ES256")
        let rsaSigned = try await sign(claims(server), pem: TestKeys.first, kid: "e1")
        #expect(await error(rsaSigned, server, validator: validator)?.idTokenFailure == .invalidAlgorithm)
        let honest = try await signWithHeader(["alg": "ES256", "typ": "JWT", "kid": "e1"], claims(server), pem: TestKeys.ecFirst)
        #expect(await error(honest, server, validator: validator) == nil)
        #expect(server.fetches == 1)
    }

    @Test func mixedRSAAndECJWKSVerifiesBothKinds() async throws {
        let server = KeyServer([(TestKeys.first, "k1"), (TestKeys.ecFirst, "e1"), (TestKeys.second, "k2"), (TestKeys.ecSecond, "e2")])
        let validator = server.validator()
        for token in [try await sign(claims(server), pem: TestKeys.first, kid: "k1"),
                      try await sign(claims(server), pem: TestKeys.second, kid: "k2"),
                      try await signES256(claims(server), pem: TestKeys.ecFirst, kid: "e1"),
                      try await signES256(claims(server), pem: TestKeys.ecSecond, kid: "e2")] {
            #expect(await error(token, server, validator: validator) == nil)
        }
        // Keys of the same type are not interchangeable either.
        let crossed = try await signES256(claims(server), pem: TestKeys.ecSecond, kid: "e1")
        #expect(await error(crossed, server, validator: validator)?.idTokenFailure == .invalidSignature)
        #expect(server.fetches == 1)
    }

    @Test func rotatedECKeyIsFoundByARefetch() async throws {
        let server = KeyServer([(TestKeys.first, "k1")])
        let validator = server.validator()
        #expect(await error(try await sign(claims(server)), server, validator: validator) == nil)
        server.serve([(TestKeys.first, "k1"), (TestKeys.ecFirst, "e1")])
        server.clock.advance(by: 120)
        #expect(await error(try await signES256(claims(server)), server, validator: validator) == nil)
        #expect(server.fetches == 2)
    }

    /// Without `kid`, the JWKS's single usable key verifies, whichever its type, but only for its own algorithm.
    @Test func missingKidWithASingleECKey() async throws {
        let server = KeyServer([(TestKeys.ecFirst, "e1")])
        let validator = server.validator()
        #expect(await error(try await signES256(claims(server), kid: nil), server, validator: validator) == nil)
        let forged = try await signES256(claims(server), pem: TestKeys.ecSecond, kid: nil)
        #expect(await error(forged, server, validator: validator)?.idTokenFailure == .invalidSignature)
        let wrongAlg = try await signWithHeader(["alg": "RS256", "typ": "JWT"], claims(server), pem: TestKeys.ecFirst)
        let failure = await error(wrongAlg, server, validator: validator)
        #expect(failure?.idTokenFailure == .invalidAlgorithm)
        #expect(failure?.details["expected"] == "ES256")

        let rsaOnly = KeyServer([(TestKeys.first, "k1")])
        #expect(await error(try await signES256(claims(rsaOnly), kid: nil), rsaOnly)?.idTokenFailure == .invalidAlgorithm)
        let rsaSignedAsES256 = try await signWithHeader(["alg": "ES256"], claims(rsaOnly), pem: TestKeys.first)
        #expect(await error(rsaSignedAsES256, rsaOnly)?.idTokenFailure == .invalidAlgorithm)

        let two = KeyServer([(TestKeys.first, "k1"), (TestKeys.ecFirst, "e1")])
        #expect(await error(try await signES256(claims(two), kid: nil), two)?.idTokenFailure == .missingPublicKey)
    }

    /// Algorithms other than RS256 and ES256 fail before the JWKS is fetched, whatever key signed them.
    @Test func otherAlgorithmsAreRejectedBeforeAnyKeyIsLookedAt() async throws {
        let server = KeyServer([(TestKeys.ecFirst, "e1")])
        let validator = server.validator()
        let p384 = JWTKeyCollection()
        await p384.add(ecdsa: try ES384PrivateKey(pem: TestKeys.ecP384), kid: "e1")
        let es384 = try await p384.sign(TestClaims(claims(server)), kid: "e1")
        #expect(IDTokenValidator.decode(Secret(es384))?.header["alg"] == "ES384")
        let failure = await error(es384, server, validator: validator)
        #expect(failure?.idTokenFailure == .invalidAlgorithm)
        #expect(failure?.details["actual"] == "ES384")
        #expect(failure?.details["expected"] == "RS256 or ES256")

        // HS256 keyed with the EC public key (PEM and raw point), and look-alike names.
        let publicKey = try P256.Signing.PrivateKey(pemRepresentation: TestKeys.ecFirst).publicKey
        for secret in [Data(publicKey.pemRepresentation.utf8), publicKey.x963Representation] {
            let parts = try compact(header: ["alg": "HS256", "typ": "JWT", "kid": "e1"], claims: claims(server), signature: [])
            let mac = HMAC<SHA256>.authenticationCode(for: Data(parts.signingInput.utf8), using: SymmetricKey(data: secret))
            #expect(await error(parts.signingInput + "." + Base64URL.encode(Data(mac)), server, validator: validator)?.idTokenFailure
                == .invalidAlgorithm)
        }
        for alg: JSONValue in ["es256", "ES256K", "ES512", "PS256", "none", 256] {
            let token = try await signWithHeader(["alg": alg, "kid": "e1"], claims(server), pem: TestKeys.ecFirst)
            #expect(await error(token, server, validator: validator)?.idTokenFailure == .invalidAlgorithm, "\(alg)")
        }
        #expect(server.fetches == 0)
    }
}
