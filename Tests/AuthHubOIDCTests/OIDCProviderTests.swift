import AuthHub
import AuthHubTesting
import Foundation
import Testing
@testable import AuthHubOIDC

/// The provider end to end against stubbed discovery, JWKS and token endpoints, with the browser
/// played by a real HTTP request to the loopback receiver.
@Suite struct OIDCProviderTests {
    let server = KeyServer()
    let clock = FakeClock(mode: .manual)
    let issuer = "https://idp.example.com/"
    let seenNonce = Mutex<String?>(nil)

    init() {
        server.transport.on(.get, "/.well-known/openid-configuration") { _ in
            .json(200, ["issuer": "https://idp.example.com/", "authorization_endpoint": "https://idp.example.com/authorize",
                        "token_endpoint": "https://idp.example.com/oauth/token",
                        "jwks_uri": "https://idp.example.com/.well-known/jwks.json"])
        }
    }

    func provider(redirectURI: URL? = nil, secret: Secret<String>? = nil) -> OIDCProvider {
        OIDCProvider(id: "corp",
                     configuration: OIDCConfiguration(issuer: URL(string: issuer)!, clientId: "client-1", clientSecret: secret,
                                                      redirectURI: redirectURI, additionalParameters: ["prompt": "login"]),
                     context: ProviderContext(transport: server.transport, clock: clock))
    }

    func idToken(nonce: String?, sub: String = "user-1") async throws -> String {
        let now = clock.now.timeIntervalSince1970
        var claims: [String: JSONValue] = ["iss": .string(issuer), "sub": .string(sub), "aud": "client-1",
                                           "exp": .number(now + 3600), "iat": .number(now), "email": "u@example.com"]
        if let nonce { claims["nonce"] = .string(nonce) }
        return try await sign(claims)
    }

    func stubTokenEndpoint(refreshToken: JSONValue = "RT-1", nonce: @escaping @Sendable () -> String?) {
        server.transport.on(.post, "/oauth/token") { _ in
            let token = try await idToken(nonce: nonce())
            return .json(200, ["access_token": "AT-1", "token_type": "Bearer", "id_token": .string(token),
                               "refresh_token": refreshToken, "expires_in": 3600])
        }
    }

    @Test func browserSignInThroughTheLoopbackReceiver() async throws {
        let seenNonce = self.seenNonce
        stubTokenEndpoint { seenNonce.withLock { $0 } }
        let session = try await provider().signInWithBrowser(timeout: .seconds(300)) { url in
            let q = queryDict(url)
            seenNonce.withLock { $0 = q["nonce"] }
            let redirect = try #require(q["redirect_uri"])
            let state = try #require(q["state"])
            #expect(url.path == "/authorize")
            #expect(q["prompt"] == "login")
            #expect(q["scope"] == "openid profile email")
            #expect(redirect.hasPrefix("http://127.0.0.1:"))
            // The "browser" follows the redirect on its own, after open returns.
            Task { _ = try await URLSessionTransport().send(.get, URL(string: "\(redirect)?code=CODE-1&state=\(state)")!) }
        }
        #expect(session.providerID == "corp")
        #expect(session.accessToken.revealed() == "AT-1")
        #expect(session.refreshToken?.revealed() == "RT-1")
        #expect(session.userID == "user-1")
        #expect(session.claims["email"] == "u@example.com")
        #expect(session.claims["nonce"] == nil)
        #expect(session.expiresAt == clock.now.addingTimeInterval(3600))
        let exchange = try #require(server.transport.requests(to: "/oauth/token").first)
        #expect(exchange.headerFields["Content-Type"] == "application/x-www-form-urlencoded")
        let form = exchange.formBody
        #expect(form["grant_type"] == "authorization_code")
        #expect(form["code"] == "CODE-1")
        #expect(form["client_id"] == "client-1")
        #expect(form["redirect_uri"]?.hasPrefix("http://127.0.0.1:") == true)
        #expect(form["code_verifier"]?.count == 43)
        #expect(server.transport.unmatchedRequests.isEmpty)
    }

    @Test func idTokenWithAnotherNonceFailsTheSignIn() async throws {
        stubTokenEndpoint { "someone-elses-nonce" }
        let p = provider(redirectURI: URL(string: "com.example.app:/cb"))
        let tx = try await p.makeTransaction(redirectURI: "com.example.app:/cb")
        let error = await asyncAuthError {
            _ = try await p.completeSignIn(callbackURL: URL(string: "com.example.app:/cb?code=C&state=\(tx.state.revealed())")!,
                                           transaction: tx)
        }
        #expect(error?.idTokenFailure == .mismatchedNonce)
        #expect(error?.provider == "corp")
    }

    @Test func wrongStateStopsBeforeAnyTokenRequest() async throws {
        let p = provider(redirectURI: URL(string: "com.example.app:/cb"))
        let tx = try await p.makeTransaction(redirectURI: "com.example.app:/cb")
        let error = await asyncAuthError {
            _ = try await p.completeSignIn(callbackURL: URL(string: "com.example.app:/cb?code=C&state=forged")!, transaction: tx)
        }
        #expect(error?.code == .stateMismatch)
        #expect(server.transport.requests(to: "/oauth/token").isEmpty)
    }

    @Test func browserSignInRefusesAConfiguredRedirectItCannotReceive() async {
        let error = await asyncAuthError {
            _ = try await provider(redirectURI: URL(string: "com.example.app:/cb")).signInWithBrowser { _ in }
        }
        #expect(error?.code == .invalidConfiguration)
    }

    /// The standard options reach the authorization URL; Auth0's own are refused, not dropped; the
    /// configured redirect URI is used when none is given.
    @Test func browserOptionsForAGenericProvider() async throws {
        let p = provider(redirectURI: URL(string: "com.example.app:/cb"))
        let tx = try await p.makeTransaction(options: BrowserSignInOptions(
            scope: "openid email", audience: "https://api", prompt: "consent", maxAge: 60, loginHint: "ada@example.com",
            parameters: [.init("ui_locales", "de")]))
        let q = Dictionary((URLComponents(url: tx.url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map { ($0.name, $0.value ?? "") },
                           uniquingKeysWith: { _, b in b })
        #expect(q["redirect_uri"] == "com.example.app:/cb" && q["scope"] == "openid email" && q["audience"] == "https://api")
        #expect(q["prompt"] == "consent" && q["max_age"] == "60" && q["login_hint"] == "ada@example.com" && q["ui_locales"] == "de")
        #expect(tx.maxAge == 60, "max_age is checked against auth_time")
        let refused = await asyncAuthError {
            _ = try await p.makeTransaction(options: BrowserSignInOptions(connection: "github", screenHint: "signup"))
        }
        #expect(refused?.code == .unsupported && refused?.message.contains("connection, screen_hint") == true)
        let negative = await asyncAuthError { _ = try await p.makeTransaction(options: BrowserSignInOptions(maxAge: -1)) }
        #expect(negative?.code == .invalidRequest)
        let none = await asyncAuthError { _ = try await provider().makeTransaction() }
        #expect(none?.code == .invalidConfiguration)
    }

    /// RP-Initiated Logout from the discovered `end_session_endpoint`, with the ID token as hint.
    @Test func browserSignOutURLUsesTheEndSessionEndpoint() async throws {
        let none = await asyncAuthError { _ = try await provider().browserSignOutURL(idToken: nil, returnTo: nil, federated: false) }
        #expect(none?.code == .unsupported, "no end_session_endpoint advertised")
        server.transport.on(.get, "/.well-known/openid-configuration", first: true) { _ in
            .json(200, ["issuer": "https://idp.example.com/", "authorization_endpoint": "https://idp.example.com/authorize",
                        "token_endpoint": "https://idp.example.com/oauth/token", "end_session_endpoint": "https://idp.example.com/logout",
                        "jwks_uri": "https://idp.example.com/.well-known/jwks.json"])
        }
        let url = try await provider().browserSignOutURL(idToken: Secret("id.tok.en"), returnTo: URL(string: "https://app.example.com/bye"),
                                                         federated: true)
        let q = Dictionary((URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map { ($0.name, $0.value ?? "") },
                           uniquingKeysWith: { _, b in b })
        #expect(url.absoluteString.hasPrefix("https://idp.example.com/logout?"), "\(url)")
        #expect(q["client_id"] == "client-1" && q["id_token_hint"] == "id.tok.en" && q["post_logout_redirect_uri"] == "https://app.example.com/bye")
        #expect(q["federated"] == nil, "no such notion for a generic provider")
        let state = try #require(q["state"], "RP-Initiated Logout carries a state")
        #expect(state.count == 43 && Base64URL.decode(state)?.count == 32, "32 random bytes, base64url")
        let second = try await provider().browserSignOutURL(idToken: nil, returnTo: nil, federated: false)
        let secondState = URLComponents(url: second, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "state" }?.value
        #expect(secondState != nil && secondState != state, "fresh for each logout")
    }

    /// Through the hub, the sign-out result reports the state the logout URL carries, so the app
    /// receiving the post-logout redirect can check it; a provider whose logout takes no state
    /// (Auth0's /v2/logout) reports none.
    @Test func theHubReturnsTheLogoutState() async throws {
        server.transport.on(.get, "/.well-known/openid-configuration", first: true) { _ in
            .json(200, ["issuer": "https://idp.example.com/", "authorization_endpoint": "https://idp.example.com/authorize",
                        "token_endpoint": "https://idp.example.com/oauth/token", "end_session_endpoint": "https://idp.example.com/logout",
                        "jwks_uri": "https://idp.example.com/.well-known/jwks.json"])
        }
        let config = """
        {"defaultEnvironment": "dev", "environments": {"dev": {"defaultProvider": "corp", "sessionStore": {"type": "memory"},
          "providers": [{"id": "corp", "type": "oidc", "issuer": "https://idp.example.com/", "clientId": "client-1"}]}}}
        """
        let registry = ProviderRegistry([OIDCPlugin()])
        let environment = try ConfigLoader(registry: registry, environmentVariables: [:]).load(data: Data(config.utf8))
        let hub = try AuthHub(environment: environment, registry: registry, context: ProviderContext(transport: server.transport, clock: clock))
        let result = try await hub.signOut(provider: "corp", browser: BrowserSignOut(returnTo: URL(string: "https://app.example.com/bye")))
        let url = try #require(result.browserSignOutURL)
        let sent = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "state" }?.value
        let state = try #require(result.browserSignOutState)
        #expect(sent == state && state.count == 43)
        let again = try await hub.signOut(provider: "corp", browser: BrowserSignOut())
        #expect(again.browserSignOutState != nil && again.browserSignOutState != state)
    }

    @Test func discoveryIsFetchedOnce() async throws {
        let p = provider()
        _ = try await p.makeTransaction(redirectURI: "com.example.app:/cb")
        _ = try await p.makeTransaction(redirectURI: "com.example.app:/cb")
        #expect(server.transport.requests(to: "/.well-known/openid-configuration").count == 1)
    }

    @Test func refreshKeepsTheOldRefreshTokenAndValidatesTheNewIDToken() async throws {
        stubTokenEndpoint(refreshToken: .null) { nil }
        let old = Session(providerID: "corp", accessToken: Secret("AT-0"), refreshToken: Secret("RT-0"), scope: "openid")
        // The provider returns what the server said; the SessionManager keeps the old refresh token.
        let reply = try await provider(secret: Secret("s3")).refresh(old, scope: nil)
        #expect(reply.refreshToken == nil)
        let renewed = SessionManager.merge(renewed: reply, into: old, requestedScope: nil, key: SessionKey(provider: "corp"))
        #expect(renewed.accessToken.revealed() == "AT-1")
        #expect(renewed.refreshToken?.revealed() == "RT-0")
        #expect(renewed.userID == "user-1")
        let request = try #require(server.transport.requests(to: "/oauth/token").first)
        #expect(request.formBody == ["client_id": "client-1", "grant_type": "refresh_token", "refresh_token": "RT-0"])
        #expect(request.headerFields["Authorization"] == "Basic " + Data("client-1:s3".utf8).base64EncodedString())
    }

    @Test func rejectedRefreshTokenIsRefreshTokenInvalid() async {
        server.transport.on(.post, "/oauth/token") { _ in .json(400, ["error": "invalid_grant", "error_description": "Unknown or invalid refresh token."]) }
        let old = Session(providerID: "corp", accessToken: Secret("AT-0"), refreshToken: Secret("RT-0"))
        let error = await asyncAuthError { _ = try await provider().refresh(old, scope: nil) }
        #expect(error?.code == .refreshTokenInvalid)
        #expect(error?.providerCode == "invalid_grant")
        let none = await asyncAuthError {
            _ = try await provider().refresh(Session(providerID: "corp", accessToken: Secret("a")), scope: nil)
        }
        #expect(none?.code == .refreshTokenInvalid)
    }

    @Test func authorizationCodeSignInAndUnsupportedMethods() async throws {
        stubTokenEndpoint { nil }
        let session = try await provider().signIn(.authorizationCode(code: Secret("C"), codeVerifier: Secret("V"), redirectURI: "x:/cb"))
        #expect(session.userID == "user-1")
        let error = await asyncAuthError { _ = try await provider().signIn(.guest) }
        #expect(error?.code == .unsupported)
    }
}
