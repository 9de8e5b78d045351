import AuthHub
import AuthHubOIDC
import Foundation

/// The settings of an `auth0` entry of providers.json, parsed (see ``Auth0Plugin`` for the fields).
public struct Auth0Configuration: Sendable, Hashable {
    /// The `domain` as written.
    public var domain: String
    /// The base every Authentication API path is resolved against: `https://` added to a bare
    /// domain, always ending in `/` (e.g. `https://tenant.eu.auth0.com/`).
    public var baseURL: URL
    /// The Auth0 application's client ID (sent as `client_id`).
    public var clientId: String
    /// The API identifier access tokens are requested for, if any.
    public var audience: String?
    /// Space-separated scopes; `openid` is added when sending if missing.
    public var scope: String
    /// Clock skew tolerated when validating ID tokens, in seconds.
    public var leeway: Int
    /// The organization (ID or name) to sign in to, if any.
    public var organization: String?
    /// The database connection (realm); nil means the tenant's default directory.
    public var connection: String?
    /// The Web Auth callback; nil means a loopback URL chosen at sign-in.
    public var redirectURI: URL?
    /// Whether tokens are bound to a key of the session (DPoP, RFC 9449).
    public var dpop: Bool
    /// How a confidential application (a regular web application) authenticates at `/oauth/token`,
    /// `/oauth/par`, `/oauth/revoke` and `/oauth/device/code`; nil: a public client (PKCE alone).
    /// `private_key_jwt` assertions go to the tenant (`aud` = the tenant's base URL with its
    /// trailing slash) signed RS256, one of the algorithms Auth0 takes (RS256, RS384, PS256).
    public var clientAuthentication: OIDCClientAuthentication?
    /// Whether Web Auth pushes its authorization request to `/oauth/par` first (RFC 9126), so the
    /// browser gets only `client_id` and `request_uri`.
    public var pushedAuthorizationRequests: Bool

    /// Creates a configuration from values.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` when `domain` is neither a domain nor an http(s) URL.
    public init(domain: String, clientId: String, audience: String? = nil, scope: String = Auth0Plugin.defaultScope,
                leeway: Int = 60, organization: String? = nil, connection: String? = nil, redirectURI: URL? = nil,
                dpop: Bool = false, clientAuthentication: OIDCClientAuthentication? = nil,
                pushedAuthorizationRequests: Bool = false) throws {
        guard let base = Self.baseURL(forDomain: domain) else {
            throw AuthError(.invalidConfiguration, message: "The auth0 domain must be a domain or an http(s) URL.")
        }
        self.domain = domain
        self.baseURL = base
        self.clientId = clientId
        self.audience = audience
        self.scope = scope
        self.leeway = leeway
        self.organization = organization
        self.connection = connection
        self.redirectURI = redirectURI
        self.dpop = dpop
        self.clientAuthentication = clientAuthentication
        self.pushedAuthorizationRequests = pushedAuthorizationRequests
    }

    /// Parses a validated providers.json entry.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` naming the missing or invalid field.
    public init(_ configuration: ProviderConfiguration) throws {
        do {
            try self.init(domain: try configuration.requiredString("domain"),
                          clientId: try configuration.requiredString("clientId"),
                          audience: configuration.string("audience"),
                          scope: configuration.string("scope") ?? Auth0Plugin.defaultScope,
                          leeway: configuration.int("leeway") ?? 60,
                          organization: configuration.string("organization"),
                          connection: configuration.string("connection"),
                          redirectURI: try configuration.absoluteURI("redirectURI"),
                          dpop: configuration.bool("dpop") ?? false,
                          clientAuthentication: try OIDCClientAuthentication.configured(in: configuration, keyAlgorithms: ["RS256"]),
                          pushedAuthorizationRequests: configuration.bool("pushedAuthorizationRequests") ?? false)
        } catch let error as AuthError {
            throw error.attributed(to: configuration.id)
        }
    }

    /// `https://` added unless the domain already has an http(s) scheme, and a trailing `/`.
    static func baseURL(forDomain domain: String) -> URL? {
        guard ConfigValueFormat.isDomainOrURL(domain) else { return nil }
        var text = domain.contains("://") ? domain : "https://" + domain
        if !text.hasSuffix("/") { text += "/" }
        return URL(string: text)
    }
}
