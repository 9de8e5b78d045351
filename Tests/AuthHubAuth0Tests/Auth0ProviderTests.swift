import AuthHub
@_spi(Internals) @testable import AuthHubAuth0
import AuthHubTesting
import Foundation
import Testing

@Suite struct Auth0ProviderTests {
    let transport = StubTransport()
    let clock = FakeClock()

    func provider(connection: String? = nil, audience: String? = nil) throws -> Auth0Provider {
        Auth0Provider(id: "main", configuration: try Auth0Configuration(domain: "tenant.auth0.com", clientId: "cid", audience: audience,
                                                                        connection: connection),
                      context: ProviderContext(transport: transport, clock: clock))
    }

    /// An unsigned JWT carrying `claims` (the provider only reads claims from ROPG tokens).
    static func idToken(_ claims: JSONValue) -> String {
        let header = Base64URL.encode(Array(#"{"alg":"RS256","typ":"JWT"}"#.utf8))
        let payload = Base64URL.encode((try? JSONEncoder().encode(claims)) ?? Data())
        return "\(header).\(payload).c2ln"
    }

    @Test func passwordSignInBuildsASessionWithTheUser() async throws {
        transport.on(.post, "/oauth/token") { _ in
            .json(200, ["access_token": "at", "token_type": "Bearer", "expires_in": 3600, "refresh_token": "rt", "scope": "openid email",
                        "id_token": .string(Self.idToken(["sub": "auth0|42", "email": "ada@example.com"]))])
        }
        let session = try await provider(connection: "db", audience: "https://api")
            .signIn(.password(identifier: "ada@example.com", password: Secret("pw")))
        #expect(session.providerID == "main" && session.userID == "auth0|42" && session.claims["email"] == "ada@example.com")
        #expect(session.accessToken.revealed() == "at" && session.refreshToken?.revealed() == "rt")
        #expect(session.expiresAt == clock.now.addingTimeInterval(3600) && session.scope == "openid email")
        let body = try #require(transport.requests.last?.jsonBody)
        #expect(body["realm"] == "db" && body["audience"] == "https://api" && body["client_id"] == "cid")
    }

    @Test func mfaRequiredPropagatesWithItsToken() async throws {
        transport.on(.post, "/oauth/token") { _ in
            .json(403, ["error": "mfa_required", "error_description": "Multifactor authentication required", "mfa_token": "m1",
                        "mfa_requirements": ["challenge": [["type": "otp"]]]])
        }
        let error = await #expect(throws: AuthError.self) {
            try await provider().signIn(.password(identifier: "a@b.c", password: Secret("pw")))
        }
        #expect(error?.code == .mfaRequired && error?.mfa?.challengeTypes == ["otp"] && error?.provider == "main")
    }

    @Test func passwordlessAndDatabaseOTP() async throws {
        transport.on(.post, "/passwordless/start") { _ in .json(200, [:]) }
        transport.on(.post, "/oauth/token") { _ in .json(200, ["access_token": "at", "expires_in": 60]) }
        let p = try provider()
        let challenge = try await p.startSignIn(.emailCode(email: "ada@example.com"))
        #expect(challenge.destination == "ada@example.com")
        _ = try await p.signIn(.emailCode(email: "ada@example.com", code: Secret("123456")))
        #expect(transport.requests.last?.jsonBody?["realm"] == "email")
        _ = try await p.signIn(.smsCode(phoneNumber: "+1555", code: Secret("1"), context: Secret("sess")))
        let body = try #require(transport.requests.last?.jsonBody)
        #expect(body["auth_session"] == "sess" && body["realm"] == nil)
        await #expect(throws: AuthError(.unsupported)) { try await p.signIn(.guest) }
    }

    /// Auth0.swift's CredentialsManager renews with no audience and no scope unless one is asked for
    /// (spec §3.3), also when the provider is configured with an audience.
    @Test func refreshWithAConfiguredAudienceSendsNeitherAudienceNorScope() async throws {
        transport.on(.post, "/oauth/token") { _ in .json(200, ["access_token": "at2", "expires_in": 60, "token_type": "Bearer"]) }
        let old = Session(providerID: "main", accessToken: Secret("at1"), refreshToken: Secret("rt1"), scope: "openid profile read:x")
        // The provider returns what Auth0 said; the SessionManager's merge keeps the stored scope.
        let reply = try await provider(audience: "https://api").refresh(old, scope: nil)
        #expect(reply.scope == nil)
        let renewed = SessionManager.merge(renewed: reply, into: old, requestedScope: nil, key: SessionKey(provider: "main"))
        let body = try #require(transport.requests.last?.jsonBody)
        #expect(body == ["client_id": "cid", "grant_type": "refresh_token", "refresh_token": "rt1"])
        #expect(renewed.scope == "openid profile read:x")
        _ = try await provider(audience: "https://api").refresh(old, scope: "read:x")
        #expect(transport.requests.last?.jsonBody == ["client_id": "cid", "grant_type": "refresh_token", "refresh_token": "rt1", "scope": "read:x"])
    }

    @Test func refreshKeepsTheOldRefreshTokenAndIdentity() async throws {
        transport.on(.post, "/oauth/token") { _ in .json(200, ["access_token": "at2", "expires_in": 60, "token_type": "Bearer"]) }
        let old = Session(providerID: "main", accountKey: "work", accessToken: Secret("at1"), idToken: Secret("idt"),
                          refreshToken: Secret("rt1"), scope: "openid offline_access", userID: "auth0|42", claims: ["sub": "auth0|42"])
        // The provider returns what Auth0 said; the SessionManager's merge keeps the rest.
        let reply = try await provider().refresh(old, scope: nil)
        #expect(reply.refreshToken == nil && reply.idToken == nil && reply.userID == nil && reply.accountKey == "work")
        let renewed = SessionManager.merge(renewed: reply, into: old, requestedScope: nil,
                                           key: SessionKey(provider: "main", account: "work"))
        #expect(renewed.accessToken.revealed() == "at2" && renewed.refreshToken?.revealed() == "rt1")
        #expect(renewed.accountKey == "work" && renewed.userID == "auth0|42" && renewed.idToken?.revealed() == "idt")
        #expect(transport.requests.last?.jsonBody?["scope"] == nil && renewed.scope == "openid offline_access")
        _ = try await provider().refresh(old, scope: "read:x")
        #expect(transport.requests.last?.jsonBody?["scope"] == "read:x")

        transport.on(.post, "/oauth/token", first: true) { _ in
            .json(403, ["error": "invalid_grant", "error_description": "Unknown or invalid refresh token."])
        }
        await #expect(throws: AuthError(.refreshTokenInvalid)) { try await provider().refresh(old, scope: nil) }
        await #expect(throws: AuthError(.refreshTokenInvalid)) {
            try await provider().refresh(Session(providerID: "main", accessToken: Secret("x")), scope: nil)
        }
    }

    @Test func signUpThenSignInOrVerificationRequired() async throws {
        transport.on(.post, "/dbconnections/signup") { _ in .json(200, ["email": "ada@example.com"]) }
        transport.on(.post, "/oauth/token", times: 1) { _ in .json(200, ["access_token": "at", "expires_in": 60]) }
        let result = try await provider().signUp(SignUpRequest(email: "ada@example.com", password: Secret("pw"), displayName: "Ada",
                                                               metadata: ["plan": "pro"]))
        guard case .signedIn = result else { Issue.record("not signed in"); return }
        let signup = try #require(transport.requests(to: "/dbconnections/signup").last?.jsonBody)
        #expect(signup["name"] == "Ada" && signup["user_metadata"] == ["plan": "pro"] && signup["connection"] == "Username-Password-Authentication")

        transport.on(.post, "/oauth/token", times: 1) { _ in
            .json(401, ["error": "access_denied", "error_description": "Please verify your email before logging in."])
        }
        let pending = try await provider().signUp(SignUpRequest(email: "bob@example.com", password: Secret("pw")))
        guard case .verificationRequired(let email) = pending else { Issue.record("expected verificationRequired"); return }
        #expect(email == "bob@example.com")

        // Bot detection is not an email to verify: the account exists, the sign-in belongs in the browser.
        transport.on(.post, "/oauth/token") { _ in
            .json(401, ["error": "requires_verification", "error_description": "Suspicious request requires verification"])
        }
        await #expect(throws: AuthError(.captchaRequired)) {
            _ = try await provider().signUp(SignUpRequest(email: "cy@example.com", password: Secret("pw")))
        }
    }

    @Test func signOutRevokesAndResetUsesTheConnection() async throws {
        transport.on(.post, "/oauth/revoke") { _ in .raw(200, "") }
        transport.on(.post, "/dbconnections/change_password") { _ in .raw(200, "sent") }
        let p = try provider(connection: "db")
        try await p.signOut(Session(providerID: "main", accessToken: Secret("at"), refreshToken: Secret("rt")))
        #expect(transport.requests(to: "/oauth/revoke").last?.jsonBody?["token"] == "rt")
        try await p.signOut(Session(providerID: "main", accessToken: Secret("at")))
        #expect(transport.requests(to: "/oauth/revoke").count == 1)
        try await p.sendPasswordReset(email: "ada@example.com")
        #expect(transport.requests.last?.jsonBody?["connection"] == "db")
    }
}
