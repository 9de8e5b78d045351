import Logging

/// A session store type that can appear in providers.json besides core's `memory` and `file`: its
/// name, its fields and a factory. Stores are plugins as providers are (see ``ProviderPlugin``).
///
/// The factory declares its fields as ``ConfigField``s, so that core validates a `sessionStore` of
/// its type (every problem at once, each at its JSON path; unknown, missing and mistyped fields;
/// `${VAR}` substitution; secrets never echoed), and ``ProvidersSchema`` and ``ProvidersReference``
/// describe it, without core knowing the type. The module that provides the store provides the
/// factory, so that an app pays for a store's dependencies only when it registers it:
///
/// ```swift
/// import AuthHubPostgres
/// let hub = try AuthHub.load(registry: ProviderRegistry.builtIn.registering(storeFactory: PostgresSessionStoreFactory()))
/// ```
///
/// Without a factory for the configured type, loading providers.json reports
/// `…sessionStore.type: unknown session store type` listing the known types (`file`, `memory` and
/// the registered factories' types).
public protocol SessionStoreFactory: Sendable {
    /// The `sessionStore.type` it builds, e.g. `postgres`.
    var storeType: String { get }
    /// One line saying where the store keeps sessions (for the schema and the reference).
    var summary: String { get }
    /// The fields a `sessionStore` of this type accepts (besides `type`). Documented where declared:
    /// the descriptions are the reference.
    var fields: [ConfigField] { get }
    /// Checks that declarations cannot express (a URL's syntax, a name's rules, a key's length);
    /// paths are relative to the `sessionStore` object (e.g. `url`), messages never contain values.
    ///
    /// Runs even when other fields have problems, so that every problem is reported at once:
    /// `settings` holds only the fields whose values could be read (a missing, mistyped or invalid
    /// field, or one holding a `${VAR}` not resolved yet, is absent). Check the values present;
    /// missing required fields are already reported. A problem at a field whose value came from a
    /// `${VAR}` gets ` (after substituting environment variables)` appended. The default finds nothing.
    func validate(_ settings: SessionStoreSettings) -> [ConfigProblem]
    /// Builds the store of validated settings whose ``SessionStoreSettings/type`` is ``storeType``.
    /// Must not block: connecting happens on first use.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` for settings it cannot use.
    func makeStore(_ settings: SessionStoreSettings, logger: Logger) throws -> any SessionStore
}

extension SessionStoreFactory {
    public func validate(_ settings: SessionStoreSettings) -> [ConfigProblem] { [] }
}
