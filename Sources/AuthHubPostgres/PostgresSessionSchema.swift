import AuthHub
import Logging
import PostgresNIO

/// The sessions table and its versioned migrations.
///
/// Every store table has one row in `authhub_schema_migrations` (created when missing) holding
/// the schema version it was migrated to. Before its first operation a store runs, in one
/// transaction holding a transaction-scoped advisory lock (so replicas starting together migrate
/// one after another, and a migrator that dies releases it), the steps above the recorded version,
/// then records ``currentVersion``. A table recorded at a higher version than this build knows is
/// refused with ``AuthErrorCode/storageFailure``: an older replica must not write rows a newer one
/// cannot read back.
///
/// Version 1, the table (`<table>` is the configured, validated name):
///
/// | column | type | |
/// |---|---|---|
/// | `provider` | `bytea` | the key's provider id, UTF-8 (`bytea` because a key may hold any string, NUL included) |
/// | `account` | `bytea` | the key's account, UTF-8 |
/// | `version` | `bigint` | the compare-and-swap counter, ≥ 1; authoritative for the session's ``Session/version`` |
/// | `data` | `bytea` | the file store's envelope, sealed with AES-256-GCM (`SessionFileFormat`) |
/// | `updated_at` | `timestamptz` | when the row was last written (for operators; never read) |
///
/// Primary key `(provider, account)`.
///
/// Version 2, the index by user (``PostgresSessionStore/keys(provider:userID:)``): a column
/// `user_ref bytea` — the SHA-256 of the provider id, a NUL and the session's user id; empty for a
/// session without one; NULL for a row written before version 2, until a look-up by user indexes
/// it — and an index on `(provider, user_ref)`.
///
/// Version 3, AuthHub-held factors (``PostgresSessionStore/heldFactorStore``): a table beside it,
/// `<table>_factors` (`PostgresTableName.heldFactorsQuoted`), one row per owner:
///
/// | column | type | |
/// |---|---|---|
/// | `owner_ref` | `bytea` | primary key: the SHA-256 of the provider id, a NUL and the user id (`HeldFactorOwner.reference`) |
/// | `version` | `bigint` | the compare-and-swap counter, ≥ 1 |
/// | `data` | `bytea` | the record's envelope sealed with AES-256-GCM (`HeldFactorRecordFormat`, the file store's) |
/// | `updated_at` | `timestamptz` | when the row was last written (for operators; never read) |
enum PostgresSessionSchema {
    /// The schema version this build writes and reads.
    static let currentVersion: Int32 = 4

    /// The bookkeeping table shared by every store table of a database.
    static let migrationsTable = "authhub_schema_migrations"

    /// The advisory lock migrations hold (`AuthHubMg` in ASCII): one number for every table, since
    /// migrating is rare and short.
    static let migrationLockID: Int64 = 0x4175_7468_4875_624D

    /// The statements that take a table from version `n - 1` to `n`, for n = 1, 2, …
    static func steps(for table: PostgresTableName) -> [(version: Int32, statements: [PostgresQuery])] {
        [
            (1, [
                """
                CREATE TABLE IF NOT EXISTS \(unescaped: table.quoted) (
                    provider bytea NOT NULL,
                    account bytea NOT NULL,
                    version bigint NOT NULL CHECK (version > 0),
                    data bytea NOT NULL,
                    updated_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (provider, account)
                )
                """,
            ]),
            (2, [
                "ALTER TABLE \(unescaped: table.quoted) ADD COLUMN IF NOT EXISTS user_ref bytea",
                "CREATE INDEX IF NOT EXISTS \(unescaped: table.userIndexQuoted) ON \(unescaped: table.quoted) (provider, user_ref)",
            ]),
            (3, [
                """
                CREATE TABLE IF NOT EXISTS \(unescaped: table.heldFactorsQuoted) (
                    owner_ref bytea PRIMARY KEY,
                    version bigint NOT NULL CHECK (version > 0),
                    data bytea NOT NULL,
                    updated_at timestamptz NOT NULL DEFAULT now()
                )
                """,
            ]),
            (4, [
                """
                CREATE TABLE IF NOT EXISTS \(unescaped: table.replayQuoted) (
                    id text PRIMARY KEY,
                    expires_at timestamptz NOT NULL
                )
                """,
                "CREATE INDEX IF NOT EXISTS \(unescaped: table.replayIndexQuoted) ON \(unescaped: table.replayQuoted) (expires_at)",
            ]),
        ]
    }

    /// Brings `table` to ``currentVersion`` on `connection`, which must be in a transaction.
    /// - Returns: the version the table was at before (0: it did not exist for AuthHub).
    static func migrate(_ table: PostgresTableName, on connection: PostgresConnection, logger: Logger) async throws -> Int32 {
        _ = try await connection.query("SELECT pg_advisory_xact_lock(\(migrationLockID))", logger: logger).collect()
        _ = try await connection.query("""
            CREATE TABLE IF NOT EXISTS \(unescaped: migrationsTable) (
                table_name text PRIMARY KEY,
                version integer NOT NULL,
                migrated_at timestamptz NOT NULL DEFAULT now()
            )
            """, logger: logger).collect()
        let rows = try await connection.query("SELECT version FROM \(unescaped: migrationsTable) WHERE table_name = \(table.name)",
                                              logger: logger).collect()
        let recorded = try rows.first?.decode(Int32.self) ?? 0
        if recorded > currentVersion {
            throw AuthError(.storageFailure,
                            message: "The session table \(table) is at schema version \(recorded), newer than this build of AuthHub "
                                + "knows (\(currentVersion)); upgrade AuthHub on this replica.",
                            isRetryable: false, details: ["schemaVersion": String(recorded)])
        }
        guard recorded < currentVersion else { return recorded }
        for step in steps(for: table) where step.version > recorded {
            for statement in step.statements { _ = try await connection.query(statement, logger: logger).collect() }
        }
        _ = try await connection.query("""
            INSERT INTO \(unescaped: migrationsTable) (table_name, version) VALUES (\(table.name), \(currentVersion))
            ON CONFLICT (table_name) DO UPDATE SET version = EXCLUDED.version, migrated_at = now()
            """, logger: logger).collect()
        logger.info("session table migrated", metadata: ["table": "\(table)", "from": "\(recorded)", "to": "\(currentVersion)"])
        return recorded
    }
}
