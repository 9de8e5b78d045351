import Logging

/// Builds the session store of a `sessionStore` type that core validates but does not build itself,
/// because building it needs a module an app may not want: `postgres` (AuthHubPostgres, which
/// brings postgres-nio).
///
/// The module that provides the store provides a factory; an app that wants the store registers
/// it, as it registers provider plugins:
///
/// ```swift
/// import AuthHubPostgres
/// let hub = try AuthHub.load(registry: ProviderRegistry.builtIn.registering(storeFactory: PostgresSessionStoreFactory()))
/// ```
///
/// Without a factory for the configured type, building the hub fails with
/// ``AuthErrorCode/invalidConfiguration`` naming the module to import.
public protocol SessionStoreFactory: Sendable {
    /// The `sessionStore.type` it builds (``SessionStoreConfiguration/type``).
    var storeType: String { get }
    /// Builds the store of a validated configuration whose ``SessionStoreConfiguration/type`` is
    /// ``storeType``. Must not block: connecting happens on first use.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` for settings it cannot use.
    func makeStore(_ configuration: SessionStoreConfiguration, logger: Logger) throws -> any SessionStore
}
