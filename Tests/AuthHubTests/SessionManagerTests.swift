import AuthHub
import AuthHubTesting
import Foundation
import Testing

@Suite struct SessionManagerTests {
    let clock = FakeClock()

    func makeProvider(_ server: StubTokenServer) -> ExampleOAuthProvider {
        ExampleOAuthProvider(id: "ex", baseURL: URL(string: "https://id.example.com")!, clientID: "client",
                             clientSecret: nil, context: ProviderContext(transport: server.transport, clock: clock))
    }

    /// Stores an expired session holding the server's current refresh token.
    func seedExpired(_ store: any SessionStore, refreshToken: String = "rt-0") async throws -> Session {
        let session = Session(providerID: "ex", accessToken: Secret("at-old"), refreshToken: Secret(refreshToken),
                              expiresAt: clock.now.addingTimeInterval(-10), userID: "user-1")
        return try await store.save(session, for: SessionKey(provider: "ex"), expectedVersion: nil)
    }

    func manager(_ server: StubTokenServer, _ store: any SessionStore, lock: (any RefreshLock)? = nil) -> SessionManager {
        SessionManager(key: SessionKey(provider: "ex"), provider: makeProvider(server), store: store, refreshLock: lock, clock: clock)
    }

    /// Run once with the store's lock and once with a lock that does not lock, so that single-flight
    /// alone must keep the count at one.
    @Test(arguments: [false, true])
    func thousandConcurrentCallersShareOneRefresh(withoutLock: Bool) async throws {
        let gate = Gate()
        let server = StubTokenServer(gate: gate)
        let store = InMemorySessionStore()
        _ = try await seedExpired(store)
        let m = manager(server, store, lock: withoutLock ? PassThroughLock() : nil)

        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<1_000 {
                group.addTask { try await m.session().accessToken.revealed() }
            }
            // Let the callers pile up behind the single in-flight refresh before the server answers.
            while await gate.waiting == 0 { await Task.yield() }
            for _ in 0..<200 { await Task.yield() }
            await gate.open()
            var all: [String] = []
            for try await t in group { all.append(t) }
            return all
        }
        #expect(tokens.count == 1_000)
        #expect(Set(tokens) == ["at-1"])
        #expect(server.transport.requests(to: "/oauth/token").count == 1)
        #expect(server.refreshCount == 1)
        let stored = try #require(await store.load(SessionKey(provider: "ex")))
        #expect(stored.accessToken.revealed() == "at-1")
        #expect(stored.refreshToken?.revealed() == "rt-1")
        #expect(stored.version == 2)
    }

    @Test func freshSessionIsServedWithoutRequests() async throws {
        let server = StubTokenServer()
        let store = InMemorySessionStore()
        let m = manager(server, store)
        try await m.store(Session(providerID: "ex", accessToken: Secret("at-live"), refreshToken: Secret("rt-0"),
                                  expiresAt: clock.now.addingTimeInterval(3600)))
        for _ in 0..<10 { #expect(try await m.session().accessToken.revealed() == "at-live") }
        #expect(server.transport.requests.isEmpty)
        // Within minTTL of expiry it renews.
        clock.advance(by: 3600 - 30)
        #expect(try await m.session(minTTL: 60).accessToken.revealed() == "at-1")
        #expect(server.transport.requests.count == 1)
    }

    @Test(arguments: [
        StubTransport.Reply.json(503, ["error": "temporarily_unavailable"]),
        StubTransport.Reply.json(500, ["error": "server_error"]),
        StubTransport.Reply.json(429, ["error": "too_many_requests"], headerFields: [.retryAfter: "1"]),
        StubTransport.Reply.failure(TransportError(.connection, "connection refused")),
        StubTransport.Reply.failure(TransportError(.timeout, "timed out")),
        StubTransport.Reply.raw(200, "{\"access_token\": \"trunc"),
    ])
    func transientFailureKeepsTheStoredSession(reply: StubTransport.Reply) async throws {
        let server = StubTokenServer(behaviour: .fail(reply))
        let store = InMemorySessionStore()
        let seeded = try await seedExpired(store)
        let m = manager(server, store)
        let events = await m.events()

        await #expect(throws: AuthError.self) { try await m.session() }
        let stored = try #require(await store.load(SessionKey(provider: "ex")))
        #expect(stored.version == seeded.version)
        #expect(stored.refreshToken?.revealed() == "rt-0")
        #expect(try await m.canRenew())

        // After the outage the same session renews fine.
        server.setBehaviour(.rotate)
        #expect(try await m.session().accessToken.revealed() == "at-1")
        let seen = await collect(events, count: 2)
        #expect(seen.map(\.description) == ["initialSession(ex/default, signed in)", "tokenRefreshed(ex/default)"])
    }

    @Test func transientErrorsAreClassified() async throws {
        let cases: [(StubTransport.Reply, AuthErrorCode)] = [
            (.json(503, ["error": "x"]), .providerUnavailable),
            (.json(429, ["error": "x"]), .rateLimited),
            (.failure(TransportError(.connection, "refused")), .network),
            (.failure(TransportError(.timeout, "slow")), .timeout),
            (.raw(200, "not json"), .invalidRequest),
        ]
        for (reply, code) in cases {
            let server = StubTokenServer(behaviour: .fail(reply))
            let store = InMemorySessionStore()
            _ = try await seedExpired(store)
            do {
                _ = try await manager(server, store).session()
                Issue.record("expected \(code)")
            } catch let error as AuthError {
                #expect(error.code == code)
                #expect(error.provider == "ex")
            }
            #expect(await store.load(SessionKey(provider: "ex")) != nil)
        }
    }

    @Test func invalidGrantClearsTheSession() async throws {
        let server = StubTokenServer()
        let store = InMemorySessionStore()
        _ = try await seedExpired(store, refreshToken: "rt-revoked")
        let m = manager(server, store)
        let events = await m.events()

        do {
            _ = try await m.session()
            Issue.record("expected refreshTokenInvalid")
        } catch let error as AuthError {
            #expect(error.code == .refreshTokenInvalid)
            #expect(error.providerCode == "invalid_grant")
            #expect(error.statusCode == 400)
        }
        #expect(await store.load(SessionKey(provider: "ex")) == nil)
        #expect(try await m.hasValid() == false)
        await #expect(throws: AuthError(.noSession)) { try await m.session() }
        let seen = await collect(events, count: 2)
        #expect(seen.map(\.description) == ["initialSession(ex/default, signed in)", "sessionExpired(ex/default)"])
    }

    @Test func invalidGrantAdoptsANewerSessionWrittenMeanwhile() async throws {
        // A writer that does not take the refresh lock (a sign-in in another process) stores a new
        // session while our refresh, with the old token, is in flight and gets rejected.
        let store = InMemorySessionStore()
        let server = StubTokenServer()
        server.transport.on(.post, "/oauth/token", first: true, where: { $0.formBody["refresh_token"] == "rt-stale" }) { [clock] _ in
            let newer = Session(providerID: "ex", accessToken: Secret("at-other"), refreshToken: Secret("rt-other"),
                                expiresAt: clock.now.addingTimeInterval(3600))
            try await store.save(newer, for: SessionKey(provider: "ex"), expectedVersion: nil)
            return .json(400, ["error": "invalid_grant"])
        }
        _ = try await seedExpired(store, refreshToken: "rt-stale")
        let m = manager(server, store)
        let result = try await m.session()
        #expect(result.accessToken.revealed() == "at-other")
        #expect(await store.load(SessionKey(provider: "ex"))?.accessToken.revealed() == "at-other")
        #expect(server.transport.requests.count == 1)
    }

    @Test func missingRefreshTokenInReplyKeepsTheOldOne() async throws {
        let server = StubTokenServer(behaviour: .noRotation)
        let store = InMemorySessionStore()
        _ = try await seedExpired(store)
        let renewed = try await manager(server, store).session()
        #expect(renewed.accessToken.revealed() == "at-1")
        #expect(renewed.refreshToken?.revealed() == "rt-0")
        #expect(renewed.userID == "user-1")
        let stored = try #require(await store.load(SessionKey(provider: "ex")))
        #expect(stored.refreshToken?.revealed() == "rt-0")
        #expect(stored == renewed)
    }

    @Test func renewalIsStoredBeforeItIsReturned() async throws {
        let server = StubTokenServer()
        let store = InMemorySessionStore()
        _ = try await seedExpired(store)
        let renewed = try await manager(server, store).session()
        let stored = try #require(await store.load(SessionKey(provider: "ex")))
        #expect(stored.version == renewed.version)
        #expect(stored.accessToken == renewed.accessToken)
        // A second manager (a fresh process) sees the renewed session without any request.
        let again = try await manager(server, store).session()
        #expect(again.accessToken.revealed() == "at-1")
        #expect(server.transport.requests.count == 1)
    }

    @Test func reReadsTheStoreAfterTakingTheRefreshLock() async throws {
        // Two managers (as two processes would have) share a store and its lock.
        let server = StubTokenServer()
        let store = InMemorySessionStore()
        _ = try await seedExpired(store)
        let lock = store.makeRefreshLock()
        let a = manager(server, store, lock: lock)
        let b = manager(server, store, lock: lock)
        _ = try await a.current()  // a caches the expired session
        _ = try await b.session()  // b renews
        let fromA = try await a.session()  // a must pick up b's renewal, not reuse the rotated token
        #expect(fromA.accessToken.revealed() == "at-1")
        #expect(server.refreshCount == 1)
    }

    @Test func expiredWithoutRefreshTokenIsSessionExpiredAndKept() async throws {
        let server = StubTokenServer()
        let store = InMemorySessionStore()
        let m = manager(server, store)
        try await m.store(Session(providerID: "ex", accessToken: Secret("at"), expiresAt: clock.now.addingTimeInterval(-1)))
        await #expect(throws: AuthError(.sessionExpired)) { try await m.session() }
        #expect(await store.load(SessionKey(provider: "ex")) != nil)
        #expect(try await m.canRenew() == false)
        #expect(server.transport.requests.isEmpty)
    }

    @Test func noSessionIsReported() async throws {
        let m = manager(StubTokenServer(), InMemorySessionStore())
        await #expect(throws: AuthError(.noSession)) { try await m.session() }
        #expect(try await m.hasValid() == false)
        #expect(try await m.canRenew() == false)
    }

    @Test func scopeChangeForcesRenewalAndIsSent() async throws {
        let server = StubTokenServer()
        let store = InMemorySessionStore()
        let m = manager(server, store)
        try await m.store(Session(providerID: "ex", accessToken: Secret("at"), refreshToken: Secret("rt-0"),
                                  expiresAt: clock.now.addingTimeInterval(3600), scope: "openid profile"))
        _ = try await m.session(scope: "profile OPENID")  // same set: no renewal
        #expect(server.transport.requests.isEmpty)
        _ = try await m.session(scope: "openid profile email")
        #expect(server.transport.requests.first?.formBody["scope"] == "openid profile email")
    }

    @Test func hasValidHonoursMinTTL() async throws {
        let m = manager(StubTokenServer(), InMemorySessionStore())
        try await m.store(Session(providerID: "ex", accessToken: Secret("at"), expiresAt: clock.now.addingTimeInterval(100)))
        #expect(try await m.hasValid())
        #expect(try await m.hasValid(minTTL: 99))
        #expect(try await m.hasValid(minTTL: 101) == false)
    }

    @Test func tooLargeMinTTLStoresTheRenewalAndThrows() async throws {
        let server = StubTokenServer(lifetime: 30)
        let store = InMemorySessionStore()
        _ = try await seedExpired(store)
        let m = manager(server, store)
        await #expect(throws: AuthError(.invalidRequest)) { try await m.session(minTTL: 60) }
        // The rotated refresh token was kept: dropping it would have ended the session.
        #expect(await store.load(SessionKey(provider: "ex"))?.refreshToken?.revealed() == "rt-1")
    }

    @Test func eventsArriveInOrder() async throws {
        let server = StubTokenServer()
        let m = manager(server, InMemorySessionStore())
        let events = await m.events()
        try await m.store(Session(providerID: "ex", accessToken: Secret("at"), refreshToken: Secret("rt-0"),
                                  expiresAt: clock.now.addingTimeInterval(3600)))
        try await m.renew()
        try await m.clear()
        let seen = await collect(events, count: 4)
        #expect(seen.map(\.description) == [
            "initialSession(ex/default, signed out)", "signedIn(ex/default)", "tokenRefreshed(ex/default)", "signedOut(ex/default)",
        ])
    }
}

/// A "lock" that excludes nothing.
struct PassThroughLock: RefreshLock {
    func withLock<T: Sendable>(_ key: SessionKey, _ body: @Sendable () async throws -> T) async throws -> T { try await body() }
}

/// Takes the first `count` events of a stream.
func collect(_ stream: AsyncStream<AuthEvent>, count: Int) async -> [AuthEvent] {
    var out: [AuthEvent] = []
    for await e in stream {
        out.append(e)
        if out.count == count { break }
    }
    return out
}
