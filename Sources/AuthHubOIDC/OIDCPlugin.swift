import AuthHub
import Foundation

/// The `oidc` provider type: any OpenID Connect provider, through discovery, the authorization
/// code flow with PKCE and ID-token validation.
///
/// ```json
/// { "id": "corp", "type": "oidc", "issuer": "https://login.example.com", "clientId": "cli" }
/// ```
public struct OIDCPlugin: ProviderPlugin {
    /// The `type` value in providers.json.
    public static let typeName = "oidc"
    /// The scopes requested when the entry sets none.
    public static let defaultScopes = ["openid", "profile", "email"]

    /// Creates the plugin; register it with ``ProviderRegistry/register(_:)`` or use `ProviderRegistry.builtIn`.
    public init() {}

    /// `oidc`.
    public var type: String { Self.typeName }
    /// One line for `authhub providers`.
    public var summary: String { "Generic OpenID Connect: discovery, authorization code + PKCE, ID-token validation" }
    /// Browser sign-in (PKCE, loopback redirect), refresh, and device sign-in (RFC 8628) where the
    /// provider offers it.
    public var capabilities: Set<AuthCapability> { [.webAuth, .refresh, .deviceSignIn] }

    /// The providers.json fields of an `oidc` entry.

    public var fields: [ConfigField] {
        [
            ConfigField("issuer", .url, required: true,
                        description: "Issuer identifier; the configuration is discovered at <issuer>/.well-known/openid-configuration and ID tokens must carry it as iss."),
            ConfigField("clientId", .string, required: true, description: "Client ID registered with the provider."),
            ConfigField("clientSecret", .string, secret: true,
                        description: "Client secret of a confidential client (client_secret_basic); leave it out for a public client, which uses PKCE alone."),
            ConfigField("scopes", .stringArray, description: "Scopes requested at sign-in; must include openid.",
                        defaultValue: .array(Self.defaultScopes.map(JSONValue.string))),
            ConfigField("redirectURI", .string,
                        description: "Redirect URI registered with the provider: a server's or app's callback (makeTransaction() sends it), or a loopback URL with a port (http://127.0.0.1:8765/callback) that browser sign-in listens on; without it, browser sign-in picks a free loopback port (RFC 8252)."),
            ConfigField("leeway", .integer,
                        description: "Clock skew in seconds tolerated when checking ID token times.", defaultValue: 60),
            ConfigField("additionalParameters", .stringMap,
                        description: "Extra parameters for the authorization request (e.g. prompt, audience, resource)."),
            ConfigField("deviceAuthorizationEndpoint", .url,
                        description: "Device authorization endpoint (RFC 8628) for device sign-in, when the discovery document names none (the discovered one wins)."),
            ConfigField("tokenEndpointAuthMethod", .string,
                        description: "How the client authenticates at the token, pushed-authorization, revocation and device endpoints: none, client_secret_basic (the default with a clientSecret), client_secret_post, or private_key_jwt (RFC 7523: a JWT signed with clientAssertionKey, aud per clientAssertionAudience, valid 60 s)."),
            ConfigField("clientAssertionKey", .string, secret: true,
                        description: "PEM private key (P-256 or RSA of 2048+ bits) that signs private_key_jwt assertions; give it through a variable (\"${OIDC_CLIENT_KEY}\")."),
            ConfigField("clientAssertionKeyID", .string,
                        description: "The kid of clientAssertionKey in the client's registered JWKS, sent in each assertion's header."),
            ConfigField("clientAssertionAudience", .oneOf(ClientAssertionAudience.allCases.map(\.rawValue)),
                        description: "The aud of private_key_jwt assertions: issuer (RFC 9126, FAPI 2.0; Auth0, Okta, Keycloak) or endpoint (the URL of the endpoint each assertion is sent to, as RFC 7523 and OpenID Connect Core describe; servers such as idpyoidc accept only that).",
                        defaultValue: "issuer"),
            ConfigField("pushedAuthorizationRequests", .boolean,
                        description: "Push browser sign-in's authorization request to the pushed_authorization_request_endpoint first (RFC 9126); the browser then gets only client_id and request_uri. Done anyway when discovery says require_pushed_authorization_requests.",
                        defaultValue: false),
            ConfigField("dpop", .boolean,
                        description: "Bind the tokens to a key of the session (DPoP, RFC 9449): every token request carries a proof, authorization requests dpop_jkt, and API calls need a proof per request (AuthHub.authorizationHeaders).",
                        defaultValue: false),
        ]
    }

    /// Checks what field declarations cannot: an https issuer (http only for loopback), `openid`
    /// among the scopes, a non-negative leeway, an absolute redirect URI.
    public func validate(_ configuration: ProviderConfiguration) -> [ConfigProblem] {
        var problems: [ConfigProblem] = []
        if let issuer = configuration.string("issuer"), !ConfigValueFormat.isSecureOrLoopback(issuer) {
            problems.append(ConfigProblem(path: "issuer", message: "must use https (plain http is allowed only for a loopback host such as the local emulator)"))
        }
        if let scopes = configuration.strings("scopes"), !scopes.contains("openid") {
            problems.append(ConfigProblem(path: "scopes", message: "must include \"openid\""))
        }
        if let leeway = configuration.int("leeway"), leeway < 0 {
            problems.append(ConfigProblem(path: "leeway", message: "must not be negative"))
        }
        if let endpoint = configuration.string("deviceAuthorizationEndpoint"), !ConfigValueFormat.isSecureOrLoopback(endpoint) {
            problems.append(ConfigProblem(path: "deviceAuthorizationEndpoint", message: "must use https (plain http is allowed only for a loopback host)"))
        }
        if let redirect = configuration.string("redirectURI"), !ConfigValueFormat.isAbsoluteURI(redirect) {
            problems.append(ConfigProblem(path: "redirectURI", message: "must be an absolute URI with a scheme"))
        }
        switch configuration.string("tokenEndpointAuthMethod") {
        case nil, "none": break
        case "client_secret_basic", "client_secret_post":
            if configuration.string("clientSecret") == nil {
                problems.append(ConfigProblem(path: "clientSecret", message: "is required by tokenEndpointAuthMethod \(configuration.string("tokenEndpointAuthMethod") ?? "")"))
            }
        case "private_key_jwt":
            if configuration.string("clientAssertionKey") == nil {
                problems.append(ConfigProblem(path: "clientAssertionKey", message: "is required by tokenEndpointAuthMethod private_key_jwt"))
            }
        case let other?:
            problems.append(ConfigProblem(path: "tokenEndpointAuthMethod",
                                          message: "must be one of \(OIDCClientAuthentication.methodNames.joined(separator: ", ")), not \(other)"))
        }
        return problems
    }

    /// Builds an ``OIDCProvider`` from a validated entry.
    public func makeProvider(_ configuration: ProviderConfiguration, context: ProviderContext) throws -> any AuthProvider {
        OIDCProvider(id: configuration.id, configuration: try OIDCConfiguration(configuration), context: context)
    }
}
