import AuthHub
import AuthHubTesting
import Foundation
import Logging
import Testing

@Suite struct AuthHubFacadeTests {
    let clock = FakeClock()

    func environment(defaultProvider: String = "main") -> EnvironmentConfiguration {
        EnvironmentConfiguration(
            name: "test", defaultProvider: defaultProvider, sessionStore: .memory,
            providers: [
                ProviderConfiguration(id: "main", type: "example-oauth", path: "environments.test.providers[0]",
                                      values: ["baseURL": "https://id.example.com", "clientId": "client-1",
                                               "clientSecret": "cs-SECRET-value"]),
                ProviderConfiguration(id: "other", type: "example-oauth", path: "environments.test.providers[1]",
                                      values: ["baseURL": "https://other.example.com", "clientId": "client-2"]),
            ])
    }

    func hub(_ server: StubTokenServer, logger: Logger = Logger(label: "test")) throws -> AuthHub {
        try AuthHub(environment: environment(), registry: ProviderRegistry([ExampleOAuthPlugin()]),
                    context: ProviderContext(transport: server.transport, clock: clock, logger: logger))
    }

    @Test func routesToDefaultAndNamedProviders() async throws {
        let server = StubTokenServer()
        let hub = try hub(server)
        #expect(hub.providerIDs == ["main", "other"])
        let s1 = try await hub.signIn(.password(identifier: "a@example.com", password: Secret("correct horse")))
        #expect(s1.providerID == "main")
        #expect(s1.version == 1)
        #expect(server.transport.requests.last?.url.host == "id.example.com")
        let s2 = try await hub.signIn(.password(identifier: "a@example.com", password: Secret("correct horse")), provider: "other")
        #expect(s2.providerID == "other")
        #expect(server.transport.requests.last?.url.host == "other.example.com")
        #expect(try await hub.store.keys() == [SessionKey(provider: "main"), SessionKey(provider: "other")])
        #expect(try hub.provider("main", as: ExampleOAuthProvider.self).clientID == "client-1")
    }

    @Test func providerErrorsComeBackMapped() async throws {
        let hub = try hub(StubTokenServer())
        do {
            try await hub.signIn(.password(identifier: "a@example.com", password: Secret("wrong")))
            Issue.record("expected invalidCredentials")
        } catch let e as AuthError {
            #expect(e.code == .invalidCredentials)
            #expect(e.provider == "main")
            #expect(e.providerCode == "invalid_grant")
            #expect(e.statusCode == 400)
        }
        #expect(try await hub.store.keys().isEmpty)
    }

    @Test func unsupportedOperationsNameProviderAndOperation() async throws {
        let hub = try hub(StubTokenServer())
        do {
            try await hub.signIn(.guest)
            Issue.record("expected unsupported")
        } catch let e as AuthError {
            #expect(e.code == .unsupported)
            #expect(e.message.contains("main"))
            #expect(e.message.contains("guest"))
        }
        await #expect(throws: AuthError(.unsupported)) { try await hub.sendPasswordReset(email: "a@example.com") }
        await #expect(throws: AuthError(.invalidConfiguration)) { try await hub.signIn(.guest, provider: "nope") }
        #expect(throws: AuthError(.invalidConfiguration)) { try hub.provider("main", as: OtherProvider.self) }
    }

    @Test func fullCycleWithEventsInOrder() async throws {
        let server = StubTokenServer()
        let hub = try hub(server)
        let events = hub.events()
        try await hub.signIn(.password(identifier: "a@example.com", password: Secret("correct horse")))
        clock.advance(by: 3600)
        let renewed = try await hub.session()
        #expect(renewed.accessToken.revealed() == "at-2")
        #expect(try await hub.userInfo().id == "user-1")
        let revocation = try await hub.signOut()
        #expect(revocation == nil)
        #expect(server.transport.requests(to: "/oauth/revoke").first?.formBody["token"] == "rt-2")
        #expect(try await hub.store.keys().isEmpty)
        let seen = await collect(events, count: 3)
        #expect(seen.map(\.description) == ["signedIn(main/default)", "tokenRefreshed(main/default)", "signedOut(main/default)"])
    }

    @Test func signOutClearsLocallyEvenWhenRevocationFails() async throws {
        let server = StubTokenServer()
        server.transport.on(.post, "/oauth/revoke", first: true) { _ in .failure(TransportError(.connection, "down")) }
        let hub = try hub(server)
        try await hub.signIn(.password(identifier: "a@example.com", password: Secret("correct horse")))
        let revocation = try await hub.signOut()
        #expect(revocation?.code == .network)
        #expect(try await hub.store.keys().isEmpty)
    }

    @Test func accountsAreSeparate() async throws {
        let hub = try hub(StubTokenServer())
        try await hub.signIn(.password(identifier: "a@example.com", password: Secret("correct horse")), account: "alice")
        try await hub.signIn(.password(identifier: "b@example.com", password: Secret("correct horse")), account: "bob")
        #expect(try await hub.store.keys() == [SessionKey(provider: "main", account: "alice"), SessionKey(provider: "main", account: "bob")])
        try await hub.signOut(account: "alice")
        #expect(try await hub.store.keys() == [SessionKey(provider: "main", account: "bob")])
        await #expect(throws: AuthError(.noSession)) { try await hub.session(account: "alice") }
    }

    /// Every log line at trace level during sign-in, refresh, userinfo and sign-out: none may hold a
    /// token, password, client secret or code — while the lines do describe the requests.
    @Test func noSecretReachesTheLogs() async throws {
        let capture = CapturingLogHandler.Capture()
        let server = StubTokenServer()
        let hub = try hub(server, logger: capture.logger(level: .trace))
        try await hub.signIn(.password(identifier: "a@example.com", password: Secret("correct horse")))
        clock.advance(by: 3600)
        _ = try await hub.session()
        _ = try await hub.userInfo()
        _ = try? await hub.signIn(.password(identifier: "a@example.com", password: Secret("wrong-pass-77")))
        try await hub.signOut()

        let lines = capture.lines
        let secrets = ["correct horse", "correct%20horse", "wrong-pass-77", "cs-SECRET-value", "at-1", "at-2", "at-3",
                       "rt-0", "rt-1", "rt-2", "rt-3", "idt-1", "idt-2"]
        for line in lines {
            for secret in secrets { #expect(!line.contains(secret), "secret \(secret) in log line: \(line)") }
        }
        // The logs are not empty: requests, replies, bodies (redacted) and the session events are there.
        #expect(lines.contains { $0.contains("/oauth/token") && $0.contains("grant_type=refresh_token") })
        #expect(lines.contains { $0.contains("refresh_token=<redacted>") })
        #expect(lines.contains { $0.contains("\"access_token\":\"<redacted>\"") })
        #expect(lines.contains { $0.contains("Authorization: <redacted>") })
        #expect(lines.count >= 8)
    }
}

struct OtherProvider: AuthProvider {
    let id = "x"
    let type = "x"
    let capabilities: Set<AuthCapability> = []
}
