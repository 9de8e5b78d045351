import AuthHub
import Logging

/// Builds a ``PostgresSessionStore`` for `"sessionStore": {"type": "postgres", …}` in providers.json.
///
/// Register it with the registry the hub is built from; core knows the `postgres` settings (and
/// validates them) but not postgres-nio:
///
/// ```swift
/// let registry = ProviderRegistry.builtIn.registering(storeFactory: PostgresSessionStoreFactory())
/// let hub = try AuthHub.load(registry: registry)
/// ```
///
/// The store it builds runs its own connection pool for the life of the process (see
/// ``PostgresSessionStore``); `hub.store as? PostgresSessionStore` reaches it for ``PostgresSessionStore/shutdown()``.
public struct PostgresSessionStoreFactory: SessionStoreFactory {
    /// `postgres`.
    public let storeType = "postgres"
    /// The longest one store operation waits for the database.
    public var operationTimeout: Duration

    /// Creates the factory.
    /// - Parameter operationTimeout: the longest one store operation waits for the database.
    public init(operationTimeout: Duration = .seconds(10)) {
        self.operationTimeout = operationTimeout
    }

    /// Builds the store of a `postgres` configuration (nothing connects until its first operation).
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` for another store type or unusable settings.
    public func makeStore(_ configuration: SessionStoreConfiguration, logger: Logger) throws -> any SessionStore {
        guard case .postgres(let url, let table, let key) = configuration else {
            throw AuthError(.invalidConfiguration, message: "PostgresSessionStoreFactory builds postgres stores, not '\(configuration.type)'.")
        }
        return try PostgresSessionStore(url: url, table: table, encryptionKey: key, operationTimeout: operationTimeout, logger: logger)
    }
}
