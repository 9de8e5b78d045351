import AuthHub
import AuthHubTesting
import Foundation
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

    @Test func onlyRSASignatureKeysForRS256AreUsed() async throws {
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

    @Test func malformedJWKSDocumentIsMissingPublicKey() async throws {
        let server = KeyServer()
        server.transport.on(.get, server.path, first: true) { _ in .raw(200, "{\"keys\": 5}") }
        let token = try await sign(claims(server.clock))
        let error = await asyncAuthError { _ = try await server.validator().validate(Secret(token), expecting: expectations) }
        #expect(error?.idTokenFailure == .missingPublicKey)
        #expect((error?.underlying as? AuthError)?.code == .invalidRequest)
    }
}
