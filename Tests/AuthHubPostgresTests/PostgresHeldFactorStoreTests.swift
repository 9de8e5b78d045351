import AuthHub
@testable import AuthHubPostgres
import AuthHubTesting
import Foundation
import PostgresNIO
import Testing

/// AuthHub-held factors on PostgreSQL (``PostgresHeldFactorStore``) against a real server: the
/// conformance suite, what a row holds, and a version-2 table upgraded.
@Suite(.enabled(if: TestDatabase.isAvailable, Comment(rawValue: TestDatabase.skipMessage)))
struct PostgresHeldFactorStoreTests {
    @Test func conformsToTheHeldFactorStoreContract() async throws {
        let stores = PostgresSessionStoreTests.Stores()
        let key = TestDatabase.randomKey()
        let failures = await HeldFactorStoreConformance {
            try stores.make(table: TestDatabase.uniqueTable("held"), key: key).heldFactorStore
        }.run()
        await stores.finish()
        #expect(failures.isEmpty, "\(failures)")
    }

    /// The row names neither id and holds no secret in clear; it opens only under its owner, so a
    /// row copied over another owner's is refused (storageFailure), not read as no factors. Two
    /// replicas (two stores on one table) compare-and-swap against each other.
    @Test func theRowIsSealedAndBoundToItsOwner() async throws {
        let stores = PostgresSessionStoreTests.Stores()
        let table = TestDatabase.uniqueTable("held_sealed")
        let key = TestDatabase.randomKey()
        let one = try stores.make(table: table, key: key).heldFactorStore, two = try stores.make(table: table, key: key).heldFactorStore
        let alice = HeldFactorOwner(provider: "oidc", user: "alice-sub"), bob = HeldFactorOwner(provider: "oidc", user: "bob-sub")
        func record(_ owner: HeldFactorOwner) -> HeldFactorRecord {
            HeldFactorRecord(owner: owner, factors: [HeldFactor(id: "authhub.1", kind: .totp, createdAt: Date(timeIntervalSince1970: 1_767_225_600),
                                                                isConfirmed: true, material: Secret("SECRET-MATERIAL-\(owner.user)"))])
        }
        let saved = try await one.save(record(alice), expectedVersion: nil)
        await #expect(throws: AuthError(.conflict), "the other replica's insert of the same owner") { try await two.save(record(alice), expectedVersion: nil) }
        _ = try await two.save(record(alice), expectedVersion: saved.version)
        await #expect(throws: AuthError(.conflict), "a stale version") { try await one.save(record(alice), expectedVersion: saved.version) }
        _ = try await one.save(record(bob), expectedVersion: nil)
        let name = try PostgresTableName(table)
        let rows = try await TestDatabase.withConnection { connection in
            try await connection.query("SELECT owner_ref, data FROM \(unescaped: name.heldFactorsQuoted)", logger: connection.logger).collect()
                .map { try $0.decode((Data, Data).self) }
        }
        #expect(rows.count == 2)
        for (ref, data) in rows {
            let text = String(decoding: ref + data, as: UTF8.self)
            #expect(!text.contains("alice-sub") && !text.contains("bob-sub") && !text.contains("SECRET-MATERIAL"))
        }
        // Alice's sealed data copied into Bob's row.
        try await TestDatabase.withConnection { connection in
            try await connection.query("""
                UPDATE \(unescaped: name.heldFactorsQuoted) SET data = (SELECT data FROM \(unescaped: name.heldFactorsQuoted) WHERE owner_ref = \(ByteBuffer(string: alice.reference)))
                WHERE owner_ref = \(ByteBuffer(string: bob.reference))
                """, logger: connection.logger).collect()
        }
        await #expect(throws: AuthError(.storageFailure)) { _ = try await one.load(bob) }
        #expect(try await one.load(alice)?.factors.first?.material == Secret("SECRET-MATERIAL-alice-sub"))
        await stores.finish()
    }

    /// A table at schema version 2 (before held factors) gets the factors table on the next start.
    @Test func aVersionTwoTableGetsTheFactorsTable() async throws {
        let stores = PostgresSessionStoreTests.Stores()
        let table = TestDatabase.uniqueTable("held_upgrade")
        let key = TestDatabase.randomKey()
        _ = try await stores.make(table: table, key: key).keys()
        let name = try PostgresTableName(table)
        try await TestDatabase.withConnection { connection in
            try await connection.query("DROP TABLE \(unescaped: name.heldFactorsQuoted)", logger: connection.logger).collect()
            try await connection.query("UPDATE authhub_schema_migrations SET version = 2 WHERE table_name = \(table)", logger: connection.logger).collect()
        }
        let upgraded = try stores.make(table: table, key: key).heldFactorStore
        let owner = HeldFactorOwner(provider: "p", user: "u")
        #expect(try await upgraded.load(owner) == nil)
        #expect(try await upgraded.save(HeldFactorRecord(owner: owner), expectedVersion: nil).version == 1)
        await stores.finish()
    }
}
