import AuthHub
import Foundation
import PostgresNIO

/// A ``ReplayCache`` every replica shares: the one-time values a server accepts once — DPoP proofs'
/// `jti` (`DPoPProofVerifier`), back-channel logout tokens' `jti` — in PostgreSQL beside a
/// ``PostgresSessionStore``'s sessions, table `<table>_replay` (schema version 4), through the
/// store's pool, schema check, timeouts and error mapping.
///
/// One statement per value: `INSERT … ON CONFLICT (id) DO UPDATE … WHERE expires_at <= now()`, so
/// of any number of replicas offering the same value at once exactly one is told it is the first
/// (a row is taken over only once it has expired). The same statement deletes up to 16 other
/// expired rows, so the table stays about as large as the values alive at once. The database's
/// clock decides when a kept value has expired; a value offered with an `expiresAt` already past
/// is not kept (and is first use, as in ``InMemoryReplayCache``).
///
/// Give it to the web core (`DPoPProofVerifier(replayCache: store.replayCache)`,
/// `WebSignInConfiguration.logoutTokenReplayCache`), or use it directly:
///
/// ```swift
/// func acceptOnce(_ jti: String, at store: PostgresSessionStore) async throws -> Bool {
///     try await store.replayCache.firstUse(of: jti, until: Date().addingTimeInterval(60))
/// }
/// ```
public struct PostgresReplayCache: ReplayCache {
    let store: PostgresSessionStore

    /// The longest value kept (the verifier's keys are 43 characters; a logout token's `jti` is the issuer's).
    public static let maximumIDBytes = 512

    public init(store: PostgresSessionStore) {
        self.store = store
    }

    /// - Throws: ``AuthErrorCode/invalidRequest`` for an empty value or one over
    ///   ``maximumIDBytes``; the store's mapped errors (``AuthErrorCode/storageFailure``,
    ///   ``AuthErrorCode/providerUnavailable`` when the database is out of reach).
    public func firstUse(of id: String, until expiresAt: Date) async throws -> Bool {
        guard !id.isEmpty, id.utf8.count <= Self.maximumIDBytes else {
            throw AuthError(.invalidRequest, message: "A one-time value must be 1 to \(Self.maximumIDBytes) bytes long.")
        }
        guard expiresAt.timeIntervalSince1970.isFinite, expiresAt.timeIntervalSince1970 < 32_503_680_000 else {  // before the year 3000
            throw AuthError(.invalidRequest, message: "A one-time value needs a real expiry.")
        }
        // Already over: nothing to remember (as the in-memory cache, which keeps it only until then).
        guard expiresAt > Date() else { return true }
        let value = id
        let rows = try await store.run("record a one-time value") { client, table, logger -> [Int32] in
            try await client.query("""
                WITH purged AS (
                    DELETE FROM \(unescaped: table.replayQuoted) WHERE id IN (
                        SELECT id FROM \(unescaped: table.replayQuoted) WHERE expires_at <= now() AND id <> \(value) LIMIT 16
                    )
                )
                INSERT INTO \(unescaped: table.replayQuoted) AS kept (id, expires_at) VALUES (\(value), \(expiresAt))
                ON CONFLICT (id) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE kept.expires_at <= now()
                RETURNING 1
                """, logger: logger).collect().map { try $0.decode(Int32.self) }
        }
        return !rows.isEmpty
    }
}
