import AuthHub
import AuthHubTesting
import Foundation
import Testing

/// Single-flight respects the scope, and a renewal is merged in one place (the manager).
@Suite struct SessionManagerScopeTests {
    let clock = FakeClock()

    func setUp(gate: Gate?) async throws -> (StubTokenServer, SessionManager) {
        let server = StubTokenServer(gate: gate)
        let provider = ExampleOAuthProvider(id: "ex", baseURL: URL(string: "https://id.example.com")!, clientID: "client",
                                            clientSecret: nil, context: ProviderContext(transport: server.transport, clock: clock))
        let store = InMemorySessionStore()
        _ = try await store.save(Session(providerID: "ex", accessToken: Secret("at-old"), refreshToken: Secret("rt-0"),
                                         expiresAt: clock.now.addingTimeInterval(-10), scope: "openid", userID: "user-1"),
                                 for: SessionKey(provider: "ex"), expectedVersion: nil)
        let manager = SessionManager(key: SessionKey(provider: "ex"), provider: provider, store: store, clock: clock)
        return (server, manager)
    }

    @Test func aCallerAskingForAnotherScopeDoesNotGetTheRenewalInFlight() async throws {
        let gate = Gate()
        let (server, m) = try await setUp(gate: gate)
        async let read = m.session(scope: "openid read")
        // The first renewal is at the server (held by the gate) before the second caller arrives.
        while await gate.waiting == 0 { await Task.yield() }
        async let write = m.session(scope: "openid write")
        for _ in 0..<200 { await Task.yield() }
        await gate.open()
        let (r, w) = try await (read, write)

        #expect(Session.scopeSet(r.scope) == ["openid", "read"])
        #expect(Session.scopeSet(w.scope) == ["openid", "write"])
        #expect(r.accessToken != w.accessToken)
        let scopes = server.transport.requests(to: "/oauth/token").compactMap { $0.formBody["scope"] }
        #expect(scopes == ["openid read", "openid write"])
        // The second renewal used the refresh token the first one rotated in.
        #expect(server.transport.requests(to: "/oauth/token").map { $0.formBody["refresh_token"] } == ["rt-0", "rt-1"])
    }

    @Test func callersAskingForTheSameScopeOrNoneShareOneRenewal() async throws {
        let gate = Gate()
        let (server, m) = try await setUp(gate: gate)
        async let first = m.session(scope: "openid read")
        while await gate.waiting == 0 { await Task.yield() }
        async let same = m.session(scope: "READ openid")
        async let none = m.renew()
        for _ in 0..<200 { await Task.yield() }
        await gate.open()
        let (a, b, c) = try await (first, same, none)
        #expect(a.accessToken == b.accessToken && b.accessToken == c.accessToken)
        #expect(server.refreshCount == 1)
    }

    @Test func aRenewalIsMergedByTheManager() {
        let key = SessionKey(provider: "ex", account: "a")
        let stored = Session(providerID: "ex", accessToken: Secret("old"), idToken: Secret("idt-old"), refreshToken: Secret("rt-old"),
                             expiresAt: Date(timeIntervalSince1970: 100), scope: "openid profile", userID: "user-1",
                             claims: ["email": "a@example.com"], extras: ["x": "1", "y": "old"], issuedAt: Date(timeIntervalSince1970: 50))
        // A reply that says only what a token endpoint says.
        let reply = Session(providerID: "ex", accessToken: Secret("new"), expiresAt: Date(timeIntervalSince1970: 4000), extras: ["y": "new"])
        let merged = SessionManager.merge(renewed: reply, into: stored, requestedScope: nil, key: key)
        #expect(merged.accessToken.revealed() == "new")
        #expect(merged.refreshToken?.revealed() == "rt-old")
        #expect(merged.idToken?.revealed() == "idt-old")
        #expect(merged.userID == "user-1")
        #expect(merged.claims["email"] == "a@example.com")
        #expect(merged.scope == "openid profile")
        #expect(merged.extras == ["x": "1", "y": "new"])
        #expect(merged.issuedAt == Date(timeIntervalSince1970: 50))
        #expect(merged.accountKey == "a")
        // An omitted scope is the one asked for (RFC 6749, section 5.1); a rotated token replaces the old.
        var rotated = reply
        rotated.refreshToken = Secret("rt-new")
        let narrowed = SessionManager.merge(renewed: rotated, into: stored, requestedScope: "openid", key: key)
        #expect(narrowed.scope == "openid")
        #expect(narrowed.refreshToken?.revealed() == "rt-new")
    }
}
