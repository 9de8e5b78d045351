import AuthHub
import AuthHubTesting
import Foundation
import Testing
@testable import AuthHubOIDC

/// Replies that break the wire models: the error names the provider, the operation and the field,
/// instead of a session with an empty token or a discovery document with a hole in it.
@Suite struct OIDCWireDecodingTests {
    let transport = StubTransport()

    func client() -> OIDCTokenClient {
        OIDCTokenClient(api: makeAPI(transport), tokenEndpoint: "/oauth/token", clientId: "client-1")
    }

    static let brokenTokenReplies: [(JSONValue, String, String)] = [
        (["token_type": "Bearer", "expires_in": 60], "access_token", "missingField"),
        (["access_token": .null, "expires_in": 60], "access_token", "nullField"),
        (["access_token": 42, "expires_in": 60], "access_token", "wrongType"),
        (["access_token": "", "expires_in": 60], "access_token", "invalidValue"),
        (["access_token": "AT", "expires_in": true], "expires_in", "wrongType"),
        (["access_token": "AT", "expires_in": -5], "expires_in", "invalidValue"),
        (["access_token": "AT", "refresh_token": ["RT"]], "refresh_token", "wrongType"),
    ]

    @Test(arguments: brokenTokenReplies)
    func codeExchangeReplyBreakingTheModelNamesTheField(body: JSONValue, field: String, reason: String) async {
        transport.on(.post, "/oauth/token") { _ in .json(200, body) }
        let error = await asyncAuthError {
            _ = try await client().exchange(code: Secret("C"), codeVerifier: Secret("V"), redirectURI: redirect)
        }
        #expect(error?.code == .invalidRequest)
        #expect(error?.provider == "oidc")
        #expect(error?.details["operation"] == AuthOperation.tokenExchange.rawValue)
        #expect(error?.details["field"] == field)
        #expect(error?.details["reason"] == reason)
    }

    @Test(arguments: brokenTokenReplies)
    func refreshReplyBreakingTheModelNamesTheField(body: JSONValue, field: String, reason: String) async {
        transport.on(.post, "/oauth/token") { _ in .json(200, body) }
        let error = await asyncAuthError { _ = try await client().refresh(refreshToken: Secret("RT")) }
        #expect(error?.code == .invalidRequest)
        #expect(error?.provider == "oidc")
        #expect(error?.details["operation"] == AuthOperation.refresh.rawValue)
        #expect(error?.details["field"] == field)
    }

    @Test(arguments: ["issuer", "jwks_uri"])
    func discoveryWithoutARequiredFieldNamesIt(field: String) async {
        var document = DiscoveryTests.document(issuer: "https://idp.example.com/")
        document[field] = nil
        let reply = document
        transport.on(.get, "/.well-known/openid-configuration") { _ in .json(200, .object(reply)) }
        let error = await asyncAuthError { _ = try await OIDCProviderMetadata.fetch(issuer: issuerURL, using: makeAPI(transport)) }
        #expect(error?.code == .invalidRequest)
        #expect(error?.provider == "oidc")
        #expect(error?.details["operation"] == AuthOperation.discovery.rawValue)
        #expect(error?.details["field"] == field)
        #expect(error?.details["reason"] == "missingField")
        #expect(error?.statusCode == 200)
    }

    @Test func discoveryWithAWronglyTypedIssuerNamesIt() async {
        var document = DiscoveryTests.document(issuer: "https://idp.example.com/")
        document["issuer"] = ["https://idp.example.com/"]
        let reply = document
        transport.on(.get, "/.well-known/openid-configuration") { _ in .json(200, .object(reply)) }
        let error = await asyncAuthError { _ = try await OIDCProviderMetadata.fetch(issuer: issuerURL, using: makeAPI(transport)) }
        #expect(error?.code == .invalidRequest)
        #expect(error?.details["field"] == "issuer" && error?.details["reason"] == "wrongType")
        #expect(error?.details["operation"] == AuthOperation.discovery.rawValue)
    }

    @Test func jwksWithoutKeysNamesTheField() async {
        transport.on(.get, "/jwks") { _ in .json(200, ["keys": "none"]) }
        let cache = JWKSCache(jwksURI: "https://idp.example.com/jwks", api: makeAPI(transport), clock: FakeClock())
        let error = await asyncAuthError { _ = try await cache.keys(containing: "k1") }
        let cause = error?.underlying as? AuthError
        #expect(cause?.details["field"] == "keys" || error?.details["field"] == "keys", "\(String(describing: error))")
    }
}
