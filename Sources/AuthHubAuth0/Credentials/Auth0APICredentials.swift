import AuthHub
import Foundation

/// Credentials for one API audience (<doc:Auth0Endpoints>: “Other operations” and “Models” "APICredentials").
public struct Auth0APICredentials: Sendable, Hashable, CustomStringConvertible {
    /// The access token for the audience.
    public var accessToken: Secret<String>
    /// `Bearer` or `DPoP`.
    public var tokenType: String
    /// When the access token expires.
    public var expiresAt: Date
    /// The granted scope (`""` when the reply had none).
    public var scope: String
    /// The DPoP key the access token is bound to (`tokenType` `DPoP`): each request with it needs a
    /// proof of this key; nil for a bearer token.
    public var dpopKey: DPoPKey?

    /// Creates API credentials.
    public init(accessToken: Secret<String>, tokenType: String, expiresAt: Date, scope: String, dpopKey: DPoPKey? = nil) {
        self.dpopKey = dpopKey
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresAt = expiresAt
        self.scope = scope
    }

    public var description: String { "Auth0APICredentials(tokenType: \(tokenType), expiresAt: \(expiresAt), scope: \(scope))" }
}

/// A session transfer token for web single sign-on (<doc:Auth0Endpoints>: “Session transfer” and “Models” "SSOCredentials").
public struct Auth0SSOCredentials: Sendable, Hashable, CustomStringConvertible {
    /// The session transfer token (`access_token` of the reply): open the website with
    /// `?session_transfer_token=<token>` or set the `auth0_session_transfer_token` cookie.
    public var sessionTransferToken: Secret<String>
    /// `urn:auth0:params:oauth:token-type:session_transfer_token`.
    public var issuedTokenType: String
    /// When the token expires.
    public var expiresAt: Date
    /// The ID token of the reply.
    public var idToken: Secret<String>
    /// The rotated refresh token, when Auth0 rotated it.
    public var refreshToken: Secret<String>?

    public var description: String { "Auth0SSOCredentials(issuedTokenType: \(issuedTokenType), expiresAt: \(expiresAt))" }
}
