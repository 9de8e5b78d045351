import AuthHub
import AuthHubTesting
import Foundation
import Testing

/// A store whose saves fail (a retryable `storageFailure`, as a database that went away) while
/// `failing` is set; everything else is an in-memory store.
final class FlakyStore: SessionStore {
    let base = InMemorySessionStore()
    let failing = Mutex(false)
    let failedSaves = Mutex(0)

    func load(_ key: SessionKey) async throws -> Session? { try await base.load(key) }
    func save(_ session: Session, for key: SessionKey, expectedVersion: UInt64?) async throws -> Session {
        if failing.withLock({ $0 }) {
            failedSaves.withLock { $0 += 1 }
            throw AuthError(.storageFailure, message: "The database is unreachable.", isRetryable: true)
        }
        return try await base.save(session, for: key, expectedVersion: expectedVersion)
    }
    func remove(_ key: SessionKey) async throws { try await base.remove(key) }
    func keys() async throws -> [SessionKey] { try await base.keys() }
}

/// What a manager does when the store fails after the provider rotated the tokens, and when another
/// replica changes the store (``SessionManager/storeDidChange(_:)``).
@Suite struct SessionManagerStoreChangeTests {
    let key = SessionKey(provider: "ex")

    func makeProvider(_ server: StubTokenServer, _ clock: FakeClock) -> ExampleOAuthProvider {
        ExampleOAuthProvider(id: "ex", baseURL: URL(string: "https://id.example.com")!, clientID: "client",
                             clientSecret: nil, context: ProviderContext(transport: server.transport, clock: clock))
    }

    func seedExpired(_ store: any SessionStore, _ clock: FakeClock) async throws {
        try await store.save(Session(providerID: "ex", accessToken: Secret("at-old"), refreshToken: Secret("rt-0"),
                                     expiresAt: clock.now.addingTimeInterval(-10), userID: "user-1"),
                             for: key, expectedVersion: nil)
    }

    @Test func aRotatedSessionTheStoreRefusesIsKeptUsedAndWrittenLater() async throws {
        let clock = FakeClock()
        let server = StubTokenServer()
        let store = FlakyStore()
        try await seedExpired(store, clock)
        let manager = SessionManager(key: key, provider: makeProvider(server, clock), store: store, clock: clock)
        let events = await manager.events()
        store.failing.withLock { $0 = true }

        // The provider rotated rt-0 into rt-1; the store is down. The caller still gets the renewed
        // session, after the write was tried three times in all.
        let renewed = try await manager.session()
        #expect(renewed.accessToken == Secret("at-1"))
        #expect(renewed.refreshToken == Secret("rt-1"))
        #expect(store.failedSaves.withLock { $0 } >= 3)
        #expect(Array(clock.sleeps.prefix(2)) == [.milliseconds(100), .milliseconds(300)])
        #expect(await manager.hasUnsavedSession)
        #expect(try await store.base.load(key)?.refreshToken == Secret("rt-0"))

        // Reading "again" while the store still fails gives the kept session, not the spent one.
        #expect(try await manager.reload()?.refreshToken == Secret("rt-1"))
        // When the kept session expires in turn, it is renewed from its own refresh token (rt-1): the
        // spent rt-0, which the server rejects, is never sent.
        clock.advance(by: 7_200)
        let again = try await manager.session()
        #expect(again.accessToken == Secret("at-2"))
        #expect(server.refreshCount == 2)
        #expect(server.transport.requests(to: "/oauth/token").map { $0.formBody["refresh_token"] } == ["rt-0", "rt-1"])

        // The store is back: the next read writes the kept session first.
        store.failing.withLock { $0 = false }
        let stored = try #require(try await manager.reload())
        #expect(stored.refreshToken == Secret("rt-2"))
        #expect(stored.version == 2)
        #expect(try await store.base.load(key)?.refreshToken == Secret("rt-2"))
        #expect(!(await manager.hasUnsavedSession))

        var seen: [String] = []
        for await event in events {
            seen.append(event.description)
            if seen.count == 3 { break }
        }
        #expect(seen == ["initialSession(ex/default, signed in)", "tokenRefreshed(ex/default)", "tokenRefreshed(ex/default)"])
    }

    @Test func theKeptSessionIsWrittenInTheBackgroundOnceTheStoreIsBack() async throws {
        let clock = FakeClock(mode: .manual)
        let server = StubTokenServer()
        let store = FlakyStore()
        try await seedExpired(store, clock)
        let manager = SessionManager(key: key, provider: makeProvider(server, clock), store: store, clock: clock)
        store.failing.withLock { $0 = true }
        let renewal = Task { try await manager.session() }
        // Move time on until the renewal's own retries (100 ms, 300 ms) are over.
        while await !manager.hasUnsavedSession {
            clock.advance(by: 0.1)
            await Task.yield()
        }
        #expect(try await renewal.value.refreshToken == Secret("rt-1"))
        store.failing.withLock { $0 = false }
        // No one calls the manager; the background retry (first after 500 ms) stores the session.
        for _ in 0..<10_000 where await manager.hasUnsavedSession {
            clock.advance(by: 0.5)
            await Task.yield()
        }
        #expect(!(await manager.hasUnsavedSession))
        #expect(try await store.base.load(key)?.refreshToken == Secret("rt-1"))
        #expect(server.refreshCount == 1)
    }

    @Test func aKeptSessionGivesWayToAnotherWritersSession() async throws {
        let clock = FakeClock()
        let server = StubTokenServer()
        let store = FlakyStore()
        try await seedExpired(store, clock)
        let manager = SessionManager(key: key, provider: makeProvider(server, clock), store: store, clock: clock)
        store.failing.withLock { $0 = true }
        _ = try await manager.session()
        #expect(await manager.hasUnsavedSession)
        // Meanwhile someone signed in again elsewhere (written while this replica could not write).
        try await store.base.save(Session(providerID: "ex", accessToken: Secret("at-elsewhere"), refreshToken: Secret("rt-elsewhere"),
                                          expiresAt: clock.now.addingTimeInterval(3_600)), for: key, expectedVersion: nil)
        store.failing.withLock { $0 = false }
        let now = try await manager.reload()
        #expect(now?.accessToken == Secret("at-elsewhere"))
        #expect(!(await manager.hasUnsavedSession))
        #expect(try await store.base.load(key)?.accessToken == Secret("at-elsewhere"))
    }

    @Test func changesMadeElsewhereRefreshTheCacheAndPublishEvents() async throws {
        let clock = FakeClock()
        let server = StubTokenServer()
        let store = InMemorySessionStore()
        let manager = SessionManager(key: key, provider: makeProvider(server, clock), store: store, clock: clock)
        let events = await manager.events()
        // Another replica signs in.
        let first = try await store.save(Session(providerID: "ex", accessToken: Secret("at-a"), expiresAt: clock.now.addingTimeInterval(3_600),
                                                 issuedAt: clock.now), for: key, expectedVersion: nil)
        await manager.storeDidChange(.saved(key, version: first.version, signIn: true))
        #expect(manager.cachedSession(minTTL: 0)?.accessToken == Secret("at-a"))
        // A late duplicate or an older version changes nothing.
        await manager.storeDidChange(.saved(key, version: first.version, signIn: true))
        // Another key's change is not this manager's business.
        await manager.storeDidChange(.removed(SessionKey(provider: "ex", account: "other")))
        // It renews.
        var renewed = first
        renewed.accessToken = Secret("at-b")
        let second = try await store.save(renewed, for: key, expectedVersion: first.version)
        await manager.storeDidChange(.saved(key, version: second.version, signIn: false))
        #expect(manager.cachedSession(minTTL: 0)?.accessToken == Secret("at-b"))
        // It signs out.
        try await store.remove(key)
        await manager.storeDidChange(.removed(key))
        #expect(try await manager.current() == nil)
        // While no notice could arrive, it signs in again, and later renews: a resynchronization
        // finds each.
        let third = try await store.save(Session(providerID: "ex", accessToken: Secret("at-c"), expiresAt: clock.now.addingTimeInterval(3_600),
                                                 issuedAt: clock.now.addingTimeInterval(5)), for: key, expectedVersion: nil)
        await manager.storeDidChange(.resynchronize)
        var fourth = third
        fourth.accessToken = Secret("at-d")
        _ = try await store.save(fourth, for: key, expectedVersion: third.version)
        await manager.storeDidChange(.resynchronize)
        await manager.storeDidChange(.resynchronize)  // nothing new
        #expect(manager.cachedSession(minTTL: 0)?.accessToken == Secret("at-d"))

        var seen: [String] = []
        for await event in events {
            seen.append(event.description)
            if seen.count == 6 { break }
        }
        #expect(seen == ["initialSession(ex/default, signed out)", "signedIn(ex/default)", "tokenRefreshed(ex/default)",
                         "signedOut(ex/default)", "signedIn(ex/default)", "tokenRefreshed(ex/default)"])
    }
}
