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
    /// The activity poll interval of the Turnkey Swift SDK, in milliseconds.
    public static let defaultActivityPollIntervalMilliseconds = 1000
    /// The number of activity polls of the Turnkey Swift SDK (3 retries).
    public static let defaultActivityPollAttempts = 3
    /// The largest accepted poll interval (one minute).
    public static let maxActivityPollIntervalMilliseconds = 60_000
    /// The largest accepted number of polls.
    public static let maxActivityPollAttempts = 100

    /// Creates the plugin; register it with ``ProviderRegistry/register(_:)`` or use `ProviderRegistry.builtIn`.
    public init() {}

    public var type: String { Self.typeName }
    public var summary: String { "Turnkey: email lookup via your backend proxy, passkey login, stamped session keys" }
    public var capabilities: Set<AuthCapability> { TurnkeyProvider.supportedCapabilities }

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
            ConfigField("activityPollIntervalMilliseconds", .integer,
                        description: "Wait in milliseconds between two get_activity polls of an activity that is not finished yet (1 to 60000).",
                        defaultValue: .number(Double(Self.defaultActivityPollIntervalMilliseconds))),
            ConfigField("activityPollAttempts", .integer,
                        description: "How many get_activity polls to make before giving up on an activity that is still pending (0 to 100).",
                        defaultValue: .number(Double(Self.defaultActivityPollAttempts))),
            ConfigField("notarizerPublicKey", .string,
                        description: "P-256 public key (hex, uncompressed 04… or compressed 02/03…) that session JWTs must be signed with. Defaults to Turnkey's production notarizer key when baseURL is api.turnkey.com; otherwise, when absent, session JWT signatures are not checked."),
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
        if let interval = configuration.int("activityPollIntervalMilliseconds"),
           !(1...Self.maxActivityPollIntervalMilliseconds).contains(interval) {
            problems.append(ConfigProblem(path: "activityPollIntervalMilliseconds",
                                          message: "must be between 1 and \(Self.maxActivityPollIntervalMilliseconds)"))
        }
        if let attempts = configuration.int("activityPollAttempts"), !(0...Self.maxActivityPollAttempts).contains(attempts) {
            problems.append(ConfigProblem(path: "activityPollAttempts", message: "must be between 0 and \(Self.maxActivityPollAttempts)"))
        }
        if let notarizer = configuration.string("notarizerPublicKey"), (try? TurnkeyKeys.signingPublicKey(hex: notarizer)) == nil {
            problems.append(ConfigProblem(path: "notarizerPublicKey",
                                          message: "must be a P-256 public key in hex: 130 characters uncompressed (04…) or 66 compressed (02…/03…)"))
        }
        return problems
    }

    public func makeProvider(_ configuration: ProviderConfiguration, context: ProviderContext) throws -> any AuthProvider {
        TurnkeyProvider(id: configuration.id, configuration: try TurnkeyConfiguration(configuration), context: context)
    }
}
