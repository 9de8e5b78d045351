import AuthHub
import Crypto
import Foundation
import Logging
import PostgresNIO

/// A ``RefreshLock`` that serialises refreshes of one session key among every replica that uses
/// the same PostgreSQL table: one refresh in flight per key, cluster-wide.
///
/// For each acquisition it opens a connection of its own, begins a transaction and takes the
/// transaction-scoped advisory lock `pg_advisory_xact_lock(<64 bits of SHA-256 of table and key>)`,
/// runs the body (which re-reads the session, refreshes it and **saves** the new one), and only then
/// commits and closes the connection — which is what releases the lock. So:
/// - a waiter never reads the session before the holder has written the new one;
/// - the lock is never left behind on a pooled connection (the trap of session-level advisory locks:
///   the connection goes back to the pool still holding it); and a holder that dies — killed, its
///   network gone — releases the lock as soon as the server notices its connection is gone.
///
/// Tasks of one process queue on an in-process lock per key first, so a process holds at most one
/// database connection per key being refreshed. Waiting for another replica's refresh is bounded by
/// `lockWaitTimeout` (PostgreSQL's `lock_timeout` on that transaction); opening the connection and
/// taking the lock by that plus the connect timeout. Failures are ``AuthErrorCode/storageFailure``
/// (retryable for timeouts and unreachable servers), never a hang.
public final class PostgresRefreshLock: RefreshLock {
    private let connection: PostgresConnection.Configuration
    private let table: PostgresTableName
    private let location: String
    private let lockWaitTimeout: Duration
    private let logger: Logger
    private let inProcess = InProcessRefreshLock()
    private let connectionIDs = Mutex(0)

    init(connection: PostgresConnection.Configuration, table: PostgresTableName, location: String, lockWaitTimeout: Duration,
         logger: Logger) {
        self.connection = connection
        self.table = table
        self.location = location
        self.lockWaitTimeout = lockWaitTimeout
        self.logger = logger
    }

    /// Runs `body` holding the key's advisory lock on a dedicated connection; releases it (commit and
    /// close) after `body` returns or throws.
    /// - Throws: whatever `body` throws; ``AuthErrorCode/storageFailure`` when the lock cannot be taken.
    public func withLock<T: Sendable>(_ key: SessionKey, _ body: @Sendable () async throws -> T) async throws -> T {
        try await inProcess.withLock(key) {
            let held = try await self.acquire(key)
            let result: Result<T, any Error>
            do { result = .success(try await body()) } catch { result = .failure(error) }
            await Self.release(held, logger: self.logger)
            return try result.get()
        }
    }

    /// The advisory lock number of `key` in `table`: the first 8 bytes of SHA-256 over a label, the
    /// table name and the key's canonical escaped name (unambiguous for any provider and account).
    static func lockID(table: PostgresTableName, key: SessionKey) -> Int64 {
        var hash = SHA256()
        hash.update(data: Data("authhub.refresh\u{0}\(table.name)\u{0}".utf8))
        hash.update(data: SessionFileName(key).authenticatedData)
        let bits = hash.finalize().prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Int64(bitPattern: bits)
    }

    private func acquire(_ key: SessionKey) async throws -> PostgresConnection {
        let configuration = connection
        let logger = logger
        let id = connectionIDs.withLock { next -> Int in
            next &+= 1
            return next
        }
        let lockID = Self.lockID(table: table, key: key)
        let waitMilliseconds = String(lockWaitTimeout.components.seconds * 1000 + lockWaitTimeout.components.attoseconds / 1_000_000_000_000_000)
        let operation = "take the refresh lock of \(key)"
        let location = location
        let deadline = lockWaitTimeout + PostgresConnectionSettings.connectTimeout + .seconds(5)
        do {
            return try await Deadline.run(deadline, onTimeout: { PostgresSessionStore.timeoutError(operation, location: location, timeout: deadline) },
                                          abandoned: { connection in await Self.release(connection, logger: logger) }) {
                let connection = try await PostgresConnection.connect(configuration: configuration, id: id, logger: logger)
                do {
                    _ = try await connection.query("BEGIN", logger: logger).collect()
                    _ = try await connection.query("SELECT set_config('lock_timeout', \(waitMilliseconds), true)", logger: logger).collect()
                    _ = try await connection.query("SELECT pg_advisory_xact_lock(\(lockID))", logger: logger).collect()
                    return connection
                } catch {
                    try? await connection.close()
                    throw error
                }
            }
        } catch {
            throw PostgresErrorMapper.map(error, operation: operation, store: location)
        }
    }

    /// Ends the lock's transaction and closes its connection (either releases the lock). Bounded: a
    /// COMMIT that gets no answer within 5 s is abandoned, and closing the connection releases the lock
    /// as far as the server is concerned.
    private static func release(_ connection: PostgresConnection, logger: Logger) async {
        do {
            _ = try await Deadline.run(.seconds(5), onTimeout: { AuthError(.timeout, message: "COMMIT got no answer") }) {
                try await connection.query("COMMIT", logger: logger).collect().count
            }
        } catch {
            logger.warning("refresh lock: COMMIT failed; closing the connection releases the lock")
        }
        _ = try? await Deadline.run(.seconds(5), onTimeout: { AuthError(.timeout, message: "close got no answer") }) {
            try await connection.close()
        }
    }
}
