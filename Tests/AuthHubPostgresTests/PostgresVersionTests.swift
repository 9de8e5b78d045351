import AuthHub
@testable import AuthHubPostgres
import AuthHubTesting
import Foundation
import PostgresNIO
import Testing

/// A row whose `version` is the largest `bigint` cannot take `version + 1`: the write is a
/// `storageFailure` saying so (not a PostgreSQL overflow, not a success), and the renewal the
/// provider made is kept in memory and reported when written back — what `authhub refresh` relies on
/// to exit non-zero.
@Suite(.enabled(if: TestDatabase.isAvailable, Comment(rawValue: TestDatabase.skipMessage)))
struct PostgresVersionTests {
    @Test func aVersionAtTheLargestBigintCannotBeAdvanced() async throws {
        let table = TestDatabase.uniqueTable("version_max")
        let store = try TestDatabase.store(table: table, key: TestDatabase.randomKey())
        let key = SessionKey(provider: "counting", account: "max")
        _ = try await store.save(Session(providerID: "counting", accountKey: "max", accessToken: Secret("old-access"),
                                         refreshToken: Secret("old-refresh"), expiresAt: Date(timeIntervalSinceNow: -10)),
                                 for: key, expectedVersion: nil)
        try await TestDatabase.withConnection { connection in
            let name = try PostgresTableName(table)
            _ = try await connection.query("UPDATE \(unescaped: name.quoted) SET version = 9223372036854775807", logger: connection.logger).collect()
        }
        let loaded = try #require(try await store.load(key))
        #expect(loaded.version == UInt64(Int64.max))
        let error = await #expect(throws: AuthError.self) { try await store.save(loaded, for: key, expectedVersion: loaded.version) }
        #expect(error?.code == .storageFailure)
        #expect(error?.details["reason"] == "versionExhausted")

        let provider = CountingRefreshProvider(id: "counting")
        let manager = SessionManager(key: key, provider: provider, store: store)
        let renewed = try await manager.session(minTTL: 60)
        #expect(renewed.accessToken.revealed().hasPrefix("access-renewed"))
        #expect(await manager.hasUnsavedSession)
        await #expect(throws: AuthError.self) { try await manager.storeUnsaved() }
        #expect(try await store.load(key)?.accessToken.revealed() == "old-access", "the row keeps the old session")
        await store.shutdown()
        await TestDatabase.drop([table])
    }
}
