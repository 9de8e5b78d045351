import AuthHub
import AuthHubOIDC
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
                        description: "Client ID of the Auth0 application (a public client, PKCE alone, unless tokenEndpointAuthMethod says otherwise)."),
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
                        description: "Callback URL for Web Auth: a server's or app's fixed callback (webAuth.begin() sends it), or a loopback URL with a port (http://127.0.0.1:8765/callback) that browser sign-in listens on; without it, browser sign-in picks a free loopback port (RFC 8252)."),
            ConfigField("tokenEndpointAuthMethod", .oneOf(OIDCClientAuthentication.methodNames),
                        description: "How a confidential application (a regular web application) authenticates at /oauth/token, /oauth/par, /oauth/revoke and /oauth/device/code: none (a public client, the default), client_secret_post (Auth0's default for regular web applications), client_secret_basic, or private_key_jwt (a JWT signed RS256 with clientAssertionKey, aud the tenant URL with its trailing slash, valid 60 s)."),
            ConfigField("clientSecret", .string, secret: true,
                        description: "Client secret for client_secret_post or client_secret_basic; give it through a variable (\"${AUTH0_CLIENT_SECRET}\")."),
            ConfigField("clientAssertionKey", .string, secret: true,
                        description: "PEM RSA private key (2048 bits or more) whose public key is the application's Private Key JWT credential; give it through a variable (\"${AUTH0_CLIENT_KEY}\")."),
            ConfigField("clientAssertionKeyID", .string,
                        description: "The kid Auth0 gave the credential, sent in each assertion's header (optional at Auth0)."),
            ConfigField("pushedAuthorizationRequests", .boolean,
                        description: "Push Web Auth's authorization request to /oauth/par first (RFC 9126; the tenant must offer it and the application must authenticate): the browser then gets only client_id and request_uri.",
                        defaultValue: false),
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
