import Foundation

/// Where an environment keeps its sessions (the `sessionStore` object of providers.json).
public enum SessionStoreConfiguration: Sendable {
    /// `{"type": "memory"}`: sessions live as long as the process.
    case memory
    /// `{"type": "file", "path": …, "encryptionKey"?: …}`: one file per session under `path`;
    /// with `encryptionKey` (32 bytes, base64) every file is sealed with AES-256-GCM.
    case file(path: String, encryptionKey: Secret<String>?)
    /// `{"type": "postgres", "url": …, "table"?: …, "encryptionKey": …}`: one row per session in a
    /// PostgreSQL table, every row sealed with AES-256-GCM; shared by every replica of an app.
    ///
    /// Core validates these settings but does not build the store: an app (or the `authhub` CLI)
    /// that imports AuthHubPostgres registers its ``SessionStoreFactory`` with the
    /// ``ProviderRegistry``, so that users of the other stores never build postgres-nio.
    /// - Parameters:
    ///   - url: `postgres://user:password@host:port/database?sslmode=…` (a secret: it holds the password).
    ///   - table: the table's name, a plain SQL identifier (default `authhub_sessions`).
    ///   - encryptionKey: 32 bytes, base64: required, so that a database dump holds no usable token.
    case postgres(url: Secret<String>, table: String, encryptionKey: Secret<String>)

    /// The `type` of the configuration in providers.json: `memory`, `file` or `postgres`.
    public var type: String {
        switch self {
        case .memory: "memory"
        case .file: "file"
        case .postgres: "postgres"
        }
    }
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

    public init(name: String, defaultProvider: String, sessionStore: SessionStoreConfiguration,
                providers: [ProviderConfiguration], transport: String? = nil) {
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
