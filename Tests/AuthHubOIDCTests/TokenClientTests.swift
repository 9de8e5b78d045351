import AuthHub
import AuthHubTesting
import Foundation
import Testing
@testable import AuthHubOIDC

@Suite struct TokenClientTests {
    let transport = StubTransport()
    let clock = FakeClock()

    func client(_ encoding: OIDCTokenClient.BodyEncoding, secret: Secret<String>? = nil) -> OIDCTokenClient {
        OIDCTokenClient(api: makeAPI(transport, clock: clock), tokenEndpoint: "/oauth/token", clientId: "client-1",
                        clientSecret: secret, bodyEncoding: encoding)
    }

    func stubTokens(expiresIn: JSONValue = 86400) {
        transport.on(.post, "/oauth/token") { _ in
            .json(200, ["access_token": "AT-XYZ", "token_type": "Bearer", "id_token": "IDT-XYZ", "refresh_token": "RT-XYZ",
                        "expires_in": expiresIn, "scope": "openid profile"])
        }
    }

    @Test func codeExchangeAsJSONSendsExactlyTheSpecFields() async throws {
        stubTokens()
        let tokens = try await client(.json).exchange(code: Secret("CODE"), codeVerifier: Secret("VERIFIER"), redirectURI: redirect)
        let request = try #require(transport.requests.first)
        #expect(transport.requests.count == 1)
        #expect(request.method == .post)
        #expect(request.url.absoluteString == "https://idp.example.com/oauth/token")
        #expect(request.headerFields["Content-Type"] == "application/json")
        #expect(request.headerFields["Authorization"] == nil)
        #expect(request.jsonBody == ["client_id": "client-1", "grant_type": "authorization_code", "code": "CODE",
                                     "code_verifier": "VERIFIER", "redirect_uri": .string(redirect)])
        #expect(tokens.accessToken.revealed() == "AT-XYZ")
        #expect(tokens.idToken.revealed() == "IDT-XYZ")
        #expect(tokens.refreshToken?.revealed() == "RT-XYZ")
        #expect(tokens.tokenType == "Bearer")
        #expect(tokens.scope == "openid profile")
        #expect(tokens.expiresAt == clock.now.addingTimeInterval(86400))
        #expect(!tokens.description.contains("XYZ"))
        #expect(!"\(tokens)".contains("XYZ"))
    }

    @Test func codeExchangeAsFormSendsTheSameFields() async throws {
        stubTokens()
        _ = try await client(.form).exchange(code: Secret("CODE"), codeVerifier: Secret("VERIFIER"), redirectURI: redirect)
        let request = try #require(transport.requests.first)
        #expect(request.headerFields["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(request.formBody == ["client_id": "client-1", "grant_type": "authorization_code", "code": "CODE",
                                     "code_verifier": "VERIFIER", "redirect_uri": redirect])
    }

    @Test func exchangeOfATransactionUsesItsVerifierAndRedirect() async throws {
        stubTokens()
        let tx = try OIDCAuthorizationRequest(authorizationEndpoint: authorizeURL, clientId: "client-1", redirectURI: redirect)
            .makeTransaction(random: CountingRandom())
        let response = try tx.parseCallback("\(redirect)?code=C1&state=\(tx.state.revealed())")
        _ = try await client(.json).exchange(response, of: tx)
        let body = try #require(transport.requests.first?.jsonBody)
        #expect(body["code_verifier"]?.stringValue == CountingRandom.token(1))
        #expect(body["code"]?.stringValue == "C1")
        #expect(body["redirect_uri"]?.stringValue == redirect)
    }

    @Test func confidentialClientUsesBasicAuthentication() async throws {
        stubTokens()
        _ = try await client(.form, secret: Secret("s3cr:t")).exchange(code: Secret("C"), codeVerifier: Secret("V"), redirectURI: redirect)
        let expected = "Basic " + Data("client-1:s3cr%3At".utf8).base64EncodedString()
        #expect(transport.requests.first?.headerFields["Authorization"] == expected)
    }

    @Test func expiresInAsStringAndMissingFields() async throws {
        transport.on(.post, "/oauth/token") { _ in .json(200, ["access_token": "AT", "expires_in": "120"]) }
        let tokens = try await client(.json).exchange(code: Secret("C"), codeVerifier: Secret("V"), redirectURI: redirect)
        #expect(tokens.expiresAt == clock.now.addingTimeInterval(120))
        #expect(tokens.idToken.isEmpty)
        #expect(tokens.tokenType == "")
        #expect(tokens.refreshToken == nil)
    }

    @Test func invalidExpiresInIsAClearError() async {
        transport.on(.post, "/oauth/token") { _ in .json(200, ["access_token": "AT", "expires_in": "soon"]) }
        let error = await asyncAuthError {
            _ = try await client(.json).exchange(code: Secret("C"), codeVerifier: Secret("V"), redirectURI: redirect)
        }
        #expect(error?.code == .invalidRequest)
    }

    @Test func nonJSONReplyIsAClearError() async {
        transport.on(.post, "/oauth/token") { _ in .raw(200, "<html>oops</html>") }
        let error = await asyncAuthError {
            _ = try await client(.json).exchange(code: Secret("C"), codeVerifier: Secret("V"), redirectURI: redirect)
        }
        #expect(error?.code == .invalidRequest)
    }

    @Test func invalidGrantIsMappedAndNeverRetried() async {
        transport.on(.post, "/oauth/token") { _ in
            .json(403, ["error": "invalid_grant", "error_description": "Invalid authorization code"])
        }
        let error = await asyncAuthError {
            _ = try await client(.json).exchange(code: Secret("C"), codeVerifier: Secret("V"), redirectURI: redirect)
        }
        #expect(error?.code == .invalidCredentials)
        #expect(error?.providerCode == "invalid_grant")
        #expect(error?.statusCode == 403)
        #expect(error?.message == "Invalid authorization code")
        #expect(transport.requests.count == 1)
    }

    @Test func serverErrorIsNotRetriedForACodeExchange() async {
        let retrying = OIDCTokenClient(
            api: APIClient(provider: "oidc", baseURL: issuerURL, transport: transport, errorMapper: OAuthErrorMapper(), clock: clock),
            tokenEndpoint: "/oauth/token", clientId: "client-1")
        transport.on(.post, "/oauth/token") { _ in .raw(503, "") }
        let error = await asyncAuthError {
            _ = try await retrying.exchange(code: Secret("C"), codeVerifier: Secret("V"), redirectURI: redirect)
        }
        #expect(error?.code == .providerUnavailable)
        #expect(transport.requests.count == 1)
    }

    @Test func refreshSendsTheRefreshGrant() async throws {
        stubTokens()
        _ = try await client(.json).refresh(refreshToken: Secret("RT0"), scope: "read")
        #expect(transport.requests.first?.jsonBody == ["client_id": "client-1", "grant_type": "refresh_token",
                                                        "refresh_token": "RT0", "scope": "read"])
    }

    @Test func absoluteTokenEndpointIsUsedAsIs() async throws {
        transport.on(.post, "/tokens/v1") { _ in .json(200, ["access_token": "AT", "expires_in": 60]) }
        let c = OIDCTokenClient(api: makeAPI(transport, clock: clock), tokenEndpoint: "https://other.example.com/tokens/v1",
                                clientId: "client-1")
        _ = try await c.refresh(refreshToken: Secret("RT"))
        #expect(transport.requests.first?.url.host == "other.example.com")
    }
}
