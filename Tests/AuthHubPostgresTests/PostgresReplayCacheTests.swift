import AuthHub
@testable import AuthHubPostgres
import AuthHubTesting
import Foundation
import PostgresNIO
import Testing

/// One-time values shared by every replica (``PostgresReplayCache``) against a real server: first
/// use once across replicas and under concurrency, a value free again after its expiry, expired rows
/// purged as new ones come, and hostile values refused.
@Suite(.enabled(if: TestDatabase.isAvailable, Comment(rawValue: TestDatabase.skipMessage)))
struct PostgresReplayCacheTests {
    @Test func aValueIsFirstUsedOnceAcrossReplicas() async throws {
        let stores = PostgresSessionStoreTests.Stores()
        let table = TestDatabase.uniqueTable("replay")
        let key = TestDatabase.randomKey()
        let one = try stores.make(table: table, key: key).replayCache, two = try stores.make(table: table, key: key).replayCache
        let until = Date().addingTimeInterval(120)
        #expect(try await one.firstUse(of: "jti-1", until: until))
        #expect(try await !two.firstUse(of: "jti-1", until: until), "the other replica sees it")
        #expect(try await !one.firstUse(of: "jti-1", until: until))
        #expect(try await two.firstUse(of: "jti-2", until: until))
        // Twenty requests with the same value at once, on both replicas: exactly one is first.
        let firsts = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<20 {
                let cache = index.isMultiple(of: 2) ? one : two
                group.addTask { try await cache.firstUse(of: "jti-race", until: until) }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(firsts == 1)
        await stores.finish()
    }

    @Test func anExpiredValueIsFreeAgainAndExpiredRowsArePurged() async throws {
        let stores = PostgresSessionStoreTests.Stores()
        let table = TestDatabase.uniqueTable("replay_expiry")
        let cache = try stores.make(table: table, key: TestDatabase.randomKey()).replayCache
        #expect(try await cache.firstUse(of: "warm-up", until: Date().addingTimeInterval(60)))  // the table is made first
        let shortLived = Date().addingTimeInterval(2)
        #expect(try await cache.firstUse(of: "short", until: shortLived))
        #expect(try await !cache.firstUse(of: "short", until: shortLived))
        try await Task.sleep(for: .seconds(max(0, shortLived.timeIntervalSinceNow) + 0.5))
        #expect(try await cache.firstUse(of: "short", until: Date().addingTimeInterval(60)), "expired, so free again")
        #expect(try await !cache.firstUse(of: "short", until: Date().addingTimeInterval(60)))
        // An expiry already past: nothing kept, and not a replay.
        #expect(try await cache.firstUse(of: "stale", until: Date().addingTimeInterval(-5)))
        #expect(try await cache.firstUse(of: "stale", until: Date().addingTimeInterval(-5)))

        // Forty rows expire; the next three offers delete up to 16 of them each.
        let name = try PostgresTableName(table)
        try await TestDatabase.withConnection { connection in
            try await connection.query("""
                INSERT INTO \(unescaped: name.replayQuoted) (id, expires_at)
                SELECT 'old-' || n, now() - interval '1 minute' FROM generate_series(1, 40) AS n
                """, logger: connection.logger).collect()
        }
        for index in 0..<3 { #expect(try await cache.firstUse(of: "new-\(index)", until: Date().addingTimeInterval(60))) }
        let left = try await TestDatabase.withConnection { connection in
            try await connection.query("SELECT count(*) FROM \(unescaped: name.replayQuoted) WHERE id LIKE 'old-%'", logger: connection.logger)
                .collect().map { try $0.decode(Int64.self) }
        }
        #expect(left == [0], "\(left)")
        await stores.finish()
    }

    @Test func hostileValuesAreRefused() async throws {
        let stores = PostgresSessionStoreTests.Stores()
        let cache = try stores.make(table: TestDatabase.uniqueTable("replay_hostile"), key: TestDatabase.randomKey()).replayCache
        let until = Date().addingTimeInterval(60)
        await #expect(throws: AuthError(.invalidRequest)) { _ = try await cache.firstUse(of: "", until: until) }
        await #expect(throws: AuthError(.invalidRequest)) { _ = try await cache.firstUse(of: String(repeating: "j", count: 513), until: until) }
        await #expect(throws: AuthError(.invalidRequest)) { _ = try await cache.firstUse(of: "x", until: .distantFuture) }
        // Quotes and SQL in a value are data.
        let odd = "'); DROP TABLE x; --\u{1F511}"
        #expect(try await cache.firstUse(of: odd, until: until))
        #expect(try await !cache.firstUse(of: odd, until: until))
        await stores.finish()
    }
}
