import AuthHub
import Foundation
import Logging
import PostgresNIO

/// AuthHub-held factors in PostgreSQL, beside a ``PostgresSessionStore``'s sessions: one row per
/// owner in `<table>_factors` (schema version 3, `PostgresSessionSchema`), keyed by the owner's
/// reference (neither id is stored), the record sealed with the session store's key (AES-256-GCM,
/// the owner's reference as authenticated data), every replica sharing it.
///
/// Compare-and-swap in one statement, as for sessions: `expectedVersion` nil is
/// `INSERT … ON CONFLICT DO NOTHING`, n is `UPDATE … WHERE version = n`; a statement that changes
/// no row is ``AuthErrorCode/conflict``. Through the session store's pool, schema check, timeouts
/// and error mapping; a row that is too large or does not open for its owner is
/// ``AuthErrorCode/storageFailure`` (a second step is refused, never skipped).
public struct PostgresHeldFactorStore: HeldFactorStore {
    let store: PostgresSessionStore

    public func load(_ owner: HeldFactorOwner) async throws -> HeldFactorRecord? {
        let ref = Self.reference(owner)
        let rows = try await store.run("load the held factors of \(owner)") { client, table, logger in
            try await client.query("SELECT version, data FROM \(unescaped: table.heldFactorsQuoted) WHERE owner_ref = \(ref)",
                                   logger: logger).collect().map { try $0.decode((Int64, Data).self) }
        }
        guard let (version, data) = rows.first else { return nil }
        return try decode(version: version, data: data, owner: owner)
    }

    @discardableResult
    public func save(_ record: HeldFactorRecord, expectedVersion: UInt64?) async throws -> HeldFactorRecord {
        let expected: Int64?
        if let expectedVersion {
            guard let exact = Int64(exactly: expectedVersion), exact < Int64.max else {
                throw AuthError(.conflict, message: "The factors of \(record.owner) were changed by another request; try again.")
            }
            expected = exact
        } else {
            expected = nil
        }
        let next = (expected ?? 0) + 1
        var stored = try record.storedCopy(found: expectedVersion, expectedVersion: expectedVersion)
        stored.version = UInt64(next)
        let data = ByteBuffer(bytes: try store.heldFactorFormat.encode(stored, name: record.owner.reference))
        let ref = Self.reference(record.owner)
        let written = try await store.run("save the held factors of \(record.owner)") { client, table, logger -> [Int64] in
            let query: PostgresQuery
            if let expected {
                query = """
                    UPDATE \(unescaped: table.heldFactorsQuoted) SET data = \(data), version = version + 1, updated_at = now()
                    WHERE owner_ref = \(ref) AND version = \(expected) RETURNING version
                    """
            } else {
                query = """
                    INSERT INTO \(unescaped: table.heldFactorsQuoted) (owner_ref, version, data) VALUES (\(ref), 1, \(data))
                    ON CONFLICT (owner_ref) DO NOTHING RETURNING version
                    """
            }
            return try await client.query(query, logger: logger).collect().map { try $0.decode(Int64.self) }
        }
        guard let version = written.first else {
            throw AuthError(.conflict, message: "The factors of \(record.owner) were changed by another request; try again.")
        }
        guard version == next else {
            throw AuthError(.storageFailure, message: "The held factors of \(record.owner) came back at version \(version), not \(next).")
        }
        return stored
    }

    public func remove(_ owner: HeldFactorOwner) async throws {
        let ref = Self.reference(owner)
        _ = try await store.run("remove the held factors of \(owner)") { client, table, logger in
            try await client.query("DELETE FROM \(unescaped: table.heldFactorsQuoted) WHERE owner_ref = \(ref)", logger: logger).collect()
        }
    }

    private static func reference(_ owner: HeldFactorOwner) -> ByteBuffer { ByteBuffer(string: owner.reference) }

    private func decode(version: Int64, data: Data, owner: HeldFactorOwner) throws -> HeldFactorRecord {
        let location = "the held factors of \(owner) in table \(store.tableName)"
        guard data.count <= HeldFactorRecordFormat.maximumBytes, version >= 1 else {
            throw AuthError(.storageFailure, message: "Cannot read \(location): the row is out of range.", details: ["table": store.tableName.name])
        }
        var record = try store.heldFactorFormat.decode(data, name: owner.reference, owner: owner, location: location)
        record.version = UInt64(version)
        return record
    }
}
