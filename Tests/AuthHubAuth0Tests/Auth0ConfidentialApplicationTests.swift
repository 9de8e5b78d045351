import AuthHub
@testable import AuthHubAuth0
import AuthHubOIDC
import AuthHubTesting
import Crypto
import _CryptoExtras
import Foundation
import Testing

/// A confidential Auth0 application (a regular web application): its authentication at every
/// endpoint that authenticates the client — `client_secret_post`, `client_secret_basic`,
/// `private_key_jwt` (RS256, `aud` the tenant URL) — and Web Auth pushed to `/oauth/par` first.
@Suite struct Auth0ConfidentialApplicationTests {
    let transport = StubTransport()
    let clock = FakeClock()
    /// One RSA key for the suite's assertions (debug-build key generation is slow).
    static var rsa: _RSA.Signing.PrivateKey { SharedTestRSAKeys.first }

    func provider(_ authentication: OIDCClientAuthentication?, par: Bool = false, dpop: Bool = false,
                  transport: StubTransport? = nil) throws -> Auth0Provider {
        Auth0Provider(id: "auth0",
                      configuration: try Auth0Configuration(domain: "tenant.auth0.com", clientId: "cid", dpop: dpop,
                                                            clientAuthentication: authentication, pushedAuthorizationRequests: par),
                      context: ProviderContext(transport: transport ?? self.transport, clock: clock))
    }

    func stubTokens(_ transport: StubTransport) {
        transport.on(.post, "/oauth/token") { _ in
            .json(200, ["access_token": "at", "refresh_token": "rt2", "expires_in": 3600, "token_type": "Bearer"])
        }
        transport.on(.post, "/oauth/revoke") { _ in .json(200, [:]) }
    }

    static func claims(_ jwt: String) -> [String: JSONValue]? {
        let parts = jwt.split(separator: ".")
        guard parts.count == 3 else { return nil }
        return Base64URL.decode(String(parts[1])).flatMap { try? JSONValue.parse($0) }?.objectValue
    }

    @Test func clientSecretPostAndBasicGoToTheTokenAndRevocationEndpoints() async throws {
        stubTokens(transport)
        let post = try provider(.clientSecretPost(Secret("s3cret")))
        _ = try await post.refresh(Session(providerID: "auth0", accessToken: Secret("at"), refreshToken: Secret("rt")), scope: nil)
        try await post.signOut(Session(providerID: "auth0", accessToken: Secret("at"), refreshToken: Secret("rt")))
        for path in ["/oauth/token", "/oauth/revoke"] {
            let body = try #require(transport.requests(to: path).first?.jsonBody, "\(path)")
            #expect(body["client_id"] == "cid" && body["client_secret"] == "s3cret", "\(path)")
            #expect(transport.requests(to: path).first?.headerFields[.authorization] == nil)
        }
        let other = StubTransport()
        stubTokens(other)
        let basic = try provider(.clientSecretBasic(Secret("s3cret")), transport: other)
        _ = try await basic.refresh(Session(providerID: "auth0", accessToken: Secret("at"), refreshToken: Secret("rt")), scope: nil)
        let request = try #require(other.requests(to: "/oauth/token").first)
        #expect(request.headerFields[.authorization] == "Basic " + Data("cid:s3cret".utf8).base64EncodedString())
        #expect(request.jsonBody?["client_secret"] == nil)
    }

    @Test func privateKeyJWTAssertionsNameTheTenantAndAreNeverReused() async throws {
        stubTokens(transport)
        let key = try ClientAssertionKey(pem: Secret(Self.rsa.pemRepresentation), keyID: "cred-1")
        let p = try provider(.privateKeyJWT(key))
        for _ in 0..<2 {
            _ = try await p.refresh(Session(providerID: "auth0", accessToken: Secret("at"), refreshToken: Secret("rt")), scope: nil)
        }
        var jtis = Set<String>()
        for request in transport.requests(to: "/oauth/token") {
            let body = try #require(request.jsonBody)
            #expect(body["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" && body["client_secret"] == nil)
            let assertion = try #require(body["client_assertion"]?.stringValue)
            let parts = assertion.split(separator: ".")
            let header = try #require(Base64URL.decode(String(parts[0])).flatMap { try? JSONValue.parse($0) })
            #expect(header["alg"] == "RS256" && header["kid"] == "cred-1")
            let signature = _RSA.Signing.RSASignature(rawRepresentation: try #require(Base64URL.decode(String(parts[2]))))
            #expect(Self.rsa.publicKey.isValidSignature(signature, for: SHA256.hash(data: Data((parts[0] + "." + parts[1]).utf8)),
                                                        padding: .insecurePKCS1v1_5))
            let claims = try #require(Self.claims(assertion))
            #expect(claims["iss"] == "cid" && claims["sub"] == "cid" && claims["aud"] == "https://tenant.auth0.com/")
            let iat = try #require(claims["iat"]?.doubleValue), exp = try #require(claims["exp"]?.doubleValue)
            #expect(exp - iat == 60)
            jtis.insert(claims["jti"]?.stringValue ?? "")
        }
        #expect(jtis.count == 2 && !jtis.contains(""))
    }

    @Test func webAuthPushedToPARLeavesTheBrowserOnlyTheRequestURI() async throws {
        transport.on(.post, "/oauth/par") { _ in .json(201, ["request_uri": "urn:ietf:params:oauth:request_uri:abc123", "expires_in": 30]) }
        let p = try provider(.clientSecretPost(Secret("s3cret")), par: true, dpop: true)
        let transaction = try await p.webAuth.begin(redirectURI: "https://app.example.com/callback")
        let items = URLComponents(url: transaction.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(transaction.url.absoluteString.hasPrefix("https://tenant.auth0.com/authorize?"))
        #expect(items.map(\.name) == ["client_id", "request_uri"] && items.last?.value == "urn:ietf:params:oauth:request_uri:abc123")
        let pushed = try #require(transport.requests(to: "/oauth/par").first)
        let form = pushed.formBody
        #expect(form["client_id"] == "cid" && form["client_secret"] == "s3cret" && form["response_type"] == "code")
        #expect(form["redirect_uri"] == "https://app.example.com/callback" && form["code_challenge_method"] == "S256")
        #expect(form["state"] == transaction.state.revealed() && form["nonce"] == transaction.nonce?.revealed())
        #expect(form["dpop_jkt"] == transaction.dpopKey?.thumbprint && pushed.headerFields[HTTPField.Name("DPoP")!] != nil,
                "with DPoP the pushed request names the key and carries a proof")
        // The synchronous start cannot push: it says so.
        let error = #expect(throws: AuthError.self) { try p.webAuth.start(redirectURI: "https://app.example.com/callback") }
        #expect(error?.code == .invalidConfiguration)
    }

    @Test func aRequestURIWithoutAuth0sPrefixOrAnAuthenticationFailureIsAnError() async throws {
        transport.on(.post, "/oauth/par", times: 1) { _ in .json(201, ["request_uri": "https://evil.example/x", "expires_in": 30]) }
        let p = try provider(.clientSecretPost(Secret("s3cret")), par: true)
        let odd = await #expect(throws: AuthError.self) { _ = try await p.webAuth.begin(redirectURI: "https://app.example.com/callback") }
        #expect(odd?.details["reason"] == "unexpectedRequestURI")
        transport.on(.post, "/oauth/par") { _ in .json(401, ["error": "invalid_client", "error_description": "Invalid client credentials"]) }
        let refused = await #expect(throws: AuthError.self) { _ = try await p.webAuth.begin(redirectURI: "https://app.example.com/callback") }
        #expect(refused?.statusCode == 401)
    }

    @Test func providersJSONTakesTheMethodsAndRefusesAnECKey() throws {
        let registry = ProviderRegistry([Auth0Plugin()])
        func load(_ entry: String, _ variables: [String: String] = [:]) throws -> Auth0Configuration {
            let config = #"{"environments":{"dev":{"providers":[{"id":"a","type":"auth0","domain":"tenant.auth0.com","clientId":"cid",\#(entry)}]}}}"#
            let environment = try ConfigLoader(registry: registry, environmentVariables: variables).load(data: Data(config.utf8))
            return try Auth0Configuration(try #require(environment.providers.first))
        }
        let rsa = Self.rsa.pemRepresentation
        let pkjwt = try load(#""tokenEndpointAuthMethod":"private_key_jwt","clientAssertionKey":"${KEY}","pushedAuthorizationRequests":true"#, ["KEY": rsa])
        #expect(pkjwt.clientAuthentication?.methodName == "private_key_jwt" && pkjwt.pushedAuthorizationRequests)
        #expect(try load(#""tokenEndpointAuthMethod":"client_secret_post","clientSecret":"${S}""#, ["S": "x"]).clientAuthentication
                == .clientSecretPost(Secret("x")))
        #expect(try load("\"scope\":\"openid\"").clientAuthentication == nil)
        let ec = P256.Signing.PrivateKey().pemRepresentation
        let refused = #expect(throws: AuthError.self) {
            try load(#""tokenEndpointAuthMethod":"private_key_jwt","clientAssertionKey":"${KEY}""#, ["KEY": ec])
        }
        #expect(refused?.message.contains("clientAssertionKey") == true && refused?.message.contains("RS256") == true
                && refused?.message.contains("PRIVATE") == false)
        #expect(throws: AuthError.self) { try load(#""tokenEndpointAuthMethod":"client_secret_basic""#) }
        // Not one of the methods: refused when providers.json is read (the field's own check).
        #expect(throws: (any Error).self) { try load(#""tokenEndpointAuthMethod":"tls_client_auth""#) }
    }
}
