import Foundation

/// A client as the tenant knows it; unknown clients get the default policy (see
/// ``Auth0Tenant/redirectAllowed(_:for:)``).
struct Auth0ClientSettings: Sendable {
    var clientId: String
    /// Allowed callback URLs, compared exactly.
    var callbacks: [String]
    /// Whether refresh tokens rotate on use (default true).
    var rotateRefreshTokens: Bool
    /// Auth0's reuse interval (Management API `refresh_token.leeway`, seconds, default 0): for this long
    /// after a rotating refresh token was exchanged, it may be exchanged again — for a new token of the
    /// same family, without breach detection — as long as it is still the previous token (no token
    /// issued from it has been exchanged). It covers a reply lost between the server and the client.
    var refreshTokenLeeway: TimeInterval = 0
    /// The API scopes (of ``Auth0API/allScopes``) the client may be granted; nil: all of them.
    var apiScopes: [String]? = nil
    /// The grant types the application has enabled (Auth0's `grant_types`, e.g.
    /// `authorization_code`, `refresh_token`, `urn:ietf:params:oauth:grant-type:device_code`); nil:
    /// every grant the emulator knows.
    var grantTypes: [String]? = nil
    /// Auth0's `oidc_logout.backchannel_logout_urls`: where the tenant POSTs a logout token for this
    /// client when a browser session in which it received tokens ends (OpenID Connect Back-Channel
    /// Logout 1.0). The emulator takes only `http`/`https` URLs on a loopback host (see
    /// ``Auth0BackchannelLogoutDelivery/isAcceptable(_:)``); empty: no back-channel logout.
    var backchannelLogoutURLs: [String] = []
    /// Auth0's `token_endpoint_auth_method`; `none` (the default) is a public client, which
    /// authenticates with nothing but its `client_id`, as every client did before confidential
    /// clients were emulated.
    var authMethod: Auth0TokenEndpointAuthMethod = .none
    /// The SHA-256 digest of the client secret (`client_secret_post`/`client_secret_basic`); the
    /// secret itself is not kept.
    var secretDigest: [UInt8]? = nil
    /// The public keys of `private_key_jwt`.
    var credentials: [Auth0ClientCredential] = []
    /// Auth0's `require_pushed_authorization_requests`: `/authorize` accepts only a `request_uri`
    /// of `/oauth/par`.
    var requirePushedAuthorizationRequests = false

    /// Whether the client must authenticate (any method but `none`).
    var isConfidential: Bool { authMethod != .none }

    /// Whether the application may use `grantType` at the token endpoint (or, for the device
    /// code grant, ask for a device code).
    func allows(grantType: String) -> Bool { grantTypes?.contains(grantType) ?? true }

    /// Auth0's answer to a grant the application has not enabled: `403 unauthorized_client`.
    static func grantNotAllowed(_ grantType: String) -> Auth0Failure {
        .oauth("unauthorized_client", "Grant type '\(grantType)' not allowed for the client.", status: .forbidden)
    }
}
