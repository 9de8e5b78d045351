import AuthHub
@_spi(Internals) @testable import AuthHubAuth0
import AuthHubOIDC
import AuthHubTesting
import Foundation
import Testing

@Suite struct Auth0WebAuthTests {
    let transport = StubTransport()
    let clock = FakeClock()
    let issuer: TestTokenIssuer

    init() throws {
        issuer = try TestTokenIssuer(issuer: "https://tenant.auth0.com/")
    }

    func provider(audience: String? = nil) throws -> Auth0Provider {
        Auth0Provider(id: "auth0", configuration: try Auth0Configuration(domain: "tenant.auth0.com", clientId: "cid", audience: audience),
                      context: ProviderContext(transport: transport, clock: clock))
    }

    func query(_ url: URL) -> [String: String] {
        Dictionary((URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map { ($0.name, $0.value ?? "") },
                   uniquingKeysWith: { _, b in b })
    }

    /// Stubs the JWKS and a token endpoint whose ID token carries `nonce`.
    func stubTenant(nonce: @escaping @Sendable () -> String?, extra: [String: JSONValue] = [:]) {
        let issuer = self.issuer
        let now = clock.now
        transport.on(.get, "/.well-known/jwks.json") { _ in .json(200, issuer.jwks) }
        transport.on(.post, "/oauth/token") { _ in
            let token = try issuer.idToken(subject: "auth0|web", clientID: "cid", now: now, nonce: nonce(), extra: extra)
            return .json(200, ["access_token": "at", "id_token": .string(token), "refresh_token": "rt", "expires_in": 3600,
                               "token_type": "Bearer"])
        }
    }

    @Test func authorizeURLFollowsAuth0sLayers() throws {
        let transaction = try provider(audience: "https://api").webAuth.start(
            redirectURI: "http://127.0.0.1:5555/callback",
            options: .init(connection: "github", screenHint: "signup", parameters: [.init("login_hint", "ada@example.com")]))
        let url = transaction.url
        #expect(url.absoluteString.hasPrefix("https://tenant.auth0.com/authorize?"))
        let q = query(url)
        #expect(q["client_id"] == "cid" && q["response_type"] == "code" && q["redirect_uri"] == "http://127.0.0.1:5555/callback")
        #expect(q["code_challenge_method"] == "S256" && q["code_challenge"]?.count == 43)
        #expect(q["scope"] == "openid profile email offline_access" && q["audience"] == "https://api" && q["connection"] == "github")
        #expect(q["screen_hint"] == "signup" && q["login_hint"] == "ada@example.com")
        #expect(q["state"] == transaction.state.revealed() && q["nonce"] == transaction.nonce?.revealed())
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(items.last?.name == "auth0Client")
        #expect(transaction.codeVerifier.revealed().count == 43)
        let other = try provider().webAuth.start(redirectURI: "http://127.0.0.1:5555/callback")
        #expect(other.state != transaction.state && other.codeVerifier != transaction.codeVerifier, "transactions are kept apart")
    }

    @Test func finishExchangesTheCodeAndValidatesTheIDToken() async throws {
        let p = try provider()
        let transaction = try p.webAuth.start(redirectURI: "http://127.0.0.1:5555/callback")
        let nonce = transaction.nonce?.revealed()
        stubTenant(nonce: { nonce })
        let callback = URL(string: "http://127.0.0.1:5555/callback?code=abc&state=\(transaction.state.revealed())")!
        let session = try await p.webAuth.finish(callback: callback, transaction: transaction)
        #expect(session.userID == "auth0|web" && session.accessToken.revealed() == "at" && session.refreshToken?.revealed() == "rt")
        let exchange = try #require(transport.requests(to: "/oauth/token").last?.jsonBody)
        #expect(exchange["code"] == "abc" && exchange["code_verifier"] == .string(transaction.codeVerifier.revealed()))
        #expect(exchange["redirect_uri"] == "http://127.0.0.1:5555/callback" && exchange["grant_type"] == "authorization_code")
    }

    @Test func callbackStateAndErrorsAndNonceAreChecked() async throws {
        let p = try provider()
        let transaction = try p.webAuth.start(redirectURI: "http://127.0.0.1:5555/callback")
        stubTenant(nonce: { "someone-elses-nonce" })
        let state = transaction.state.revealed()
        let forged = await #expect(throws: AuthError.self) {
            try await p.webAuth.finish(callback: URL(string: "http://127.0.0.1:5555/callback?code=abc&state=forged")!, transaction: transaction)
        }
        #expect(forged?.code == .stateMismatch)
        let denied = await #expect(throws: AuthError.self) {
            try await p.webAuth.finish(callback: URL(string: "http://127.0.0.1:5555/callback?error=access_denied&error_description=No&state=\(state)")!,
                                       transaction: transaction)
        }
        #expect(denied?.code == .accessDenied && denied?.providerCode == "access_denied")
        #expect(transport.requests(to: "/oauth/token").isEmpty, "nothing is exchanged for a bad callback")
        let wrongNonce = await #expect(throws: AuthError.self) {
            try await p.webAuth.finish(callback: URL(string: "http://127.0.0.1:5555/callback?code=abc&state=\(state)")!, transaction: transaction)
        }
        #expect(wrongNonce?.idTokenFailure != nil, "\(String(describing: wrongNonce))")
    }

    @Test func loopbackSignInWithATestBrowser() async throws {
        // A manual clock: the 20-second timeout only fires if the test moves time, never by itself.
        let p = Auth0Provider(id: "auth0", configuration: try Auth0Configuration(domain: "tenant.auth0.com", clientId: "cid"),
                              context: ProviderContext(transport: transport, clock: FakeClock(mode: .manual)))
        let nonceBox = Mutex<String?>(nil)
        stubTenant(nonce: { nonceBox.withLock { $0 } })
        let session = try await p.webAuth.signIn(open: { url in
            // The "browser": the user signs in and the provider redirects to the loopback URI.
            let q = Dictionary((URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map { ($0.name, $0.value ?? "") },
                               uniquingKeysWith: { _, b in b })
            nonceBox.withLock { $0 = q["nonce"] }
            var callback = URLComponents(string: q["redirect_uri"] ?? "")!
            callback.queryItems = [URLQueryItem(name: "code", value: "loop-code"), URLQueryItem(name: "state", value: q["state"])]
            let callbackURL = callback.url!
            Task.detached {
                let reply = try await URLSessionTransport().send(.get, callbackURL)
                #expect(reply.status == 200)
            }
        }, timeout: .seconds(20))
        #expect(session.userID == "auth0|web")
        #expect(transport.requests(to: "/oauth/token").last?.jsonBody?["code"] == "loop-code")
    }

    /// Every ``BrowserSignInOptions`` field reaches `/authorize` under Auth0's name.
    @Test func browserOptionsMapToAuth0sParameters() throws {
        let options = BrowserSignInOptions(
            scope: "openid read:x", audience: "https://api2", connection: "google-oauth2", connectionScope: "https://g/scope",
            organization: "org_1", invitationURL: URL(string: "https://app.example.com/login?invitation=inv1&organization=org_2"),
            prompt: "login", screenHint: "signup", maxAge: 600, loginHint: "ada@example.com",
            parameters: [.init("ui_locales", "fr")])
        let q = query(try provider(audience: "https://api").webAuth.start(redirectURI: "http://127.0.0.1:5555/callback",
                                                                          options: options).url)
        #expect(q["scope"] == "openid read:x" && q["audience"] == "https://api2" && q["connection"] == "google-oauth2")
        #expect(q["connection_scope"] == "https://g/scope" && q["organization"] == "org_2" && q["invitation"] == "inv1")
        #expect(q["prompt"] == "login" && q["screen_hint"] == "signup" && q["max_age"] == "600")
        #expect(q["login_hint"] == "ada@example.com" && q["ui_locales"] == "fr")
    }

    /// `redirectURI` from providers.json is what `start()` sends when none is given; without one,
    /// start() says so; browser sign-in refuses one it cannot listen on.
    @Test func theConfiguredRedirectURIIsUsed() async throws {
        let configured = Auth0Provider(id: "auth0", configuration: try Auth0Configuration(
            domain: "tenant.auth0.com", clientId: "cid", redirectURI: URL(string: "https://app.example.com/auth/callback")),
            context: ProviderContext(transport: transport, clock: clock))
        let transaction = try configured.webAuth.start()
        #expect(query(transaction.url)["redirect_uri"] == "https://app.example.com/auth/callback")
        #expect(transaction.redirectURI == "https://app.example.com/auth/callback")
        #expect(throws: AuthError(.invalidConfiguration)) { try provider().webAuth.start() }
        let refused = await #expect(throws: AuthError.self) {
            try await configured.signInWithBrowser(timeout: .seconds(5), options: BrowserSignInOptions()) { _ in }
        }
        #expect(refused?.code == .invalidConfiguration && refused?.message.contains("https://app.example.com/auth/callback") == true)
        let badOptions = await #expect(throws: AuthError.self) {
            try await provider().signInWithBrowser(timeout: .seconds(5), options: BrowserSignInOptions(parameters: [.init("state", "x")])) { _ in }
        }
        #expect(badOptions?.code == .invalidRequest)
    }

    @Test func authorizationCodeSignInValidatesWithoutANonce() async throws {
        stubTenant(nonce: { nil })
        let session = try await provider().signIn(.authorizationCode(code: Secret("c"), codeVerifier: Secret("v"),
                                                                     redirectURI: "http://127.0.0.1:1/cb"))
        #expect(session.userID == "auth0|web")
    }
}

@Suite struct Auth0WebAuthLogoutAndPKCETests {
    @Test func logoutURLPutsFederatedFirst() throws {
        let provider = Auth0Provider(id: "auth0", configuration: try Auth0Configuration(domain: "tenant.auth0.com", clientId: "cid"))
        let plain = try provider.webAuth.logoutURL(returnTo: URL(string: "http://127.0.0.1:5555/callback"))
        #expect(plain.absoluteString == "https://tenant.auth0.com/v2/logout?returnTo=http%3A%2F%2F127.0.0.1%3A5555%2Fcallback&client_id=cid")
        let federated = try provider.webAuth.logoutURL(returnTo: URL(string: "http://127.0.0.1:5555/callback"), federated: true)
        #expect(federated.query?.hasPrefix("federated&returnTo=") == true)
    }

    @Test func unauthorizedExchangeExplainsPKCE() async throws {
        let transport = StubTransport()
        transport.on(.post, "/oauth/token") { _ in .json(401, ["error": "unauthorized_client", "error_description": "Unauthorized"]) }
        let provider = Auth0Provider(id: "auth0", configuration: try Auth0Configuration(domain: "tenant.auth0.com", clientId: "cid"),
                                     context: ProviderContext(transport: transport, clock: FakeClock()))
        let transaction = try provider.webAuth.start(redirectURI: "http://127.0.0.1:5555/callback")
        let error = await #expect(throws: AuthError.self) {
            try await provider.webAuth.finish(callback: URL(string: "http://127.0.0.1:5555/callback?code=c&state=\(transaction.state.revealed())")!,
                                              transaction: transaction)
        }
        #expect(error?.code == .invalidConfiguration && error?.message.contains("PKCE not allowed") == true)
        #expect(error?.providerCode == "unauthorized_client")
    }
}
