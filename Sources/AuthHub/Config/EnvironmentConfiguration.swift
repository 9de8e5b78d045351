import Foundation

/// Where an environment keeps its sessions (the `sessionStore` object of providers.json).
public enum SessionStoreConfiguration: Sendable {
    /// `{"type": "memory"}`: sessions live as long as the process.
    case memory
    /// `{"type": "file", "path": …, "encryptionKey"?: …}`: one file per session under `path`;
    /// with `encryptionKey` (32 bytes, base64) every file is sealed with AES-256-GCM.
    case file(path: String, encryptionKey: Secret<String>?)
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

    public init(name: String, defaultProvider: String, sessionStore: SessionStoreConfiguration,
                providers: [ProviderConfiguration]) {
        self.name = name
        self.defaultProvider = defaultProvider
        self.sessionStore = sessionStore
        self.providers = providers
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

    /// As an ``AuthError`` with code ``AuthErrorCode/invalidConfiguration``.
    public var authError: AuthError {
        AuthError(.invalidConfiguration, message: description, underlying: self)
    }
}
