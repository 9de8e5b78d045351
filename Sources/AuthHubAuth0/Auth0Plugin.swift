import AuthHub
import Foundation

/// The `auth0` provider type: Auth0's Authentication API, Web Auth, MFA and passkeys.
///
/// ```json
/// { "id": "auth0", "type": "auth0", "domain": "tenant.eu.auth0.com", "clientId": "${AUTH0_CLIENT_ID}" }
/// ```
public struct Auth0Plugin: ProviderPlugin {
    /// The `type` value in providers.json.
    public static let typeName = "auth0"
    /// The scope requested when the entry sets none (Auth0.swift 3.x's default).
    public static let defaultScope = "openid profile email offline_access"

    /// Creates the plugin; register it with ``ProviderRegistry/register(_:)`` or use `ProviderRegistry.builtIn`.
    public init() {}

    public var type: String { Self.typeName }
    public var summary: String { "Auth0: Authentication API (password, passwordless, MFA), Web Auth with PKCE, passkeys" }
    public var capabilities: Set<AuthCapability> { Self.providerCapabilities }

    /// What an Auth0 provider supports today.
    static let providerCapabilities: Set<AuthCapability> = [
        .passwordSignIn, .signUp, .passwordReset, .emailCode, .smsCode, .webAuth, .refresh, .revoke, .userInfo, .mfa, .deviceSignIn,
    ]

    public var fields: [ConfigField] {
        [
            ConfigField("domain", .domainOrURL, required: true,
                        description: "Tenant or custom domain (tenant.eu.auth0.com), or a base URL such as http://127.0.0.1:8750/auth0 for the local emulator. https:// is added to a bare domain."),
            ConfigField("clientId", .string, required: true,
                        description: "Client ID of the Auth0 application (a public client: no client secret is sent)."),
            ConfigField("audience", .string,
                        description: "API identifier to request access tokens for (sent as audience)."),
            ConfigField("scope", .string,
                        description: "Space-separated scopes requested at sign-in; openid is always added.",
                        defaultValue: .string(Self.defaultScope)),
            ConfigField("leeway", .integer,
                        description: "Clock skew in seconds tolerated when checking ID token times (exp, iat, auth_time).",
                        defaultValue: 60),
            ConfigField("organization", .string,
                        description: "Organization ID (org_…) or name to sign in to; sent as organization and checked in the ID token."),
            ConfigField("connection", .string,
                        description: "Database connection (realm) for password sign-in, sign-up and password reset; the tenant's default directory when absent."),
            ConfigField("redirectURI", .string,
                        description: "Callback URL for Web Auth: a server's or app's fixed callback (webAuth.start() sends it), or a loopback URL with a port (http://127.0.0.1:8765/callback) that browser sign-in listens on; without it, browser sign-in picks a free loopback port (RFC 8252)."),
            ConfigField("dpop", .boolean,
                        description: "Bind the tokens to a key of the session (DPoP, RFC 9449; the Auth0 application must allow it): every /oauth/token request carries a proof, /authorize gets dpop_jkt, and API calls need a proof per request (AuthHub.authorizationHeaders).",
                        defaultValue: false),
        ]
    }

    /// Checks what field declarations cannot: https for remote domains, a non-negative leeway, an
    /// absolute redirect URI.
    public func validate(_ configuration: ProviderConfiguration) -> [ConfigProblem] {
        var problems: [ConfigProblem] = []
        if let domain = configuration.string("domain"), domain.contains("://"), !ConfigValueFormat.isSecureOrLoopback(domain) {
            problems.append(ConfigProblem(path: "domain", message: "must use https (plain http is allowed only for a loopback host such as the local emulator)"))
        }
        if let leeway = configuration.int("leeway"), leeway < 0 {
            problems.append(ConfigProblem(path: "leeway", message: "must not be negative"))
        }
        if let redirect = configuration.string("redirectURI"), !ConfigValueFormat.isAbsoluteURI(redirect) {
            problems.append(ConfigProblem(path: "redirectURI", message: "must be an absolute URI with a scheme (e.g. com.example.app://callback)"))
        }
        return problems
    }

    public func makeProvider(_ configuration: ProviderConfiguration, context: ProviderContext) throws -> any AuthProvider {
        Auth0Provider(id: configuration.id, configuration: try Auth0Configuration(configuration), context: context)
    }
}
