import Foundation

/// The validated fields of a `sessionStore` object whose type a ``SessionStoreFactory`` builds: what
/// a factory receives, as a provider plugin receives its ``ProviderConfiguration``.
///
/// Values have had `${VAR}` substituted, been type-checked against the factory's
/// ``SessionStoreFactory/fields`` and passed its ``SessionStoreFactory/validate(_:)``; defaults are
/// applied. Secret fields are here too: read them with ``secret(_:)`` so they stay wrapped.
public struct SessionStoreSettings: Sendable {
    /// The `sessionStore.type` (the factory's ``SessionStoreFactory/storeType``).
    public var type: String
    /// The JSON path of the `sessionStore` object (for messages), e.g. `environments.production.sessionStore`.
    public var path: String
    /// Field values by name (defaults applied).
    public var values: [String: JSONValue]
    /// The folder of the configuration file, against which a relative path in a field should be
    /// resolved; nil when the configuration did not come from a file (then the current directory).
    public var baseDirectory: URL?

    /// Creates settings.
    /// - Parameters:
    ///   - type: the store type.
    ///   - path: the JSON path of the `sessionStore` object, for messages.
    ///   - values: field values by name.
    ///   - baseDirectory: the configuration file's folder.
    public init(type: String, path: String = "", values: [String: JSONValue], baseDirectory: URL? = nil) {
        self.type = type
        self.path = path
        self.values = values
        self.baseDirectory = baseDirectory
    }

    /// A string field.
    public func string(_ name: String) -> String? { values[name]?.stringValue }
    /// A secret string field, wrapped.
    public func secret(_ name: String) -> Secret<String>? { values[name]?.stringValue.map(Secret.init) }
    /// An integer field.
    public func int(_ name: String) -> Int? { values[name]?.intValue }
    /// A boolean field.
    public func bool(_ name: String) -> Bool? { values[name]?.boolValue }
    /// A string-array field.
    public func strings(_ name: String) -> [String]? { values[name]?.arrayValue?.compactMap(\.stringValue) }

    /// The ``AuthErrorCode/invalidConfiguration`` error for a field, with its JSON path (the value is
    /// not shown).
    public func invalid(_ name: String, _ message: String) -> AuthError {
        AuthError(.invalidConfiguration, message: "\(path.isEmpty ? "sessionStore" : path).\(name): \(message)")
    }

    /// A required string field, or an ``AuthErrorCode/invalidConfiguration`` error naming it.
    public func requiredString(_ name: String) throws -> String {
        guard let value = string(name), !value.isEmpty else { throw invalid(name, "required") }
        return value
    }
}
