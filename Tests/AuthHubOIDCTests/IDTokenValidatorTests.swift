import AuthHub
import AuthHubTesting
import Crypto
import Foundation
import JWTKit
import Testing
@testable import AuthHubOIDC

/// Arbitrary claims, signed by jwt-kit in tests.
struct TestClaims: JWTPayload {
    var claims: [String: JSONValue]
    init(_ claims: [String: JSONValue]) { self.claims = claims }
    init(from decoder: any Decoder) throws { claims = try [String: JSONValue](from: decoder) }
    func encode(to encoder: any Encoder) throws { try claims.encode(to: encoder) }
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// A JWKS endpoint behind a StubTransport whose keys tests can rotate.
final class KeyServer: Sendable {
    let transport = StubTransport()
    let clock = FakeClock()
    private let served = Mutex<[(pem: String, kid: String)]>([])
    let path = "/.well-known/jwks.json"

    init(_ keys: [(pem: String, kid: String)] = [(TestKeys.first, "k1")]) {
        served.withLock { $0 = keys }
        transport.on(.get, path) { [served] _ in
            let keys = try served.withLock { $0 }.map { try KeyServer.jwk($0.pem, kid: $0.kid) }
            return .json(200, ["keys": .array(keys)])
        }
    }

    func serve(_ keys: [(pem: String, kid: String)]) { served.withLock { $0 = keys } }

    var fetches: Int { transport.requests(to: path).count }

    /// The public JWK of a test key: an EC JWK for a P-256 PEM (coordinates taken from swift-crypto,
    /// independently of jwt-kit), an RSA JWK otherwise.
    static func jwk(_ pem: String, kid: String) throws -> JSONValue {
        if let ec = try? P256.Signing.PrivateKey(pemRepresentation: pem) {
            let point = [UInt8](ec.publicKey.x963Representation)  // 0x04 || x || y
            return ["kty": "EC", "crv": "P-256", "use": "sig", "alg": "ES256", "kid": .string(kid),
                    "x": .string(Base64URL.encode(point[1..<33])), "y": .string(Base64URL.encode(point[33..<65]))]
        }
        let primitives = try Insecure.RSA.PrivateKey(pem: pem).publicKey.getKeyPrimitives()
        return ["kty": "RSA", "use": "sig", "alg": "RS256", "kid": .string(kid),
                "n": .string(Base64URL.encode(primitives.modulus)), "e": .string(Base64URL.encode(primitives.publicExponent))]
    }

    func validator() -> IDTokenValidator {
        let cache = JWKSCache(jwksURI: path, api: makeAPI(transport, clock: clock), clock: clock)
        return IDTokenValidator(keys: cache, clock: clock)
    }
}

func sign(_ claims: [String: JSONValue], pem: String = TestKeys.first, kid: String? = "k1") async throws -> String {
    let keys = JWTKeyCollection()
    let key = try Insecure.RSA.PrivateKey(pem: pem)
    await keys.add(rsa: key, digestAlgorithm: .sha256, kid: kid.map { JWKIdentifier(string: $0) })
    return try await keys.sign(TestClaims(claims), kid: kid.map { JWKIdentifier(string: $0) })
}

/// A compact JWT with any header and signature bytes.
func compact(header: JSONValue, claims: [String: JSONValue], signature: [UInt8]) throws -> (signingInput: String, token: String) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let input = Base64URL.encode(try encoder.encode(header)) + "." + Base64URL.encode(try encoder.encode(JSONValue.object(claims)))
    return (input, input + "." + Base64URL.encode(signature))
}

@Suite struct IDTokenValidatorTests {
    let server = KeyServer()
    let validator: IDTokenValidator
    let now: Double
    let expectations = IDTokenExpectations(issuer: "https://idp.example.com/", clientId: "client-1", nonce: Secret("n-1"))

    init() {
        validator = server.validator()
        now = server.clock.now.timeIntervalSince1970
    }

    func claims(_ changes: [String: JSONValue?] = [:]) -> [String: JSONValue] {
        var c: [String: JSONValue] = ["iss": "https://idp.example.com/", "sub": "auth0|123", "aud": "client-1",
                                      "exp": .number(now + 3600), "iat": .number(now), "nonce": "n-1", "email": "a@example.com"]
        for (k, v) in changes { c[k] = v }
        return c
    }

    /// The failure reason for a token signed with the first key and these claim changes (nil = valid).
    func failure(_ changes: [String: JSONValue?], _ expecting: IDTokenExpectations? = nil) async throws -> IDTokenValidationFailure? {
        let token = try await sign(claims(changes))
        return try await failure(token: token, expecting ?? expectations)
    }

    func failure(token: String, _ expecting: IDTokenExpectations? = nil) async throws -> IDTokenValidationFailure? {
        do {
            _ = try await validator.validate(Secret(token), expecting: expecting ?? expectations)
            return nil
        } catch let error as AuthError {
            #expect(error.code == .invalidToken)
            #expect(error.idTokenFailure != nil, "no reason in \(error.details)")
            return error.idTokenFailure
        }
    }

    @Test func validTokenReturnsClaimsAndTheJWKSIsFetchedOnce() async throws {
        let token = try await sign(claims())
        let result = try await validator.validate(Secret(token), expecting: expectations)
        #expect(result.subject == "auth0|123")
        #expect(result.issuer == "https://idp.example.com/")
        #expect(result.audience == ["client-1"])
        #expect(result["email"] == "a@example.com")
        #expect(result.expiresAt == Date(timeIntervalSince1970: now + 3600))
        _ = try await validator.validate(Secret(token), expecting: expectations)
        #expect(server.fetches == 1)
        #expect(server.transport.requests.first?.method == .get)
        #expect(server.transport.requests.first?.url.absoluteString == "https://idp.example.com/.well-known/jwks.json")
    }

    @Test func decodingFailures() async throws {
        #expect(try await failure(token: "") == .missingIDToken)
        for bad in ["abc", "a.b", "a.b.c.d", "!!.!!.!!", "e30.bm90anNvbg.", "W10.e30.c2ln"] {
            #expect(try await failure(token: bad) == .cannotDecode, "\(bad)")
        }
        #expect(server.fetches == 0)
    }

    @Test func algNoneIsRejected() async throws {
        for header: JSONValue in [["alg": "none", "typ": "JWT"], ["alg": "none", "kid": "k1"], ["alg": "None", "kid": "k1"],
                                  ["typ": "JWT", "kid": "k1"]] {
            let unsigned = try compact(header: header, claims: claims(), signature: [])
            #expect(try await failure(token: unsigned.token) == .invalidAlgorithm)
        }
        #expect(server.fetches == 0)
    }

    @Test func hs256SignedWithTheRSAPublicKeyIsRejected() async throws {
        let publicPEM = try Insecure.RSA.PrivateKey(pem: TestKeys.first).publicKey.pemRepresentation
        let parts = try compact(header: ["alg": "HS256", "typ": "JWT", "kid": "k1"], claims: claims(), signature: [])
        let mac = HMAC<SHA256>.authenticationCode(for: Data(parts.signingInput.utf8), using: SymmetricKey(data: Data(publicPEM.utf8)))
        let token = parts.signingInput + "." + Base64URL.encode(Data(mac))
        let error = await asyncAuthError { _ = try await validator.validate(Secret(token), expecting: expectations) }
        #expect(error?.idTokenFailure == .invalidAlgorithm)
        #expect(error?.details["actual"] == "HS256")
        #expect(server.fetches == 0)
    }

    /// A token without `kid` is verified only against a JWKS holding a single key (OIDC Core
    /// §10.1; oidc-provider-mock issues such tokens); with several keys it has no key.
    @Test func missingKidNeedsASingleKeyJWKS() async throws {
        let token = try await sign(claims(), kid: nil)
        #expect(try await validator.validate(Secret(token), expecting: expectations).subject == "auth0|123")
        let forged = try await sign(claims(), pem: TestKeys.second, kid: nil)
        #expect(try await failure(token: forged) == .invalidSignature)

        let other = KeyServer()
        other.serve([(TestKeys.first, "k1"), (TestKeys.second, "k2")])
        let error = await asyncAuthError { _ = try await other.validator().validate(Secret(token), expecting: expectations) }
        #expect(error?.idTokenFailure == .missingPublicKey)
    }

    @Test func unknownKidIsRejectedAfterExactlyOneRateLimitedRefetch() async throws {
        _ = try await validator.validate(Secret(try await sign(claims())), expecting: expectations)
        #expect(server.fetches == 1)
        server.clock.advance(by: 61)
        let unknown = try await sign(claims(), pem: TestKeys.second, kid: "k-unknown")
        #expect(try await failure(token: unknown) == .missingPublicKey)
        #expect(server.fetches == 2)
        // Within the refetch interval an unknown kid does not cause another fetch.
        #expect(try await failure(token: unknown) == .missingPublicKey)
        #expect(server.fetches == 2)
        server.clock.advance(by: 61)
        #expect(try await failure(token: unknown) == .missingPublicKey)
        #expect(server.fetches == 3)
    }

    @Test func rotatedKeyIsFoundByARefetch() async throws {
        _ = try await validator.validate(Secret(try await sign(claims())), expecting: expectations)
        server.serve([(TestKeys.first, "k1"), (TestKeys.second, "k2")])
        server.clock.advance(by: 120)
        let rotated = try await sign(claims(["exp": .number(now + 7200)]), pem: TestKeys.second, kid: "k2")
        let result = try await validator.validate(Secret(rotated), expecting: expectations)
        #expect(result.subject == "auth0|123")
        #expect(server.fetches == 2)
    }

    @Test func failedJWKSFetchIsMissingPublicKeyWithTheCause() async throws {
        server.transport.on(.get, server.path, first: true) { _ in .raw(500, "") }
        let error = await asyncAuthError { _ = try await validator.validate(Secret(try await sign(claims())), expecting: expectations) }
        #expect(error?.idTokenFailure == .missingPublicKey)
        #expect((error?.underlying as? AuthError)?.code == .providerUnavailable)
    }

    @Test func tamperedSignatureIsRejected() async throws {
        let token = try await sign(claims())
        let parts = token.split(separator: ".").map(String.init)
        let forgedPayload = Base64URL.encode(try JSONEncoder().encode(JSONValue.object(claims(["sub": "admin"]))))
        #expect(try await failure(token: parts[0] + "." + forgedPayload + "." + parts[2]) == .invalidSignature)
        var signature = try #require(Base64URL.decode(parts[2]))
        signature[10] ^= 0x01
        #expect(try await failure(token: parts[0] + "." + parts[1] + "." + Base64URL.encode(signature)) == .invalidSignature)
        #expect(try await failure(token: parts[0] + "." + parts[1] + ".") == .invalidSignature)
    }

    @Test func tokenSignedByAnotherKeyUnderAKnownKidIsRejected() async throws {
        let token = try await sign(claims(), pem: TestKeys.second, kid: "k1")
        #expect(try await failure(token: token) == .invalidSignature)
    }

    @Test func issuerChecks() async throws {
        #expect(try await failure(["iss": nil]) == .missingIss)
        #expect(try await failure(["iss": 42]) == .missingIss)
        #expect(try await failure(["iss": "https://evil.example.com/"]) == .mismatchedIss)
        #expect(try await failure(["iss": "https://idp.example.com"]) == .mismatchedIss)  // trailing slash matters
    }

    @Test func subjectChecks() async throws {
        #expect(try await failure(["sub": nil]) == .missingSub)
        #expect(try await failure(["sub": ""]) == .missingSub)
    }

    @Test func audienceChecks() async throws {
        #expect(try await failure(["aud": nil]) == .missingAud)
        #expect(try await failure(["aud": []]) == .missingAud)
        #expect(try await failure(["aud": ""]) == .missingAud)
        #expect(try await failure(["aud": "other-client"]) == .mismatchedAudString)
        #expect(try await failure(["aud": ["a", "b"]]) == .mismatchedAudArray)
        #expect(try await failure(["aud": ["client-1"]]) == nil)
    }

    @Test func expiryWithSixtySecondLeeway() async throws {
        #expect(try await failure(["exp": nil]) == .missingExp)
        #expect(try await failure(["exp": "tomorrow"]) == .missingExp)
        #expect(try await failure(["exp": .number(now - 61)]) == .pastExp)
        #expect(try await failure(["exp": .number(now - 60)]) == .pastExp)
        #expect(try await failure(["exp": .number(now - 59)]) == nil)
    }

    @Test func issuedAtIsRequiredButNotComparedWithTheClock() async throws {
        #expect(try await failure(["iat": nil]) == .missingIat)
        #expect(try await failure(["iat": .number(now + 86400)]) == nil)
    }

    @Test func nonceChecks() async throws {
        #expect(try await failure(["nonce": nil]) == .missingNonce)
        #expect(try await failure(["nonce": "n-2"]) == .mismatchedNonce)
        var noNonce = expectations
        noNonce.nonce = nil
        #expect(try await failure(["nonce": "anything"], noNonce) == nil)
        #expect(try await failure(["nonce": nil], noNonce) == nil)
    }

    @Test func authorizedPartyIsCheckedOnlyForSeveralAudiences() async throws {
        #expect(try await failure(["aud": ["client-1", "api"]]) == .missingAzp)
        #expect(try await failure(["aud": ["client-1", "api"], "azp": "api"]) == .mismatchedAzp)
        #expect(try await failure(["aud": ["client-1", "api"], "azp": "client-1"]) == nil)
        #expect(try await failure(["azp": "someone-else"]) == nil)
    }

    @Test func authTimeIsCheckedAgainstMaxAgeWithLeeway() async throws {
        var withMaxAge = expectations
        withMaxAge.maxAge = 300
        #expect(try await failure([:], withMaxAge) == .missingAuthTime)
        #expect(try await failure(["auth_time": .number(now - 361)], withMaxAge) == .pastLastAuth)
        #expect(try await failure(["auth_time": .number(now - 360)], withMaxAge) == nil)
        #expect(try await failure(["auth_time": .number(now - 10_000)]) == nil)  // no max_age: not checked
    }

    /// Fuzzing (issue 16): a signed `exp` or `auth_time` too large for an integer trapped while the
    /// rejection's details were written (`Int(-1e300)`); each is the typed failure.
    @Test func absurdTimeClaimsAreTypedFailuresNotATrap() async throws {
        // Range first (HostileNumberTests): no time claim outside 1970–9999 reaches a conversion.
        #expect(try await failure(["exp": .number(-1e300)]) == .invalidTimeClaim)
        #expect(try await failure(["exp": .number(-9.3e18)]) == .invalidTimeClaim)
        var withMaxAge = expectations
        withMaxAge.maxAge = 300
        #expect(try await failure(["auth_time": .number(-1e300)], withMaxAge) == .invalidTimeClaim)
        #expect(try await failure(["exp": .number(1e300), "iat": .number(-1e300), "auth_time": .number(1e300)], withMaxAge) == .invalidTimeClaim)
    }

    @Test func organizationChecks() async throws {
        var byID = expectations
        byID.organization = "org_abc"
        #expect(try await failure([:], byID) == .missingOrgId)
        #expect(try await failure(["org_id": "org_xyz"], byID) == .mismatchedOrgId)
        #expect(try await failure(["org_id": "org_abc"], byID) == nil)
        var byName = expectations
        byName.organization = "Acme"
        #expect(try await failure([:], byName) == .missingOrgName)
        #expect(try await failure(["org_name": "Acme"], byName) == .mismatchedOrgName)
        #expect(try await failure(["org_name": "acme"], byName) == nil)
    }

    @Test func firstFailureWinsInSpecOrder() async throws {
        #expect(try await failure(["iss": "https://evil.example.com/", "exp": .number(now - 3600), "nonce": nil]) == .mismatchedIss)
        #expect(try await failure(["aud": "other", "exp": nil]) == .mismatchedAudString)
        #expect(try await failure(["exp": .number(now - 3600), "iat": nil]) == .pastExp)
        #expect(try await failure(["nonce": "bad", "aud": ["client-1", "x"]]) == .mismatchedNonce)
        let unsigned = try compact(header: ["alg": "none"], claims: claims(["iss": nil]), signature: [])
        #expect(try await failure(token: unsigned.token) == .invalidAlgorithm)
    }

    @Test func errorsCarryNoSecrets() async throws {
        let error = await asyncAuthError {
            _ = try await validator.validate(Secret(try await sign(claims(["nonce": "n-WRONG"]))), expecting: expectations)
        }
        let text = "\(String(describing: error)) \(error?.details ?? [:])"
        #expect(!text.contains("n-WRONG"))
        #expect(!text.contains("n-1"))
        #expect(error?.details["reason"] == "mismatchedNonce")
    }

    @Test func expectationsFromATransaction() throws {
        var request = OIDCAuthorizationRequest(authorizationEndpoint: authorizeURL, clientId: "client-1", redirectURI: redirect)
        request.maxAge = 120
        request.organization = "org_1"
        let tx = try request.makeTransaction(random: CountingRandom())
        let e = IDTokenExpectations(issuer: "https://idp.example.com/", transaction: tx)
        #expect(e.clientId == "client-1")
        #expect(e.nonce == tx.nonce)
        #expect(e.maxAge == 120)
        #expect(e.organization == "org_1")
        #expect(e.leeway == 60)
    }
}
