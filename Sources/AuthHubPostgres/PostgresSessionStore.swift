import AuthHub
import Foundation
import Logging
import PostgresNIO

/// A ``SessionStore`` that keeps sessions in a PostgreSQL table, so that every replica of a
/// service shares them: one row per session key, written by compare-and-swap on its version.
///
/// <!-- example: context environment: EnvironmentConfiguration -->
/// ```swift
/// let store = try PostgresSessionStore(url: Secret(databaseURL), encryptionKey: Secret(storeKey))
/// let hub = try AuthHub(environment: environment, registry: .builtIn, store: store)
/// // … the app runs; when it stops:
/// await store.shutdown()
/// ```
///
/// - **Lifecycle.** The store manages its own run task: ``init(url:table:encryptionKey:operationTimeout:logger:)``
///   creates a pooled `PostgresClient` and starts its `run()` in a task the store owns, so the store
///   can be used at once; ``shutdown()`` ends it (so does releasing the store). An app that runs its
///   own `PostgresClient` (in a service-lifecycle `ServiceGroup`, say) passes it to
///   ``init(client:lockConnection:table:encryptionKey:operationTimeout:logger:)`` and keeps running it; ``shutdown()`` then
///   does nothing. Nothing connects until the first operation.
/// - **Schema.** Before its first operation the store creates or migrates its table (see
///   `PostgresSessionSchema`: versioned, recorded in `authhub_schema_migrations`, one migrator at a
///   time under an advisory lock). A failed migration is retried by the next operation.
/// - **Compare-and-swap in one statement.** `expectedVersion` nil is an upsert that increments the
///   version (`INSERT … ON CONFLICT DO UPDATE SET version = version + 1`); 0 is
///   `INSERT … ON CONFLICT DO NOTHING`; n is `UPDATE … SET version = version + 1 WHERE … AND version = n`.
///   A statement that changes no row is a ``AuthErrorCode/conflict`` (`AuthError.storeConflict`),
///   exactly as for the file store. The `version` column is authoritative: a loaded session carries it.
/// - **Encryption at rest.** Every row's `data` is the file store's envelope sealed with AES-256-GCM
///   (`SessionFileFormat`, the same code), the key's canonical name being authenticated data, so a
///   row copied under another key fails to open and a database dump holds no usable token. The key
///   is required.
/// - **Hostile rows.** A row that is too large, has a version below 1, or does not open and decode
///   for its key is a ``AuthErrorCode/storageFailure`` naming the key and the table — never a crash,
///   never "no session". A key whose bytes are not UTF-8 is left out of ``keys()`` with a warning.
/// - **Errors.** Every database failure is an ``AuthErrorCode/storageFailure`` (retryable when the
///   server is unreachable or busy; see `PostgresErrorMapper`), with the URL's password redacted.
///   An operation that gets no answer within `operationTimeout` fails the same way; a save that
///   timed out may still have been applied by the server (its outcome is unknown, as after any
///   lost connection).
/// - **Refresh lock.** ``makeRefreshLock()`` returns a ``PostgresRefreshLock``: a transaction-scoped
///   advisory lock per key, held on a connection of its own for the whole refresh.
/// - **Change feed.** Every write and removal sends a notification (`pg_notify` on the channel
///   `authhub_changes_<table>`, in the same statement, so it goes out exactly when the change
///   commits) naming the key, the new version and whether it was a sign-in, a renewal or a removal —
///   never a token. ``changes()`` listens on a connection of its own (opened for the first
///   subscriber) and reports the *other* store instances' changes; ``AuthHub`` subscribes, so every
///   replica's cached sessions follow and its `events()` carries every replica's sign-ins, renewals
///   and sign-outs. Notifications are not durable: after a reconnection the feed yields
///   ``SessionStoreChange/resynchronize`` and the hub reads its sessions again.
public final class PostgresSessionStore: ObservableSessionStore, UserIndexedSessionStore, HeldFactorStoring, Shutdownable {
    /// The table's name.
    public var table: String { tableName.name }

    /// How long a refresh waits for another replica's refresh of the same key: longer than any one
    /// refresh takes (its HTTP requests have their own, shorter, timeouts).
    static let refreshLockWaitTimeout = Duration.seconds(60)

    /// The largest `data` value read back (a sealed session is a few KiB).
    static let maxRowBytes = 1 << 20

    let tableName: PostgresTableName
    /// The database as shown in messages: the URL with its password redacted.
    let location: String
    let logger: Logger
    let operationTimeout: Duration
    private let client: PostgresClient
    private let format: SessionFileFormat
    let heldFactorFormat: HeldFactorRecordFormat
    private let runTask: Task<Void, Never>?
    private let schemaReady = Mutex(false)
    private let migration = MigrationGate()
    private let refreshLock: PostgresRefreshLock
    let feed: PostgresChangeFeed

    /// Creates a store on the database at `url`, with a connection pool of its own that the store runs
    /// until ``shutdown()``. Does not connect: the first operation does.
    /// - Parameters:
    ///   - url: `postgres://user:password@host:port/database?sslmode=…`, `sslmode` being `disable`,
    ///     `prefer` (the default), `require`, `verify-ca` or `verify-full` as in libpq.
    ///   - table: the sessions table, a plain SQL identifier; created when missing.
    ///   - encryptionKey: 32 random bytes as base64 (base64url accepted), sealing every row.
    ///   - operationTimeout: the longest one load, save, remove or listing waits for the database.
    ///   - logger: receives the store's debug lines (keys and versions, never tokens or the password).
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` for a bad URL, table name or key.
    public convenience init(url: Secret<String>, table: String = "authhub_sessions", encryptionKey: Secret<String>,
                            operationTimeout: Duration = .seconds(10), logger: Logger = Logger(label: "authhub.store.postgres")) throws {
        let parsed: PostgresConnectionURL
        do {
            parsed = try PostgresConnectionURL(parsing: url.revealed())
        } catch let error as AuthError {
            throw AuthError(.invalidConfiguration, message: "The PostgreSQL URL \(error.message).")
        }
        let tableName = try Self.validated(table)
        let format = try SessionFileFormat(encryptionKey: encryptionKey)
        let heldFactorFormat = try HeldFactorRecordFormat(encryptionKey: encryptionKey)
        let settings = try PostgresConnectionSettings(parsed)
        // The pool logs every failed connection attempt at info, many a second while the server is
        // down; the store's own errors say so once per operation, so the pool speaks from warning up.
        var poolLogger = logger
        poolLogger.logLevel = max(logger.logLevel, .warning)
        let client = PostgresClient(configuration: settings.client, backgroundLogger: poolLogger)
        self.init(client: client, ownsClient: true, lockConnection: settings.connection, location: parsed.description, table: tableName,
                  format: format, heldFactorFormat: heldFactorFormat, operationTimeout: operationTimeout, logger: logger)
    }

    /// Creates a store on a `PostgresClient` the app runs itself (its `run()` must be running, e.g.
    /// in a `ServiceGroup`, for the store to work).
    /// - Parameters:
    ///   - client: the pool the store's statements run on.
    ///   - lockConnection: how to open the dedicated connection each refresh lock is held on (the
    ///     same server and database as `client`).
    ///   - table: the sessions table, a plain SQL identifier; created when missing.
    ///   - encryptionKey: 32 random bytes as base64 (base64url accepted), sealing every row.
    ///   - operationTimeout: the longest one load, save, remove or listing waits for the database.
    ///   - logger: receives the store's debug lines (keys and versions, never tokens or the password).
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` for a bad table name or key.
    public convenience init(client: PostgresClient, lockConnection: PostgresConnection.Configuration, table: String = "authhub_sessions",
                            encryptionKey: Secret<String>, operationTimeout: Duration = .seconds(10),
                            logger: Logger = Logger(label: "authhub.store.postgres")) throws {
        let location = lockConnection.host.map { "postgres://\($0)" } ?? lockConnection.unixSocketPath.map { "postgres:///?host=\($0)" }
            ?? "PostgreSQL"
        let tableName = try Self.validated(table)
        let format = try SessionFileFormat(encryptionKey: encryptionKey)
        self.init(client: client, ownsClient: false, lockConnection: lockConnection, location: location, table: tableName,
                  format: format, heldFactorFormat: try HeldFactorRecordFormat(encryptionKey: encryptionKey),
                  operationTimeout: operationTimeout, logger: logger)
    }

    private init(client: PostgresClient, ownsClient: Bool, lockConnection: PostgresConnection.Configuration, location: String,
                 table: PostgresTableName, format: SessionFileFormat, heldFactorFormat: HeldFactorRecordFormat,
                 operationTimeout: Duration, logger: Logger) {
        self.tableName = table
        self.format = format
        self.heldFactorFormat = heldFactorFormat
        self.location = location
        self.operationTimeout = operationTimeout
        var logger = logger
        logger[metadataKey: "store"] = .string("\(location) \(table.name)")
        self.logger = logger
        self.client = client
        self.runTask = ownsClient ? Task { await client.run() } : nil
        self.refreshLock = PostgresRefreshLock(connection: lockConnection, table: table, location: location,
                                               lockWaitTimeout: Self.refreshLockWaitTimeout, logger: logger)
        self.feed = PostgresChangeFeed(connection: lockConnection, table: table, location: location, logger: logger)
    }

    deinit {
        runTask?.cancel()
        feed.cancel()
    }

    /// The changes other store instances (other replicas, or other stores in this process) make to
    /// the table, from now on; starts with ``SessionStoreChange/resynchronize`` once listening.
    public func changes() -> AsyncStream<SessionStoreChange> { feed.subscribe() }

    /// Whether the change feed is listening now (false before the first subscriber, and while it
    /// reconnects): for health checks, and for tests that must not act before a replica can hear.
    public var isListeningForChanges: Bool { feed.isListening }

    private static func validated(_ table: String) throws -> PostgresTableName {
        do {
            return try PostgresTableName(table)
        } catch let error as AuthError {
            throw AuthError(.invalidConfiguration, message: "The session table name \(error.message).")
        }
    }

    /// Ends the connection pool the store runs (after which every operation fails); does nothing for a
    /// client the app runs.
    public func shutdown() async {
        await feed.stop()
        runTask?.cancel()
        await runTask?.value
    }

    // MARK: SessionStore

    /// The session stored under `key`, or nil.
    /// - Throws: ``AuthErrorCode/storageFailure`` when the database fails or the row cannot be read.
    public func load(_ key: SessionKey) async throws -> Session? {
        let rows = try await run("load the session \(key)") { client, table, logger in
            try await client.query("""
                SELECT version, data FROM \(unescaped: table.quoted)
                WHERE provider = \(Self.bytes(key.provider)) AND account = \(Self.bytes(key.account))
                """, logger: logger).collect()
                .map { try $0.decode((Int64, Data).self) }
        }
        guard let row = rows.first else { return nil }
        return try decode(version: row.0, data: row.1, key: key)
    }

    /// Stores `session` under `key` if `expectedVersion` holds (see ``SessionStore``), in one statement.
    /// - Throws: ``AuthErrorCode/conflict`` when the expectation fails; ``AuthErrorCode/storageFailure``
    ///   when the database fails.
    @discardableResult
    public func save(_ session: Session, for key: SessionKey, expectedVersion: UInt64?) async throws -> Session {
        let expected: Int64?
        if let expectedVersion {
            guard let exact = Int64(exactly: expectedVersion) else {
                throw AuthError.storeConflict(key: key, expected: expectedVersion, found: try await storedVersion(key))
            }
            // The column is a bigint: a row at its largest value cannot take `version + 1`.
            guard exact < Int64.max else { throw AuthError.versionExhausted(key: key, version: expectedVersion) }
            expected = exact
        } else {
            expected = nil
        }
        // The sealed copy carries the version the write gives the row when it is a compare-and-swap; an
        // unconditional save learns its version from the statement (the column is authoritative).
        let sealed = try format.encode(try session.storedCopy(for: key, currentVersion: expectedVersion ?? 0, expectedVersion: nil),
                                       for: key, name: SessionFileName(key))
        let data = ByteBuffer(bytes: sealed)
        let provider = Self.bytes(key.provider)
        let account = Self.bytes(key.account)
        let userRef = Self.userReference(key.provider, session.userID)
        let channel = feed.channel
        let notice = PostgresChangeFeed.payloadPrefix(origin: feed.origin, kind: expected.map { $0 == 0 } ?? true ? "s" : "r", key: key)
        let written = try await run("save the session \(key)") { client, table, logger -> [Int64] in
            // Each statement announces its change in the same statement (pg_notify runs for the
            // written row and is delivered at commit), so no change goes unannounced.
            let query: PostgresQuery
            switch expected {
            case nil:
                query = """
                    WITH w AS (
                        INSERT INTO \(unescaped: table.quoted) AS s (provider, account, version, data, user_ref)
                        VALUES (\(provider), \(account), 1, \(data), \(userRef))
                        ON CONFLICT (provider, account) DO UPDATE SET data = EXCLUDED.data, version = s.version + 1, updated_at = now(),
                            user_ref = EXCLUDED.user_ref
                        RETURNING version)
                    SELECT w.version FROM w CROSS JOIN LATERAL (SELECT pg_notify(\(channel), \(notice) || w.version::text)) AS n
                    """
            case 0?:
                query = """
                    WITH w AS (
                        INSERT INTO \(unescaped: table.quoted) (provider, account, version, data, user_ref)
                        VALUES (\(provider), \(account), 1, \(data), \(userRef))
                        ON CONFLICT (provider, account) DO NOTHING
                        RETURNING version)
                    SELECT w.version FROM w CROSS JOIN LATERAL (SELECT pg_notify(\(channel), \(notice) || w.version::text)) AS n
                    """
            case let version?:
                query = """
                    WITH w AS (
                        UPDATE \(unescaped: table.quoted) SET data = \(data), version = version + 1, updated_at = now(), user_ref = \(userRef)
                        WHERE provider = \(provider) AND account = \(account) AND version = \(version)
                        RETURNING version)
                    SELECT w.version FROM w CROSS JOIN LATERAL (SELECT pg_notify(\(channel), \(notice) || w.version::text)) AS n
                    """
            }
            return try await client.query(query, logger: logger).collect().map { try $0.decode(Int64.self) }
        }
        guard let version = written.first else {
            // No row changed: another writer got there first. Its version is read for the message only.
            throw AuthError.storeConflict(key: key, expected: expectedVersion ?? 0, found: try await storedVersion(key))
        }
        guard version >= 1 else { throw rowFailure(key, "the version column holds \(version)") }
        logger.debug("session saved", metadata: ["key": "\(key)", "version": "\(version)"])
        return try session.storedCopy(for: key, currentVersion: UInt64(version) - 1, expectedVersion: nil)
    }

    /// Deletes `key`'s row; a missing row is not an error.
    public func remove(_ key: SessionKey) async throws {
        let channel = feed.channel
        let notice = PostgresChangeFeed.payloadPrefix(origin: feed.origin, kind: "d", key: key)
        _ = try await run("remove the session \(key)") { client, table, logger in
            try await client.query("""
                WITH d AS (
                    DELETE FROM \(unescaped: table.quoted)
                    WHERE provider = \(Self.bytes(key.provider)) AND account = \(Self.bytes(key.account))
                    RETURNING version)
                SELECT d.version FROM d CROSS JOIN LATERAL (SELECT pg_notify(\(channel), \(notice) || d.version::text)) AS n
                """, logger: logger).collect()
        }
        logger.debug("session removed", metadata: ["key": "\(key)"])
    }

    /// Every key with a row, sorted as ``SessionKey`` sorts (not by the database's collation).
    public func keys() async throws -> [SessionKey] {
        let rows = try await run("list the sessions") { client, table, logger in
            try await client.query("SELECT provider, account FROM \(unescaped: table.quoted)", logger: logger).collect()
                .map { try $0.decode((Data, Data).self) }
        }
        var keys: [SessionKey] = []
        keys.reserveCapacity(rows.count)
        for (provider, account) in rows {
            guard let provider = String(data: provider, encoding: .utf8), let account = String(data: account, encoding: .utf8) else {
                logger.warning("skipping a session row whose key is not UTF-8")
                continue
            }
            keys.append(SessionKey(provider: provider, account: account))
        }
        return keys.sorted()
    }

    /// The keys of `provider`'s sessions whose user id is `userID`, sorted: one indexed query
    /// (`user_ref`, schema version 2). Rows written before version 2 are indexed on the first
    /// look-up that finds them (each read, and its `user_ref` set unless the row changed meanwhile),
    /// so no session is left out.
    public func keys(provider: String, userID: String) async throws -> [SessionKey] {
        try await indexOlderRows(provider)
        let ref = Self.userReference(provider, userID)
        let rows = try await run("list the sessions of a user") { client, table, logger in
            try await client.query("""
                SELECT account FROM \(unescaped: table.quoted) WHERE provider = \(Self.bytes(provider)) AND user_ref = \(ref)
                """, logger: logger).collect().map { try $0.decode(Data.self) }
        }
        return rows.compactMap { String(data: $0, encoding: .utf8).map { SessionKey(provider: provider, account: $0) } }.sorted()
    }

    /// Sets `user_ref` on `provider`'s rows that have none (written before schema version 2), each
    /// only if its version is unchanged (a newer write set it already). A row that cannot be read is
    /// left as it is, with a warning.
    ///
    /// Asked on every look-up (one indexed query, `user_ref IS NULL` within the provider, that
    /// finds nothing once the table is indexed), not once per process: during a rolling upgrade a
    /// replica of a build before version 2 that checked the schema earlier may still insert rows
    /// without `user_ref`.
    private func indexOlderRows(_ provider: String) async throws {
        let rows = try await run("find sessions not indexed by user") { client, table, logger in
            try await client.query("""
                SELECT account, version, data FROM \(unescaped: table.quoted) WHERE provider = \(Self.bytes(provider)) AND user_ref IS NULL
                """, logger: logger).collect().map { try $0.decode((Data, Int64, Data).self) }
        }
        for (accountBytes, version, data) in rows {
            guard let account = String(data: accountBytes, encoding: .utf8) else { continue }
            let key = SessionKey(provider: provider, account: account)
            guard let session = try? decode(version: version, data: data, key: key) else {
                logger.warning("a session row cannot be read to index it by user", metadata: ["key": "\(key)"])
                continue
            }
            let ref = Self.userReference(provider, session.userID)
            _ = try await run("index the session \(key) by user") { client, table, logger in
                try await client.query("""
                    UPDATE \(unescaped: table.quoted) SET user_ref = \(ref)
                    WHERE provider = \(Self.bytes(provider)) AND account = \(accountBytes) AND version = \(version) AND user_ref IS NULL
                    """, logger: logger).collect()
            }
        }
    }

    /// The `user_ref` of a session: ``SessionUserReference``'s digest, empty without a user id.
    static func userReference(_ provider: String, _ userID: String?) -> ByteBuffer {
        ByteBuffer(bytes: userID.map { SessionUserReference.digest(provider: provider, userID: $0) } ?? [])
    }

    /// Drops the table — every session in it — and its migration record (for throwaway tables: demos,
    /// tests). The next operation creates it again.
    public func dropTable() async throws {
        _ = try await run("drop the table \(tableName)") { client, table, logger in
            try await client.query("DROP TABLE IF EXISTS \(unescaped: table.quoted)", logger: logger).collect()
            try await client.query("DROP TABLE IF EXISTS \(unescaped: table.heldFactorsQuoted)", logger: logger).collect()
            try await client.query("DROP TABLE IF EXISTS \(unescaped: table.replayQuoted)", logger: logger).collect()
            try await client.query("DELETE FROM authhub_schema_migrations WHERE table_name = \(table.name)", logger: logger).collect()
        }
        schemaReady.withLock { $0 = false }
        await migration.reset()
    }

    /// AuthHub-held factors, in the table beside the sessions (`<table>_factors`), sealed with this
    /// store's key: ``PostgresHeldFactorStore``.
    public var heldFactorStore: any HeldFactorStore { PostgresHeldFactorStore(store: self) }

    /// One-time values every replica shares (DPoP proofs' and logout tokens' `jti`), in this
    /// store's database (``PostgresReplayCache``, table `<table>_replay`).
    public var replayCache: PostgresReplayCache { PostgresReplayCache(store: self) }

    /// The store's ``PostgresRefreshLock``.
    public func makeRefreshLock() -> any RefreshLock { refreshLock }

    // MARK: Helpers

    /// The UTF-8 bytes of a key part, as bound to a `bytea` column.
    static func bytes(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

    /// The version stored under `key` (0 when none), for a conflict's message.
    private func storedVersion(_ key: SessionKey) async throws -> UInt64 {
        let rows = try await run("read the version of \(key)") { client, table, logger in
            try await client.query("""
                SELECT version FROM \(unescaped: table.quoted)
                WHERE provider = \(Self.bytes(key.provider)) AND account = \(Self.bytes(key.account))
                """, logger: logger).collect().map { try $0.decode(Int64.self) }
        }
        return rows.first.map { UInt64(max(0, $0)) } ?? 0
    }

    /// The session of one row, checked like a file: size, version, envelope, seal, key.
    private func decode(version: Int64, data: Data, key: SessionKey) throws -> Session {
        guard data.count <= Self.maxRowBytes else { throw rowFailure(key, "the data is larger than \(Self.maxRowBytes) bytes") }
        guard version >= 1 else { throw rowFailure(key, "the version column holds \(version)") }
        let entry = SessionFileFormat.Location(description: "the session \(key) in table \(tableName)",
                                               details: ["table": tableName.name, "key": key.description])
        var session = try format.decode(data, location: entry, name: SessionFileName(key), expecting: key)
        session.version = UInt64(version)
        return session
    }

    private func rowFailure(_ key: SessionKey, _ reason: String) -> AuthError {
        AuthError(.storageFailure, message: "Cannot read the session \(key) in table \(tableName): \(reason).",
                  details: ["table": tableName.name, "key": key.description])
    }

    /// Runs `body` on the pool, after the schema is ready, within ``operationTimeout``, mapping every
    /// failure to an ``AuthError``.
    func run<T: Sendable>(_ operation: String,
                                  _ body: @escaping @Sendable (PostgresClient, PostgresTableName, Logger) async throws -> T) async throws -> T {
        let client = client
        let table = tableName
        let logger = logger
        let location = location
        let timeout = operationTimeout
        do {
            return try await Deadline.run(timeout, onTimeout: { Self.timeoutError(operation, location: location, timeout: timeout) }) {
                try await self.ensureSchema()
                return try await body(client, table, logger)
            }
        } catch {
            throw PostgresErrorMapper.map(error, operation: operation, store: location)
        }
    }

    static func timeoutError(_ operation: String, location: String, timeout: Duration) -> AuthError {
        AuthError(.storageFailure,
                  message: "Cannot \(operation): PostgreSQL at \(location) did not answer within \(timeout.components.seconds)s "
                      + "(unreachable or overloaded).",
                  isRetryable: true)
    }

    /// Creates or migrates the table once per store; concurrent first operations share one migration,
    /// and a failed one is tried again by the next operation.
    private func ensureSchema() async throws {
        if schemaReady.withLock({ $0 }) { return }
        let client = client
        let table = tableName
        let logger = logger
        try await migration.run {
            _ = try await client.withTransaction(logger: logger) { connection in
                try await PostgresSessionSchema.migrate(table, on: connection, logger: logger)
            }
        }
        schemaReady.withLock { $0 = true }
    }
}

/// Single-flight for the first migration of a store.
private actor MigrationGate {
    private var done = false
    private var inflight: Task<Void, any Error>?

    func reset() { done = false }

    func run(_ migrate: @escaping @Sendable () async throws -> Void) async throws {
        if done { return }
        if let inflight { return try await inflight.value }
        let task = Task { try await migrate() }
        inflight = task
        defer { inflight = nil }
        try await task.value
        done = true
    }
}
