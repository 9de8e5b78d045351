import AuthHub
import Foundation

/// The settings of an `oidc` entry of providers.json, parsed (see ``OIDCPlugin`` for the fields).
public struct OIDCConfiguration: Sendable {
    /// The issuer identifier (discovery base and expected `iss`).
    public var issuer: URL
    /// The client ID registered with the provider.
    public var clientId: String
    /// Present for confidential clients only.
    public var clientSecret: Secret<String>?
    /// The scopes requested at sign-in (including `openid`).
    public var scopes: [String]
    /// nil means a loopback URL chosen at sign-in.
    public var redirectURI: URL?
    /// Clock skew tolerated when validating ID tokens, in seconds.
    public var leeway: Int
    /// Extra authorization request parameters.
    public var additionalParameters: [String: String]
    /// The device authorization endpoint (RFC 8628) of a provider whose discovery document names
    /// none; the discovered one wins.
    public var deviceAuthorizationEndpoint: URL?
    /// Whether tokens are bound to a key of the session (DPoP, RFC 9449).
    public var dpop: Bool
    /// How the client authenticates (`tokenEndpointAuthMethod`); nil: `client_secret_basic` with
    /// ``clientSecret`` when there is one, else none.
    public var clientAuthentication: OIDCClientAuthentication?
    /// Whether browser sign-in pushes its authorization request first (RFC 9126); also done when
    /// discovery says `require_pushed_authorization_requests`.
    public var pushedAuthorizationRequests: Bool
    /// The `aud` of `private_key_jwt` assertions (`clientAssertionAudience`): the issuer by default.
    public var clientAssertionAudience: ClientAssertionAudience

    /// Creates a configuration from values.
    public init(issuer: URL, clientId: String, clientSecret: Secret<String>? = nil, scopes: [String] = OIDCPlugin.defaultScopes,
                redirectURI: URL? = nil, leeway: Int = 60, additionalParameters: [String: String] = [:],
                deviceAuthorizationEndpoint: URL? = nil, dpop: Bool = false, clientAuthentication: OIDCClientAuthentication? = nil,
                pushedAuthorizationRequests: Bool = false, clientAssertionAudience: ClientAssertionAudience = .issuer) {
        self.dpop = dpop
        self.clientAssertionAudience = clientAssertionAudience
        self.clientAuthentication = clientAuthentication
        self.pushedAuthorizationRequests = pushedAuthorizationRequests
        self.deviceAuthorizationEndpoint = deviceAuthorizationEndpoint
        self.issuer = issuer
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.scopes = scopes
        self.redirectURI = redirectURI
        self.leeway = leeway
        self.additionalParameters = additionalParameters
    }

    /// Parses a validated providers.json entry.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` naming the missing or invalid field.
    public init(_ configuration: ProviderConfiguration) throws {
        let parameters = configuration.values["additionalParameters"]?.objectValue?.compactMapValues(\.stringValue) ?? [:]
        let secret = configuration.secret("clientSecret")
        let authentication = try OIDCClientAuthentication.configured(in: configuration)
        self.init(issuer: try configuration.requiredHTTPURL("issuer"),
                  clientId: try configuration.requiredString("clientId"),
                  clientSecret: secret,
                  scopes: configuration.strings("scopes") ?? OIDCPlugin.defaultScopes,
                  redirectURI: try configuration.absoluteURI("redirectURI"),
                  leeway: configuration.int("leeway") ?? 60,
                  additionalParameters: parameters,
                  deviceAuthorizationEndpoint: try configuration.httpURL("deviceAuthorizationEndpoint"),
                  dpop: configuration.bool("dpop") ?? false,
                  clientAuthentication: authentication,
                  pushedAuthorizationRequests: configuration.bool("pushedAuthorizationRequests") ?? false,
                  clientAssertionAudience: configuration.string("clientAssertionAudience").flatMap(ClientAssertionAudience.init(rawValue:)) ?? .issuer)
    }
}
