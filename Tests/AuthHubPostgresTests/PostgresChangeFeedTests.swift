import AuthHub
@testable import AuthHubPostgres
import AuthHubTesting
import Foundation
import PostgresNIO
import Testing

/// Cross-replica events and caches: two hubs, each with its own `PostgresSessionStore` on one table
/// (two replicas, as far as the database can tell), see each other's sign-ins, renewals and
/// sign-outs on `events()`, and their cached sessions follow.
@Suite(.enabled(if: TestDatabase.isAvailable, Comment(rawValue: TestDatabase.skipMessage)))
struct PostgresChangeFeedTests {
    /// A plugin that hands out one shared provider, so that both hubs renew through the same counter.
    struct SharedPlugin: ProviderPlugin {
        let provider: CountingRefreshProvider
        var type: String { "counting" }
        var summary: String { "counting refresh provider (tests)" }
        var fields: [ConfigField] { [] }
        var capabilities: Set<AuthCapability> { [.refresh] }
        func makeProvider(_ configuration: ProviderConfiguration, context: ProviderContext) throws -> any AuthProvider { provider }
    }

    static func hub(_ store: PostgresSessionStore, provider: CountingRefreshProvider) throws -> AuthHub {
        let environment = EnvironmentConfiguration(name: "test", defaultProvider: "p", sessionStore: .memory,
                                                   providers: [ProviderConfiguration(id: "p", type: "counting", values: [:])])
        return try AuthHub(environment: environment, registry: ProviderRegistry([SharedPlugin(provider: provider)]), store: store)
    }

    /// Two replicas: two stores on one new table (each with its own pool and change feed) and a hub
    /// on each, renewing through one shared provider.
    struct Replicas {
        let table: String
        let storeA: PostgresSessionStore, storeB: PostgresSessionStore
        let hubA: AuthHub, hubB: AuthHub
        let key = SessionKey(provider: "p", account: "default")

        init(_ label: String) throws {
            table = TestDatabase.uniqueTable(label)
            let storeKey = TestDatabase.randomKey()
            storeA = try TestDatabase.store(table: table, key: storeKey)
            storeB = try TestDatabase.store(table: table, key: storeKey)
            let provider = CountingRefreshProvider(id: "p")
            hubA = try PostgresChangeFeedTests.hub(storeA, provider: provider)
            hubB = try PostgresChangeFeedTests.hub(storeB, provider: provider)
        }

        func finish() async {
            await storeA.shutdown()
            await storeB.shutdown()
            await TestDatabase.drop([table])
        }
    }

    /// Records a hub's events as they come.
    final class Recorder: Sendable {
        let seen = Mutex<[AuthEvent]>([])
        let task: Task<Void, Never>

        init(_ hub: AuthHub) {
            let events = hub.events()
            let seen = seen
            task = Task { for await event in events { seen.withLock { $0.append(event) } } }
        }

        deinit { task.cancel() }

        /// The `n`th event (from 1), waiting for it up to 10 s.
        func event(_ n: Int, _ what: String) async throws -> AuthEvent {
            try await eventually("event \(n) (\(what)) arrives") { seen.withLock { $0.count >= n } }
            return seen.withLock { $0[n - 1] }
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func anotherReplicasSignInRenewalAndSignOutReachEventsAndTheCache() async throws {
        let replicas = try Replicas("feed")
        let (storeB, hubA, hubB, key) = (replicas.storeB, replicas.hubA, replicas.hubB, replicas.key)
        let provider = try hubA.provider("p", as: CountingRefreshProvider.self)
        let events = Recorder(hubB)
        let managerB = try hubB.manager()
        #expect(try await managerB.current() == nil)
        try await eventually("replica B listens") { storeB.feed.isListening }

        // A signs in: B hears of it, with the session read from the table.
        let signedIn = try await hubA.manager().store(Session(providerID: "p", accountKey: "default", accessToken: Secret("access-1"),
                                                             refreshToken: Secret("refresh-1"), expiresAt: Date().addingTimeInterval(3600)))
        var event = try await events.event(1, "signedIn")
        guard case .signedIn(let seen) = event else { Issue.record("expected signedIn, got \(event)"); return }
        #expect(seen.key == key && seen.version == signedIn.version && seen.accessToken == Secret("access-1"))
        #expect(managerB.cachedSession(minTTL: 0)?.version == signedIn.version)

        // A renews: B's cache follows without B reading on its own, and B's events say so.
        let renewed = try await hubA.refresh()
        event = try await events.event(2, "tokenRefreshed")
        guard case .tokenRefreshed(let refreshed) = event else { Issue.record("expected tokenRefreshed, got \(event)"); return }
        #expect(refreshed.version == renewed.version && refreshed.accessToken == renewed.accessToken)
        #expect(managerB.cachedSession(minTTL: 0)?.accessToken == Secret("access-renewed-1"))
        #expect(try await hubB.session().accessToken == Secret("access-renewed-1"))
        #expect(provider.refreshes.withLock { $0 } == 1)

        // A signs out: B's events say so and B no longer hands out the session it had cached.
        try await hubA.signOut()
        event = try await events.event(3, "signedOut")
        #expect(event == .signedOut(key))
        let afterSignOut = await #expect(throws: AuthError.self) { try await hubB.session() }
        #expect(afterSignOut?.code == .noSession)

        // B's own changes are not echoed back to B.
        try await hubB.manager().store(Session(providerID: "p", accountKey: "default", accessToken: Secret("access-b"),
                                               expiresAt: Date().addingTimeInterval(3600)))
        event = try await events.event(4, "B's own signedIn")
        guard case .signedIn(let own) = event else { Issue.record("expected signedIn, got \(event)"); return }
        #expect(own.accessToken == Secret("access-b"))
        try await hubB.signOut()
        event = try await events.event(5, "B's own signedOut")
        #expect(event == .signedOut(key))
        try await hubA.manager().store(Session(providerID: "p", accountKey: "default", accessToken: Secret("access-2"),
                                               expiresAt: Date().addingTimeInterval(3600)))
        event = try await events.event(6, "A's second signedIn")
        guard case .signedIn(let second) = event else { Issue.record("expected signedIn, got \(event) (an echo of B's own write?)"); return }
        #expect(second.accessToken == Secret("access-2"))

        await replicas.finish()
    }

    @Test(.timeLimit(.minutes(1)))
    func changesMadeWhileTheFeedWasDisconnectedAreFoundOnReconnecting() async throws {
        let replicas = try Replicas("resync")
        let (storeB, hubA, hubB, key) = (replicas.storeB, replicas.hubA, replicas.hubB, replicas.key)
        try await hubA.manager().store(Session(providerID: "p", accountKey: "default", accessToken: Secret("access-1"),
                                               refreshToken: Secret("refresh-1"), expiresAt: Date().addingTimeInterval(3600)))
        let managerB = try hubB.manager()
        #expect(try await managerB.current()?.accessToken == Secret("access-1"))
        try await eventually("replica B listens") { storeB.feed.isListening }
        let events = Recorder(hubB)

        // Cut B's listening connection (as a database restart or a network cut would), then renew on
        // A while B cannot hear: the notification is lost, and B must find the change by re-reading.
        let channel = storeB.feed.channel
        try await TestDatabase.withConnection { connection in
            _ = try await connection.query("""
                SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                WHERE query = \("LISTEN \"\(channel)\";") OR query = \("LISTEN \"\(channel)\"")
                """, logger: connection.logger).collect()
        }
        try await eventually("replica B notices the cut") { !storeB.feed.isListening }
        let renewed = try await hubA.refresh()
        try await eventually("replica B listens again") { storeB.feed.isListening }

        let event = try await events.event(1, "tokenRefreshed after reconnecting")
        guard case .tokenRefreshed(let seen) = event else { Issue.record("expected tokenRefreshed, got \(event)"); return }
        #expect(seen.key == key && seen.version == renewed.version)
        #expect(managerB.cachedSession(minTTL: 0)?.accessToken == renewed.accessToken)

        await replicas.finish()
    }

    @Test func aNotificationIsOutsideInput() {
        let key = SessionKey(provider: "auth0", account: "web.1.abc")
        let prefix = PostgresChangeFeed.payloadPrefix(origin: "aaaa", kind: "r", key: key)
        #expect(PostgresChangeFeed.parse(prefix + "7", ownOrigin: "bbbb") == .saved(key, version: 7, signIn: false))
        #expect(PostgresChangeFeed.parse(prefix + "7", ownOrigin: "aaaa") == nil)
        #expect(PostgresChangeFeed.parse(PostgresChangeFeed.payloadPrefix(origin: "aaaa", kind: "d", key: key) + "3", ownOrigin: "b")
            == .removed(key))
        let long = SessionKey(provider: "p", account: String(repeating: "x", count: 7_000))
        #expect(PostgresChangeFeed.parse(PostgresChangeFeed.payloadPrefix(origin: "aaaa", kind: "s", key: long) + "1", ownOrigin: "b")
            == .resynchronize)
        for hostile in ["", "authhub1", "authhub1;a;s;;;1", "authhub1;a;s;cA;ZA;-1", "authhub1;a;s;cA;ZA;99999999999999999999999",
                        "authhub1;a;s;cA;ZA;0", "authhub1;a;q;cA;ZA;1", "authhub1;a;s;!!;ZA;1", "other;a;s;cA;ZA;1",
                        "authhub1;a;s;cA;ZA;1;extra", String(repeating: "z", count: 9_000)] {
            #expect(PostgresChangeFeed.parse(hostile, ownOrigin: "b") == nil, "\(hostile.prefix(40))")
        }
        #expect(PostgresChangeFeed.channel(for: try! PostgresTableName("authhub_sessions")) == "authhub_changes_authhub_sessions")
        let longTable = try! PostgresTableName(String(repeating: "t", count: 63))
        #expect(PostgresChangeFeed.channel(for: longTable).utf8.count <= 63)
    }
}
