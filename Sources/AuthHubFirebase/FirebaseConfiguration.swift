import AuthHub
import Foundation

/// The settings of a `firebase` entry of providers.json, parsed (see ``FirebasePlugin`` for the fields).
public struct FirebaseConfiguration: Sendable {
    /// The Web API key (sent as the `key` query parameter).
    public var apiKey: Secret<String>
    /// The project ID: the `aud` of ID tokens.
    public var projectId: String
    /// `host:port` of the Auth emulator; nil for production.
    public var emulatorHost: String?
    /// The Identity Platform tenant, if any.
    public var tenantId: String?

    /// Creates a configuration from values.
    public init(apiKey: Secret<String>, projectId: String, emulatorHost: String? = nil, tenantId: String? = nil) {
        self.apiKey = apiKey
        self.projectId = projectId
        self.emulatorHost = emulatorHost
        self.tenantId = tenantId
    }

    /// Parses a validated providers.json entry.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` naming the missing or invalid field.
    public init(_ configuration: ProviderConfiguration) throws {
        _ = try configuration.requiredString("apiKey")
        guard let key = configuration.secret("apiKey") else { throw configuration.invalid("apiKey", "required") }
        var host: String?
        if let raw = configuration.string("emulatorHost") {
            guard ConfigValueFormat.isHostPort(raw) else { throw configuration.invalid("emulatorHost", "must be host:port") }
            host = raw
        }
        self.init(apiKey: key, projectId: try configuration.requiredString("projectId"), emulatorHost: host,
                  tenantId: configuration.string("tenantId"))
    }

    /// Whether requests go to the Auth emulator (which issues unsigned tokens).
    public var usesEmulator: Bool { emulatorHost != nil }
}
