import AuthHub
import AuthHubTesting
import Foundation
import Testing
@testable import AuthHubOIDC

@Suite struct DiscoveryTests {
    let transport = StubTransport()

    static func document(issuer: String = "https://idp.example.com/tenant1") -> [String: JSONValue] {
        [
            "issuer": .string(issuer),
            "authorization_endpoint": "https://idp.example.com/tenant1/authorize",
            "token_endpoint": "https://idp.example.com/tenant1/token",
            "jwks_uri": "https://idp.example.com/tenant1/jwks",
            "userinfo_endpoint": "https://idp.example.com/tenant1/userinfo",
            "end_session_endpoint": "https://idp.example.com/tenant1/logout",
            "response_types_supported": ["code"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "code_challenge_methods_supported": ["S256", "plain"],
        ]
    }

    @Test func discoveryURLAppendsWellKnownToTheIssuerPath() {
        #expect(OIDCProviderMetadata.discoveryURL(for: URL(string: "https://idp.example.com/tenant1")!).absoluteString
            == "https://idp.example.com/tenant1/.well-known/openid-configuration")
        #expect(OIDCProviderMetadata.discoveryURL(for: URL(string: "https://idp.example.com/")!).absoluteString
            == "https://idp.example.com/.well-known/openid-configuration")
    }

    @Test func fetchesAndDecodesTheDocument() async throws {
        transport.on(.get, "/tenant1/.well-known/openid-configuration") { _ in .json(200, .object(Self.document())) }
        let metadata = try await OIDCProviderMetadata.fetch(issuer: URL(string: "https://idp.example.com/tenant1")!,
                                                           using: makeAPI(transport))
        #expect(transport.requests.count == 1)
        #expect(transport.requests.first?.method == .get)
        #expect(transport.requests.first?.headerFields["Accept"] == "application/json")
        #expect(metadata.issuer == "https://idp.example.com/tenant1")
        #expect(metadata.authorizationEndpoint.absoluteString == "https://idp.example.com/tenant1/authorize")
        #expect(metadata.tokenEndpoint.absoluteString == "https://idp.example.com/tenant1/token")
        #expect(metadata.jwksURI.absoluteString == "https://idp.example.com/tenant1/jwks")
        #expect(metadata.endSessionEndpoint?.absoluteString == "https://idp.example.com/tenant1/logout")
        #expect(metadata.revocationEndpoint == nil)
        #expect(metadata.codeChallengeMethodsSupported == ["S256", "plain"])
        #expect(metadata.scopesSupported == [])
    }

    @Test func issuerMismatchIsAConfigurationError() async {
        transport.on(.get, "/tenant1/.well-known/openid-configuration") { _ in
            .json(200, .object(Self.document(issuer: "https://evil.example.com/tenant1")))
        }
        let error = await asyncAuthError {
            _ = try await OIDCProviderMetadata.fetch(issuer: URL(string: "https://idp.example.com/tenant1")!, using: makeAPI(transport))
        }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.details["field"] == "issuer")
        #expect(error?.provider == "oidc")
    }

    @Test(arguments: ["token_endpoint", "jwks_uri", "authorization_endpoint", "issuer"])
    func missingRequiredFieldIsNamed(field: String) {
        var doc = Self.document()
        doc[field] = nil
        let data = try! JSONEncoder().encode(JSONValue.object(doc))
        let error = authError { _ = try OIDCProviderMetadata.decode(data, expectedIssuer: nil, provider: "oidc") }
        #expect(error?.code == .invalidRequest)
        #expect(error?.details["field"] == field)
        #expect(error?.message.contains(field) == true)
    }

    @Test(arguments: [("jwks_uri", JSONValue.string("not a url")), ("token_endpoint", .number(3)),
                      ("userinfo_endpoint", .string("ftp://x.example.com/u")), ("scopes_supported", .string("openid")),
                      ("response_types_supported", .array(["code", 1]))])
    func malformedFieldIsNamed(field: String, value: JSONValue) {
        var doc = Self.document()
        doc[field] = value
        let data = try! JSONEncoder().encode(JSONValue.object(doc))
        let error = authError { _ = try OIDCProviderMetadata.decode(data, expectedIssuer: nil, provider: "oidc") }
        #expect(error?.code == .invalidRequest)
        #expect(error?.details["field"] == field)
    }

    /// Plain http off loopback would carry codes, tokens and `id_token_hint` in clear text to a third
    /// host: refused for every endpoint, required or not; loopback http (the emulator) stays allowed.
    @Test(arguments: ["authorization_endpoint", "token_endpoint", "jwks_uri", "end_session_endpoint", "userinfo_endpoint",
                      "revocation_endpoint", "device_authorization_endpoint"])
    func plainHTTPOffLoopbackIsRefused(field: String) throws {
        var doc = Self.document()
        doc[field] = "http://logout.attacker.example/end"
        let data = try JSONEncoder().encode(JSONValue.object(doc))
        let error = authError { _ = try OIDCProviderMetadata.decode(data, expectedIssuer: nil, provider: "oidc") }
        #expect(error?.code == .invalidRequest)
        #expect(error?.details["field"] == field)
        for loopback in ["http://127.0.0.1:8750/end", "http://localhost/end", "http://[::1]:9/end"] {
            doc[field] = .string(loopback)
            #expect(throws: Never.self) { _ = try OIDCProviderMetadata.decode(try JSONEncoder().encode(JSONValue.object(doc)), expectedIssuer: nil, provider: "oidc") }
        }
    }

    @Test(arguments: ["", "[]", "{", "<html></html>", "\"issuer\""])
    func notAnObjectIsAClearError(body: String) {
        let error = authError { _ = try OIDCProviderMetadata.decode(Data(body.utf8), expectedIssuer: nil, provider: "oidc") }
        #expect(error?.code == .invalidRequest)
    }

    @Test func httpErrorFromTheDiscoveryEndpointIsMapped() async {
        transport.on(.get, "/.well-known/openid-configuration") { _ in .raw(404, "not found") }
        let error = await asyncAuthError { _ = try await OIDCProviderMetadata.fetch(issuer: issuerURL, using: makeAPI(transport)) }
        #expect(error?.code == .invalidRequest)
        #expect(error?.statusCode == 404)
    }
}

@Suite struct LogoutTests {
    let endpoint = URL(string: "https://idp.example.com/v2/logout")!
    let returnTo = URL(string: "com.example.app://idp.example.com/linux/com.example.app/callback")!

    @Test func auth0StyleLogoutURL() throws {
        let url = try OIDCLogoutRequest(endpoint: endpoint, clientId: "client-1", returnTo: returnTo, returnToParameter: "returnTo").url()
        #expect(url.path == "/v2/logout")
        #expect(queryPairs(url).map(\.0) == ["returnTo", "client_id"])
        #expect(queryDict(url)["returnTo"] == returnTo.absoluteString)
        #expect(queryDict(url)["client_id"] == "client-1")
        #expect(!url.absoluteString.contains("auth0Client"))
    }

    @Test func federatedIsABareKeyThatComesFirst() throws {
        let url = try OIDCLogoutRequest(endpoint: endpoint, clientId: "client-1", returnTo: returnTo, returnToParameter: "returnTo",
                                        federated: true).url()
        let query = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery)
        #expect(query.hasPrefix("federated&returnTo="))
        #expect(query.hasSuffix("&client_id=client-1"))
    }

    @Test func rpInitiatedLogoutURL() throws {
        let url = try OIDCLogoutRequest(endpoint: URL(string: "https://idp.example.com/logout")!, clientId: "c", returnTo: returnTo,
                                        idTokenHint: Secret("a.b.c"), state: "s1").url()
        #expect(queryPairs(url).map(\.0) == ["id_token_hint", "post_logout_redirect_uri", "client_id", "state"])
        #expect(queryDict(url)["id_token_hint"] == "a.b.c")
    }
}
