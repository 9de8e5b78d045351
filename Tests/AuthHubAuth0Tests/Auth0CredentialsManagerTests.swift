import AuthHub
@_spi(Internals) @testable import AuthHubAuth0
import AuthHubTesting
import Foundation
import Testing

@Suite struct Auth0CredentialsManagerTests {
    let transport = StubTransport()
    let clock = FakeClock()
    let store = InMemorySessionStore()

    func manager(maxRetries: Int = 0) throws -> Auth0CredentialsManager {
        let provider = Auth0Provider(id: "auth0", configuration: try Auth0Configuration(domain: "tenant.auth0.com", clientId: "cid"),
                                     context: ProviderContext(transport: transport, clock: clock))
        return Auth0CredentialsManager(provider: provider, store: store, maxRetries: maxRetries, clock: clock)
    }

    func credentials(expiresIn: TimeInterval = 3600, refreshToken: String? = "rt-1", claims: JSONValue = ["sub": "auth0|1"]) -> Auth0Credentials {
        Auth0Credentials(accessToken: Secret("at-1"), idToken: Secret(Auth0ProviderTests.idToken(claims)),
                         refreshToken: refreshToken.map(Secret.init), expiresAt: clock.now.addingTimeInterval(expiresIn),
                         scope: "openid profile")
    }

    func stubRefresh(_ reply: JSONValue = ["access_token": "at-2", "expires_in": 3600, "refresh_token": "rt-2", "token_type": "Bearer"]) {
        transport.on(.post, "/oauth/token") { _ in .json(200, reply) }
    }

    @Test func freshCredentialsComeFromTheStoreAndExpiredOnesAreRenewed() async throws {
        let m = try manager()
        #expect(try await m.hasValid() == false)
        await #expect(throws: AuthError(.noSession)) { try await m.credentials() }
        try await m.store(credentials(expiresIn: 3600))
        let valid = try await m.hasValid(minTTL: 60)
        let renewable = try await m.canRenew()
        #expect(valid && renewable)
        #expect(try await m.credentials().accessToken.revealed() == "at-1")
        #expect(transport.requests.isEmpty)

        stubRefresh()
        clock.advance(by: 3590)
        let renewed = try await m.credentials(minTTL: 60)
        #expect(renewed.accessToken.revealed() == "at-2" && renewed.refreshToken?.revealed() == "rt-2")
        #expect(renewed.userID == "auth0|1", "identity survives a renewal without an ID token")
        #expect(transport.requests.count == 1)
        // The refresh request sends no audience and the scope as requested (none).
        #expect(transport.requests.last?.jsonBody == ["client_id": "cid", "grant_type": "refresh_token", "refresh_token": "rt-1"])
        #expect(renewed.scope == "openid profile", "a reply without scope keeps the stored one")
    }

    /// `largeMinTTL`: the renewed token lives shorter than asked; AuthHub stores it anyway (its
    /// refresh token may have rotated) and reports both numbers.
    @Test func aMinTTLLongerThanTheRenewedLifetimeIsReported() async throws {
        let m = try manager()
        try await m.store(credentials(expiresIn: 0))
        stubRefresh(["access_token": "at-2", "expires_in": 30, "refresh_token": "rt-2"])
        let error = await #expect(throws: AuthError.self) { try await m.credentials(minTTL: 120) }
        #expect(error?.details["minTTL"] == "120" && error?.details["lifetime"] == "30")
        #expect(try await m.sessions.current()?.refreshToken?.revealed() == "rt-2", "the rotated refresh token is kept")
    }

    @Test func aChangedScopeForcesRenewal() async throws {
        let m = try manager()
        try await m.store(credentials())
        stubRefresh(["access_token": "at-2", "expires_in": 3600, "scope": "openid read:x"])
        #expect(try await m.credentials(scope: "profile openid").accessToken.revealed() == "at-1")
        #expect(try await m.credentials(scope: "openid read:x").accessToken.revealed() == "at-2")
        #expect(transport.requests.last?.jsonBody?["scope"] == "openid read:x")
    }

    @Test func thousandConcurrentCallersCauseOneRefresh() async throws {
        let m = try manager()
        try await m.store(credentials(expiresIn: 10))
        stubRefresh()
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<1000 { group.addTask { try await m.credentials().accessToken.revealed() } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(tokens == ["at-2"])
        #expect(transport.requests(to: "/oauth/token").count == 1)
    }

    @Test func sessionExpiryIsPinnedAndEndsTheSession() async throws {
        let m = try manager()
        let expiry = clock.now.addingTimeInterval(600).timeIntervalSince1970
        try await m.store(credentials(claims: ["sub": "auth0|1", "session_expiry": .number(expiry)]))
        // A later sign-in with another session_expiry keeps the pinned one.
        try await m.store(credentials(claims: ["sub": "auth0|1", "session_expiry": .number(expiry + 10_000)]))
        #expect(try await m.sessions.current()?.extras[Auth0CredentialsManager.pinnedSessionExpiryKey] == .number(expiry))
        #expect(try await m.hasSessionExpired() == false)
        clock.advance(by: 571)  // within the 30-second margin
        #expect(try await m.hasSessionExpired())
        await #expect(throws: AuthError(.sessionExpired)) { try await m.credentials() }
        #expect(try await m.sessions.current() == nil)
        #expect(transport.requests.isEmpty)
    }

    @Test func retryableFailuresAreRetriedWithBackoff() async throws {
        let m = try manager(maxRetries: 2)
        try await m.store(credentials(expiresIn: 0))
        transport.on(.post, "/oauth/token", times: 2) { _ in .failure(TransportError(.connection, "refused")) }
        stubRefresh()
        #expect(try await m.credentials().accessToken.revealed() == "at-2")
        #expect(clock.sleeps == [.milliseconds(500), .milliseconds(1000)])
        #expect(transport.requests.count == 3)

        let strict = try manager(maxRetries: 0)
        transport.on(.post, "/oauth/token", first: true) { _ in .failure(TransportError(.connection, "refused")) }
        await #expect(throws: AuthError(.network)) { try await strict.renew() }
        #expect(try await strict.sessions.current() != nil, "a network failure never signs anyone out")
    }

    @Test func apiCredentialsAreExchangedCachedAndRotateTheMainRefreshToken() async throws {
        let m = try manager()
        try await m.store(credentials(claims: ["sub": "auth0|1", "email": "ada@example.com", "name": "A."]))
        transport.on(.post, "/oauth/token") { _ in
            .json(200, ["access_token": "api-at", "expires_in": 600, "scope": "openid read:me", "refresh_token": "rt-2",
                        "id_token": .string(Auth0ProviderTests.idToken(["sub": "auth0|1", "name": "Ada"]))])
        }
        let api = try await m.apiCredentials(forAudience: "https://tenant.auth0.com/me/", scope: "read:me")
        #expect(api.accessToken.revealed() == "api-at" && api.scope == "openid read:me")
        #expect(transport.requests.last?.jsonBody == ["client_id": "cid", "grant_type": "refresh_token", "refresh_token": "rt-1",
                                                     "audience": "https://tenant.auth0.com/me/", "scope": "openid read:me"])
        let main = try #require(try await m.sessions.current())
        #expect(main.accessToken.revealed() == "at-1" && main.refreshToken?.revealed() == "rt-2" && main.claims["name"] == "Ada")
        #expect(main.claims["email"] == "ada@example.com", "the same user's claims the exchange's ID token lacks are kept")
        #expect(await store.keys().contains(SessionKey(provider: "auth0", account: "default#api:https://tenant.auth0.com/me/::read:me")))

        // Cached: the same audience and scope (stored openid ignored) sends nothing.
        _ = try await m.apiCredentials(forAudience: "https://tenant.auth0.com/me/", scope: "read:me")
        #expect(transport.requests.count == 1)
        // Expiring within minTTL: exchanged again.
        clock.advance(by: 590)
        _ = try await m.apiCredentials(forAudience: "https://tenant.auth0.com/me/", scope: "read:me")
        #expect(transport.requests.count == 2)
        #expect(transport.requests.last?.jsonBody?["refresh_token"] == "rt-2")

        try await m.clear(forAudience: "https://tenant.auth0.com/me/", scope: "read:me")
        #expect(await store.keys() == [SessionKey(provider: "auth0")])
    }

    @Test func apiStorageKeysSortScopes() {
        #expect(Auth0CredentialsManager.apiStorageKey(audience: "https://api", scope: nil) == "https://api")
        #expect(Auth0CredentialsManager.apiStorageKey(audience: "https://api", scope: "write:b read:a") == "https://api::read:a::write:b")
        #expect(!Auth0CredentialsManager.apiScopeChanged(stored: "openid read:a", requested: "read:a"))
        #expect(Auth0CredentialsManager.apiScopeChanged(stored: "read:a", requested: "openid read:a"))
        #expect(Auth0CredentialsManager.apiScopeChanged(stored: "read:a", requested: "read:a write:b"))
    }

    @Test func ssoCredentialsRotateTheMainSession() async throws {
        let m = try manager()
        try await m.store(credentials())
        transport.on(.post, "/oauth/token") { _ in
            .json(200, ["access_token": "stt", "issued_token_type": "urn:auth0:params:oauth:token-type:session_transfer_token",
                        "expires_in": 60, "id_token": .string(Auth0ProviderTests.idToken(["sub": "auth0|1"])), "refresh_token": "rt-9"])
        }
        let sso = try await m.ssoCredentials()
        #expect(sso.sessionTransferToken.revealed() == "stt" && sso.refreshToken?.revealed() == "rt-9")
        #expect(transport.requests.last?.jsonBody?["audience"] == "urn:tenant.auth0.com:session_transfer")
        #expect(try await m.sessions.current()?.refreshToken?.revealed() == "rt-9")

        try await m.store(credentials(refreshToken: nil))
        await #expect(throws: AuthError(.sessionExpired)) { try await m.ssoCredentials() }
    }

    @Test func revokeClearsOnlyAfterSuccess() async throws {
        let m = try manager()
        await #expect(throws: AuthError(.noSession)) { try await m.revoke() }
        try await m.store(credentials())
        transport.on(.post, "/oauth/revoke", times: 1) { _ in .json(400, ["error": "invalid_request", "error_description": "nope"]) }
        await #expect(throws: AuthError.self) { try await m.revoke() }
        #expect(try await m.sessions.current() != nil)
        transport.on(.post, "/oauth/revoke") { _ in .raw(200, "") }
        try await m.revoke()
        #expect(try await m.sessions.current() == nil)
        #expect(transport.requests(to: "/oauth/revoke").last?.jsonBody == ["client_id": "cid", "token": "rt-1"])

        try await m.store(credentials(refreshToken: nil))
        try await m.revoke()
        #expect(transport.requests(to: "/oauth/revoke").count == 2, "no refresh token: cleared without a request")
    }

    @Test func userProfileComesFromTheStoredIDToken() async throws {
        let m = try manager()
        #expect(try await m.userProfile() == nil)
        try await m.store(credentials(claims: ["sub": "auth0|7", "email": "ada@example.com", "name": "Ada"]))
        let profile = try #require(try await m.userProfile())
        #expect(profile.id == "auth0|7" && profile.email == "ada@example.com" && profile.name == "Ada")
    }
}
