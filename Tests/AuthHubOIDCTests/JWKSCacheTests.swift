import AuthHub
import AuthHubTesting
import Crypto
import Foundation
import JWTKit
import Testing
@testable import AuthHubOIDC

@Suite struct JWKSCacheTests {
    let expectations = IDTokenExpectations(issuer: "https://idp.example.com/", clientId: "client-1")

    func claims(_ clock: FakeClock) -> [String: JSONValue] {
        let now = clock.now.timeIntervalSince1970
        return ["iss": "https://idp.example.com/", "sub": "s", "aud": "client-1", "exp": .number(now + 600), "iat": .number(now)]
    }

    @Test func concurrentValidationsShareOneFetch() async throws {
        let server = KeyServer()
        let validator = server.validator()
        let token = try await sign(claims(server.clock))
        try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<20 {
                group.addTask { try await validator.validate(Secret(token), expecting: expectations).subject }
            }
            for try await subject in group { #expect(subject == "s") }
        }
        #expect(server.fetches == 1)
    }

    @Test func onlyRSAKeysForRS256AndP256KeysForES256AreUsed() async throws {
        let server = KeyServer()
        var encKey = try KeyServer.jwk(TestKeys.first, kid: "enc").objectValue ?? [:]
        encKey["use"] = "enc"
        var rs384Key = try KeyServer.jwk(TestKeys.first, kid: "rs384").objectValue ?? [:]
        rs384Key["alg"] = "RS384"
        let ecKey: JSONValue = ["kty": "EC", "kid": "ec", "crv": "P-256", "x": "AA", "y": "AA"]
        let brokenKey: JSONValue = ["kty": "RSA", "kid": "broken", "n": "not base64!", "e": "AQAB"]
        let keys: JSONValue = ["keys": [.object(encKey), .object(rs384Key), ecKey, brokenKey]]
        server.transport.on(.get, server.path, first: true) { _ in
            .json(200, keys)
        }
        let validator = server.validator()
        for kid in ["enc", "rs384", "ec", "broken"] {
            let token = try await sign(claims(server.clock), kid: kid)
            let error = await asyncAuthError { _ = try await validator.validate(Secret(token), expecting: expectations) }
            #expect(error?.idTokenFailure == .missingPublicKey, "\(kid)")
            #expect(error?.details["kid"] == kid)
        }
    }

    /// EC keys are kept only for P-256 with 32-byte coordinates naming a point on the curve, `alg`
    /// absent or ES256 and `use` absent or `sig`; the others are skipped like malformed RSA keys, and
    /// the good keys of the same document still work.
    @Test func onlyWellFormedP256KeysForES256AreKept() async throws {
        let point = [UInt8](try P256.Signing.PrivateKey(pemRepresentation: TestKeys.ecSecond).publicKey.x963Representation)
        let x = Base64URL.encode(point[1..<33]), y = Base64URL.encode(point[33..<65])
        func ec(_ kid: String, _ changes: [String: JSONValue?] = [:]) -> JSONValue {
            var key: [String: JSONValue] = ["kty": "EC", "crv": "P-256", "kid": .string(kid), "x": .string(x), "y": .string(y)]
            for (k, v) in changes { key[k] = v }
            return .object(key)
        }
        let p384 = [UInt8](try P384.Signing.PrivateKey(pemRepresentation: TestKeys.ecP384).publicKey.x963Representation)
        var offCurve = point
        offCurve[64] ^= 0x01
        // x || y split at 31 bytes: jwt-kit alone would read it as the same point.
        let shifted = (x: Base64URL.encode(point[1..<32]), y: Base64URL.encode(point[32..<65]))
        #expect((try? ES256PublicKey(parameters: shifted)) != nil)
        let skipped: [String: JSONValue] = [
            "p384": ["kty": "EC", "crv": "P-384", "kid": "p384",
                     "x": .string(Base64URL.encode(p384[1..<49])), "y": .string(Base64URL.encode(p384[49..<97]))],
            "crv-p384": ec("crv-p384", ["crv": "P-384"]),
            "crv-missing": ec("crv-missing", ["crv": nil]),
            "secp256k1": ec("secp256k1", ["crv": "secp256k1"]),
            "alg-es384": ec("alg-es384", ["alg": "ES384"]),
            "alg-rs256": ec("alg-rs256", ["alg": "RS256"]),
            "use-enc": ec("use-enc", ["use": "enc"]),
            "kty-rsa": ec("kty-rsa", ["kty": "RSA"]),
            "x-missing": ec("x-missing", ["x": nil]),
            "y-number": ec("y-number", ["y": 5]),
            "x-not-base64": ec("x-not-base64", ["x": "not base64!"]),
            "x-short": ec("x-short", ["x": .string(Base64URL.encode(point[2..<33]))]),
            "shifted": ec("shifted", ["x": .string(shifted.x), "y": .string(shifted.y)]),
            "off-curve": ec("off-curve", ["y": .string(Base64URL.encode(offCurve[33..<65]))]),
        ]
        let document: JSONValue = ["keys": .array([ec("good", ["use": "sig", "alg": "ES256"]), ec("")] + skipped.values)]
        let set = try await JWKSCache.parse(JSONEncoder().encode(document))
        #expect(set.kids == ["good": .es256])

        let server = KeyServer()
        server.transport.on(.get, server.path, first: true) { _ in .json(200, document) }
        let validator = server.validator()
        for kid in skipped.keys.sorted() {
            let token = try await signES256(claims(server.clock), pem: TestKeys.ecSecond, kid: kid)
            let error = await asyncAuthError { _ = try await validator.validate(Secret(token), expecting: expectations) }
            #expect(error?.idTokenFailure == .missingPublicKey, "\(kid)")
        }
        let good = try await signES256(claims(server.clock), pem: TestKeys.ecSecond, kid: "good")
        #expect(try await validator.validate(Secret(good), expecting: expectations).subject == "s")
    }

    /// The key set records each key's algorithm by `kid`, and a single usable key of either type is the sole key.
    @Test func parsedKeySetRecordsEachKeysAlgorithm() async throws {
        let document: JSONValue = ["keys": [try KeyServer.jwk(TestKeys.first, kid: "k1"), try KeyServer.jwk(TestKeys.ecFirst, kid: "e1")]]
        let mixed = try await JWKSCache.parse(JSONEncoder().encode(document))
        #expect(mixed.kids == ["k1": .rs256, "e1": .es256])
        #expect(mixed.sole == nil)
        let ecOnly = try await JWKSCache.parse(JSONEncoder().encode(["keys": [try KeyServer.jwk(TestKeys.ecFirst, kid: "e1")]] as JSONValue))
        #expect(ecOnly.sole?.algorithm == .es256)
        let rsaOnly = try await JWKSCache.parse(JSONEncoder().encode(["keys": [try KeyServer.jwk(TestKeys.first, kid: "k1")]] as JSONValue))
        #expect(rsaOnly.sole?.algorithm == .rs256)
    }

    @Test func malformedJWKSDocumentIsMissingPublicKey() async throws {
        let server = KeyServer()
        server.transport.on(.get, server.path, first: true) { _ in .raw(200, "{\"keys\": 5}") }
        let token = try await sign(claims(server.clock))
        let error = await asyncAuthError { _ = try await server.validator().validate(Secret(token), expecting: expectations) }
        #expect(error?.idTokenFailure == .missingPublicKey)
        #expect((error?.underlying as? AuthError)?.code == .invalidRequest)
    }
}
