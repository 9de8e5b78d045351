import Foundation

/// The validated fields of a `sessionStore` object whose type a ``SessionStoreFactory`` builds: what
/// a factory receives, as a provider plugin receives its ``ProviderConfiguration``.
///
/// Values have had `${VAR}` substituted, been type-checked against the factory's
/// ``SessionStoreFactory/fields`` and passed its ``SessionStoreFactory/validate(_:)``; defaults are
/// applied. Secret fields are here too: read them with ``secret(_:)`` so they stay wrapped. The
/// settings' `description`, `debugDescription` and mirror (`dump`) show the fields named in
/// ``secretFields`` as `<redacted>` (a URL holding a database password, an encryption key).
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
    /// The fields declared secret (``ConfigField/secret``), never shown by `description` or `dump`;
    /// set from the factory's declarations when providers.json is loaded.
    public var secretFields: Set<String>

    /// Creates settings.
    /// - Parameters:
    ///   - type: the store type.
    ///   - path: the JSON path of the `sessionStore` object, for messages.
    ///   - values: field values by name.
    ///   - secretFields: the fields `description` and `dump` show as `<redacted>`.
    ///   - baseDirectory: the configuration file's folder.
    public init(type: String, path: String = "", values: [String: JSONValue], secretFields: Set<String> = [],
                baseDirectory: URL? = nil) {
        self.type = type
        self.path = path
        self.values = values
        self.secretFields = secretFields
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

extension SessionStoreSettings: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The values with every secret field replaced by `<redacted>`.
    var redactedValues: [String: JSONValue] {
        var shown = values
        for name in secretFields where shown[name] != nil { shown[name] = .string("<redacted>") }
        return shown
    }

    /// The type, the path and the fields, secret ones redacted.
    public var description: String {
        let shown = redactedValues
        let fields = shown.keys.sorted().map { "\($0): \(shown[$0].map { "\($0)" } ?? "")" }
        return "SessionStoreSettings(type: \(type), path: \(path), values: [\(fields.joined(separator: ", "))])"
    }

    public var debugDescription: String { description }

    /// What `dump` and reflection see: secret fields redacted.
    public var customMirror: Mirror {
        Mirror(self, children: ["type": type, "path": path, "values": redactedValues, "secretFields": secretFields.sorted(),
                                "baseDirectory": baseDirectory as Any], displayStyle: .struct)
    }
}
