import AuthHub
import Foundation

/// The `turnkey` provider type: Turnkey sign-in with an email lookup through the app's backend
/// proxy and a passkey-stamped login that creates a session key.
///
/// ```json
/// { "id": "turnkey", "type": "turnkey", "organizationId": "${TURNKEY_ORG_ID}", "rpId": "example.com",
///   "proxyURL": "https://api.example.com" }
/// ```
public struct TurnkeyPlugin: ProviderPlugin {
    /// The `type` value in providers.json.
    public static let typeName = "turnkey"
    /// The production API.
    public static let defaultBaseURL = "https://api.turnkey.com"
    /// The session lifetime the Turnkey SDKs use (`expirationSeconds`).
    public static let defaultSessionLifetimeSeconds = 900

    /// Creates the plugin; register it with ``ProviderRegistry/register(_:)`` or use `ProviderRegistry.builtIn`.
    public init() {}

    public var type: String { Self.typeName }
    public var summary: String { "Turnkey: email lookup via your backend proxy, passkey login, stamped session keys" }
    public var capabilities: Set<AuthCapability> { [] }

    public var fields: [ConfigField] {
        [
            ConfigField("baseURL", .url, description: "Turnkey API base URL.", defaultValue: .string(Self.defaultBaseURL)),
            ConfigField("organizationId", .string, required: true,
                        description: "ID (UUID) of the parent organization whose sub-organizations hold the users."),
            ConfigField("rpId", .string, required: true,
                        description: "WebAuthn relying party ID the passkeys are bound to: a domain without scheme or port (e.g. example.com)."),
            ConfigField("proxyURL", .url, required: true,
                        description: "Base URL of your backend proxy that looks sub-organizations up by email (GET <proxyURL>/proxy/sub-org-ids) and holds the parent organization's API key."),
            ConfigField("sessionLifetimeSeconds", .integer,
                        description: "Lifetime in seconds of the session key created at login (expirationSeconds).",
                        defaultValue: .number(Double(Self.defaultSessionLifetimeSeconds))),
        ]
    }

    /// Checks what field declarations cannot: a UUID organization, a bare-domain rpId, a positive
    /// lifetime, https for remote URLs.
    public func validate(_ configuration: ProviderConfiguration) -> [ConfigProblem] {
        var problems: [ConfigProblem] = []
        if let base = configuration.string("baseURL"), !ConfigValueFormat.isSecureOrLoopback(base) {
            problems.append(ConfigProblem(path: "baseURL", message: "must use https (plain http is allowed only for a loopback host such as the local emulator)"))
        }
        if let organization = configuration.string("organizationId"), !ConfigValueFormat.isUUID(organization) {
            problems.append(ConfigProblem(path: "organizationId", message: "must be a UUID (8-4-4-4-12 hexadecimal digits)"))
        }
        if let rpId = configuration.string("rpId"), !ConfigValueFormat.isDomain(rpId) {
            problems.append(ConfigProblem(path: "rpId", message: "must be a domain without scheme, port or path (e.g. example.com)"))
        }
        if let proxy = configuration.string("proxyURL"), !ConfigValueFormat.isSecureOrLoopback(proxy) {
            problems.append(ConfigProblem(path: "proxyURL", message: "must use https (plain http is allowed only for a loopback host such as the local emulator)"))
        }
        if let lifetime = configuration.int("sessionLifetimeSeconds"), lifetime <= 0 {
            problems.append(ConfigProblem(path: "sessionLifetimeSeconds", message: "must be positive"))
        }
        return problems
    }

    public func makeProvider(_ configuration: ProviderConfiguration, context: ProviderContext) throws -> any AuthProvider {
        TurnkeyProvider(id: configuration.id, configuration: try TurnkeyConfiguration(configuration), context: context)
    }
}
