import AuthHub
@testable import AuthHubPostgres
import AuthHubTesting
import Foundation
import Logging
import PostgresNIO
import Testing

/// The database goes away and comes back while a hub renews and reads a session in a loop: typed
/// errors while it is away, full recovery after, and no session lost or renewed from a spent token.
///
/// "Away" is what a restart looks like from the clients: every connection is cut
/// (`pg_terminate_backend`) and new ones are refused (`ALLOW_CONNECTIONS false`) for three seconds.
/// It is done over SQL from the `postgres` database, on a database the test creates for itself (the
/// role needs `CREATEDB`, which `scripts/postgres-dev` grants), so that the other suites, running at
/// the same time on the test database, are not cut off too.
@Suite(.serialized, .enabled(if: TestDatabase.isAvailable, Comment(rawValue: TestDatabase.skipMessage)))
struct PostgresRestartTests {
    /// A connection to the server's `postgres` database, which stays up while the test's database is away.
    static func maintenanceConnection() async throws -> PostgresConnection {
        var settings = try PostgresConnectionSettings(PostgresConnectionURL(parsing: TestDatabase.url ?? ""))
        settings.connection.database = "postgres"
        return try await PostgresConnection.connect(configuration: settings.connection, id: 9_998,
                                                    logger: Logger(label: "authhub.tests.postgres"))
    }

    /// The test database's URL with another database name.
    static func url(database: String) throws -> String {
        var parts = try #require(URLComponents(string: TestDatabase.url ?? ""), "\(TestDatabase.variable) is not a URL")
        parts.path = "/" + database
        return try #require(parts.string)
    }

    struct Tally: Sendable {
        var ok = 0
        var storageFailures = 0
        var other: [String] = []
    }

    @Test(.timeLimit(.minutes(3)))
    func aRestartedDatabaseGivesTypedErrorsThenRecoversWithNothingLost() async throws {
        let maintenance = try await Self.maintenanceConnection()
        let database = TestDatabase.uniqueTable("restartdb")
        let name = try PostgresTableName(database)  // a plain identifier, so it can be written into the statements
        _ = try await maintenance.query("CREATE DATABASE \(unescaped: name.quoted)", logger: maintenance.logger).collect()
        let table = TestDatabase.uniqueTable("restart")
        let store = try PostgresSessionStore(url: Secret(try Self.url(database: database)), table: table, encryptionKey: TestDatabase.randomKey(),
                                             operationTimeout: .seconds(2))
        let provider = RotatingRefreshProvider(id: "p")
        let manager = SessionManager(key: SessionKey(provider: "p"), provider: provider, store: store)
        try await manager.store(Session(providerID: "p", accessToken: Secret("at-0"), refreshToken: Secret("rt-0"),
                                        expiresAt: Date().addingTimeInterval(3600)))
        // Subscribe (as a hub would), so that the change feed's reconnection is part of the test.
        let changes = store.changes()
        try await eventually("the change feed listens") { store.isListeningForChanges }

        enum Phase: Int { case before, down, after }
        let phase = Mutex(Phase.before)
        let tallies = Mutex([Phase: Tally]())
        func record(_ result: Result<Void, any Error>) {
            let now = phase.withLock { $0 }
            tallies.withLock { t in
                var tally = t[now] ?? Tally()
                switch result {
                case .success: tally.ok += 1
                case .failure(let error as AuthError) where error.code == .storageFailure: tally.storageFailures += 1
                case .failure(let error): tally.other.append("\(error)")
                }
                t[now] = tally
            }
        }
        let stop = Mutex(false)
        // One task renews again and again (lock, provider, compare-and-swap); three read.
        let load = Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    while !stop.withLock({ $0 }) {
                        do { _ = try await manager.renew(); record(.success(())) } catch { record(.failure(error)) }
                        try? await Task.sleep(for: .milliseconds(20))
                    }
                }
                for _ in 0..<3 {
                    group.addTask {
                        while !stop.withLock({ $0 }) {
                            do { _ = try await store.load(manager.key); record(.success(())) } catch { record(.failure(error)) }
                            try? await Task.sleep(for: .milliseconds(20))
                        }
                    }
                }
            }
        }

        try await Task.sleep(for: .milliseconds(500))
        phase.withLock { $0 = .down }
        _ = try await maintenance.query("ALTER DATABASE \(unescaped: name.quoted) ALLOW_CONNECTIONS false", logger: maintenance.logger).collect()
        _ = try await maintenance.query("""
            SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = \(database) AND pid <> pg_backend_pid()
            """, logger: maintenance.logger).collect()
        try await Task.sleep(for: .seconds(3))
        _ = try await maintenance.query("ALTER DATABASE \(unescaped: name.quoted) ALLOW_CONNECTIONS true", logger: maintenance.logger).collect()
        let upAt = ContinuousClock.now
        // Recovery: reads and a renewal succeed again (bounded by the pool's reconnection back-off).
        var recovered: Duration?
        for _ in 0..<600 {
            let loaded: Result<Session?, any Error> = await { do { return .success(try await store.load(manager.key)) } catch { return .failure(error) } }()
            let renewed: Result<Session, any Error> = await { do { return .success(try await manager.renew()) } catch { return .failure(error) } }()
            if (try? loaded.get()) != nil, (try? renewed.get()) != nil {
                recovered = ContinuousClock.now - upAt
                break
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        phase.withLock { $0 = .after }
        try await Task.sleep(for: .seconds(1))
        stop.withLock { $0 = true }
        await load.value

        let t = tallies.withLock { $0 }
        #expect(recovered != nil, "the store did not recover within 30 s of the database's return")
        #expect((t[.before]?.ok ?? 0) > 0)
        #expect((t[.down]?.storageFailures ?? 0) > 0, "no operation failed while the database was down?")
        #expect((t[.after]?.ok ?? 0) > 0)
        #expect((t[.after]?.storageFailures ?? 0) == 0)
        for phase in [Phase.before, .down, .after] {
            #expect(t[phase]?.other.isEmpty ?? true, "untyped or unexpected errors: \(t[phase]?.other.prefix(3) ?? [])")
        }
        // Nothing lost: whatever was renewed while the database came and went, the stored session
        // holds the provider's newest refresh token, no renewal used a spent one, and it renews.
        _ = try await manager.reload()
        #expect(!(await manager.hasUnsavedSession))
        let stored = try #require(try await store.load(manager.key))
        #expect(stored.refreshToken?.revealed() == provider.state.withLock { $0.valid })
        #expect(provider.state.withLock { $0.rejected } == 0)
        _ = try await manager.renew()
        try await eventually("the change feed listens again") { store.isListeningForChanges }
        withExtendedLifetime(changes) {}
        print("database away and back: \(t[.down]?.storageFailures ?? 0) typed failures while down; recovered \(recovered.map { "\($0)" } ?? "never") after it returned")
        await store.shutdown()
        _ = try? await maintenance.query("DROP DATABASE \(unescaped: name.quoted) WITH (FORCE)", logger: maintenance.logger).collect()
        try? await maintenance.close()
    }
}
