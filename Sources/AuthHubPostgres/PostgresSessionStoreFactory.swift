import AuthHub
import Logging

/// Builds a ``PostgresSessionStore`` for `"sessionStore": {"type": "postgres", …}` in providers.json,
/// and declares that store's fields, so that validation, the JSON Schema and the reference cover them.
///
/// Register it with the registry the hub is built from; core knows neither the `postgres` type nor
/// postgres-nio:
///
/// ```swift
/// let registry = ProviderRegistry.builtIn.registering(storeFactory: PostgresSessionStoreFactory())
/// let hub = try AuthHub.load(registry: registry)
/// ```
///
/// Without it, providers.json naming `postgres` fails to load with `…sessionStore.type: unknown session
/// store type 'postgres'`. The fields (see <doc:PostgresStoreConfiguration>):
///
/// - `url` (required, secret): `postgres://user:password@host:port/database?sslmode=…`, checked
///   without connecting (libpq's URL form; see ``PostgresSessionStore``);
/// - `table`: a plain SQL identifier, default `authhub_sessions`;
/// - `encryptionKey` (required, secret): 32 bytes, base64, sealing every row, so that a database dump
///   holds no usable token.
///
/// The store it builds runs its own connection pool for the life of the process (see
/// ``PostgresSessionStore``); `hub.store as? PostgresSessionStore` reaches it for ``PostgresSessionStore/shutdown()``.
public struct PostgresSessionStoreFactory: SessionStoreFactory {
    /// `postgres`.
    public let storeType = "postgres"
    /// One line for the schema and the reference.
    public var summary: String {
        "One row per session in a PostgreSQL table, shared by every replica (needs the AuthHubPostgres module and its registered store factory)."
    }
    /// The longest one store operation waits for the database.
    public var operationTimeout: Duration

    /// The `url` field: the connection URL, a secret as a whole (it holds the password).
    public static let urlField = ConfigField(
        "url", .string, required: true, secret: true,
        description: "postgres://user:password@host:port/database?sslmode=… (sslmode: disable, prefer — the default —, require, "
            + "verify-ca, verify-full; also host=/socket/directory and application_name). The password may be omitted.")
    /// The `table` field: the sessions table, created and migrated by the store.
    public static let tableField = ConfigField(
        "table", .string,
        description: "The sessions table, created and migrated by the store; a plain SQL identifier (1 to 63 ASCII letters, "
            + "digits and '_', not starting with a digit); a PostgreSQL schema is chosen with the role's search_path, not in the name.",
        defaultValue: .string(PostgresTableName.defaultName))
    /// The `encryptionKey` field: seals every row with AES-256-GCM.
    public static let encryptionKeyField = ConfigField(
        "encryptionKey", .string, required: true, secret: true,
        description: "32 bytes, base64 (openssl rand -base64 32): seals every row with AES-256-GCM, so a database dump holds no usable token.")

    /// `url`, `table` and `encryptionKey`.
    public var fields: [ConfigField] { [Self.urlField, Self.tableField, Self.encryptionKeyField] }

    /// Creates the factory.
    /// - Parameter operationTimeout: the longest one store operation waits for the database.
    public init(operationTimeout: Duration = .seconds(10)) {
        self.operationTimeout = operationTimeout
    }

    /// Checks the URL's syntax (without connecting), the table name's rules and the key's length;
    /// messages say what is wrong without repeating any part of the URL.
    public func validate(_ settings: SessionStoreSettings) -> [ConfigProblem] {
        var problems: [ConfigProblem] = []
        if let url = settings.string("url") {
            do {
                _ = try PostgresConnectionURL(parsing: url)
            } catch let error as AuthError {
                problems.append(ConfigProblem(path: "url", message: error.message))
            } catch {
                problems.append(ConfigProblem(path: "url", message: "is not a valid PostgreSQL URL"))
            }
        }
        if let table = settings.string("table"), let why = PostgresTableName.problem(table) {
            problems.append(ConfigProblem(path: "table", message: why))
        }
        if let key = settings.string("encryptionKey"), !ConfigValueFormat.isEncryptionKey(key) {
            problems.append(ConfigProblem(path: "encryptionKey", message: ConfigValueFormat.encryptionKeyProblem))
        }
        return problems
    }

    /// Builds the store of validated `postgres` settings (nothing connects until its first operation).
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` for another store type or unusable settings.
    public func makeStore(_ settings: SessionStoreSettings, logger: Logger) throws -> any SessionStore {
        guard settings.type == storeType else {
            throw AuthError(.invalidConfiguration, message: "PostgresSessionStoreFactory builds postgres stores, not '\(settings.type)'.")
        }
        guard let url = settings.secret("url") else { throw settings.invalid("url", "required") }
        guard let key = settings.string("encryptionKey") else { throw settings.invalid("encryptionKey", "required") }
        let table = settings.string("table") ?? PostgresTableName.defaultName
        return try PostgresSessionStore(url: url, table: table, encryptionKey: Secret(ConfigValueFormat.trimmedEncryptionKey(key)),
                                        operationTimeout: operationTimeout, logger: logger)
    }
}
