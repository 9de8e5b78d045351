import Foundation

/// Where an environment keeps its sessions (the `sessionStore` object of providers.json).
///
/// Core names two store types, `memory` and `file`, and builds them itself. Every other type is a
/// plugin: a ``SessionStoreFactory`` registered with the ``ProviderRegistry`` declares its fields,
/// core validates them as it validates a provider plugin's, and the factory builds the store from
/// the validated ``SessionStoreSettings`` (``plugin(_:)``).
public enum SessionStoreConfiguration: Sendable {
    /// `{"type": "memory"}`: sessions live as long as the process.
    case memory
    /// `{"type": "file", "path": …, "encryptionKey"?: …}`: one file per session under `path`;
    /// with `encryptionKey` (32 bytes, base64) every file is sealed with AES-256-GCM.
    case file(path: String, encryptionKey: Secret<String>?)
    /// A type built by a registered ``SessionStoreFactory``, with its validated fields.
    case plugin(SessionStoreSettings)

    /// The `type` of the configuration in providers.json: `memory`, `file` or a factory's
    /// ``SessionStoreFactory/storeType``.
    public var type: String {
        switch self {
        case .memory: Self.memoryType
        case .file: Self.fileType
        case .plugin(let settings): settings.type
        }
    }

    /// `memory`.
    public static let memoryType = "memory"
    /// `file`.
    public static let fileType = "file"
    /// The store types core builds without a factory, sorted: `file`, `memory`.
    public static let builtInTypes = [fileType, memoryType]

    /// What a `memory` store is, for the schema and the reference.
    static let memorySummary = "Sessions live as long as the process."
    /// What a `file` store is, for the schema and the reference.
    static let fileSummary = "One file per session (mode 0600), written atomically."

    /// The fields of a `file` store (besides `type`), declared as a plugin declares its own, so that
    /// validation, the JSON Schema and the reference come from one place.
    public static let fileFields: [ConfigField] = [
        ConfigField("path", .string, required: true,
                    description: "Directory of the session files; relative paths are relative to this file."),
        ConfigField("encryptionKey", .string, secret: true,
                    description: "32 bytes, base64 (openssl rand -base64 32): seals every file with AES-256-GCM."),
    ]
}

/// One environment of providers.json, validated and with every `${VAR}` resolved.
public struct EnvironmentConfiguration: Sendable {
    /// The environment's name (`development`, `production`, …).
    public var name: String
    /// The id of the provider used when an operation names none.
    public var defaultProvider: String
    public var sessionStore: SessionStoreConfiguration
    /// The provider entries in file order.
    public var providers: [ProviderConfiguration]
    /// The environment's `transport`: `urlsession` or `async-http-client` (or a name a registered
    /// ``TransportFactory`` builds); nil when the file names none, which means `urlsession`.
    /// A transport set in code (``ProviderContext/transport``) wins over it.
    public var transport: String?

    /// AuthHub's own factors (`heldFactors`), nil when off.
    public var heldFactors: HeldFactorSettings?

    public init(name: String, defaultProvider: String, sessionStore: SessionStoreConfiguration,
                providers: [ProviderConfiguration], transport: String? = nil, heldFactors: HeldFactorSettings? = nil) {
        self.heldFactors = heldFactors
        self.name = name
        self.defaultProvider = defaultProvider
        self.sessionStore = sessionStore
        self.providers = providers
        self.transport = transport
    }
}

/// The error of loading providers.json: every problem found, each with its JSON path.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    /// The file the problems were found in, if it came from a file.
    public var file: String?
    public var problems: [ConfigProblem]

    public init(file: String? = nil, problems: [ConfigProblem]) {
        self.file = file
        self.problems = problems
    }

    /// One problem per line.
    public var description: String {
        let head = "\(file ?? "providers.json"): \(problems.count) problem\(problems.count == 1 ? "" : "s")"
        return ([head] + problems.map { "  " + $0.description }).joined(separator: "\n")
    }

    /// As an ``AuthError`` with code ``AuthErrorCode/invalidConfiguration``: the problems on one line,
    /// separated by `; ` (an error message is one line; ``problems`` holds them one by one).
    public var authError: AuthError {
        let head = "\(file ?? "providers.json"): \(problems.count) problem\(problems.count == 1 ? "" : "s")"
        return AuthError(.invalidConfiguration, message: head + ": " + problems.map(\.description).joined(separator: "; "), underlying: self)
    }
}
