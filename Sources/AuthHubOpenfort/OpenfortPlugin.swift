import AuthHub
import Foundation

/// The `openfort` provider type: Openfort's auth API (better-auth based v2, or legacy v1).
///
/// ```json
/// { "id": "openfort", "type": "openfort", "publishableKey": "${OPENFORT_PUBLISHABLE_KEY}" }
/// ```
public struct OpenfortPlugin: ProviderPlugin {
    /// The `type` value in providers.json.
    public static let typeName = "openfort"
    /// The production API.
    public static let defaultBaseURL = "https://api.openfort.io"

    /// Creates the plugin; register it with ``ProviderRegistry/register(_:)`` or use `ProviderRegistry.builtIn`.
    public init() {}

    public var type: String { Self.typeName }
    public var summary: String { "Openfort: email/password, email OTP, guest and social sign-in (auth API v2)" }
    public var capabilities: Set<AuthCapability> { Self.providerCapabilities }

    /// What an `openfort` provider (auth API v2) can do through the generic API. OAuth (browser)
    /// sign-in is Openfort-specific (``OpenfortProvider/oauthURL(provider:redirectURL:scopes:errorRedirectURL:upgrading:)``),
    /// not the loopback ``AuthCapability/webAuth`` flow, so it is not listed.
    public static let providerCapabilities: Set<AuthCapability> = [
        .passwordSignIn, .signUp, .guest, .emailCode, .idToken, .passwordReset, .emailVerification, .userInfo, .refresh, .revoke,
    ]

    /// What a provider on the legacy v1 API can do (no email codes).
    public static let legacyCapabilities: Set<AuthCapability> = [
        .passwordSignIn, .signUp, .guest, .idToken, .passwordReset, .emailVerification, .userInfo, .refresh, .revoke,
    ]

    public var fields: [ConfigField] {
        [
            ConfigField("publishableKey", .string, required: true,
                        description: "Publishable key of the project (pk_test_… or pk_live_…), sent as x-project-key. Never a secret key (sk_…)."),
            ConfigField("baseURL", .url, description: "API base URL; the auth API lives under /iam/v2/auth.",
                        defaultValue: .string(Self.defaultBaseURL)),
            ConfigField("nativeAppIdentifier", .string,
                        description: "Bundle identifier sent as x-native-app-identifier, for the allowed-origin check of native apps."),
            ConfigField("apiVersion", .oneOf(["v2", "v1"]),
                        description: "Auth API generation: v2 (better-auth sessions, current SDKs) or v1 (legacy player and refresh-token flows).",
                        defaultValue: "v2"),
        ]
    }

    /// Checks what field declarations cannot: a publishable (not secret) key, https for a remote base URL.
    public func validate(_ configuration: ProviderConfiguration) -> [ConfigProblem] {
        var problems: [ConfigProblem] = []
        if let key = configuration.string("publishableKey") {
            if key.hasPrefix("sk_") {
                problems.append(ConfigProblem(path: "publishableKey", message: "is a secret key (sk_…); secret keys are for servers only — use the publishable key (pk_…)"))
            } else if !key.hasPrefix("pk_") {
                problems.append(ConfigProblem(path: "publishableKey", message: "must start with pk_ (pk_test_… or pk_live_…)"))
            }
        }
        if let base = configuration.string("baseURL"), !ConfigValueFormat.isSecureOrLoopback(base) {
            problems.append(ConfigProblem(path: "baseURL", message: "must use https (plain http is allowed only for a loopback host such as the local emulator)"))
        }
        return problems
    }

    public func makeProvider(_ configuration: ProviderConfiguration, context: ProviderContext) throws -> any AuthProvider {
        OpenfortProvider(id: configuration.id, configuration: try OpenfortConfiguration(configuration), context: context)
    }
}
