import AuthHub
import Foundation

/// Who a request is from, as AuthHub's middlewares put it on the request (Hummingbird:
/// `context.identity`, hummingbird-auth's `AuthRequestContext` convention; Vapor: `req.auth`).
///
/// A session identity comes from the browser-session cookie (``AuthHubWeb/resolveSession(_:)``): the
/// tokens stay in the hub's session store, and ``accessToken`` is valid for at least a minute
/// (renewed first when needed).
public struct AuthHubIdentity: Sendable {
    /// Where the identity came from.
    public enum Source: Sendable, Equatable {
        /// A browser session: its opaque id (the cookie's, never a token).
        case session(id: String)
        /// An `Authorization: Bearer` token.
        case bearer
    }

    /// The provider id from providers.json.
    public let provider: String
    /// The user's subject (`sub`), when the provider gave one.
    public let subject: String?
    /// The ID token's or access token's claims.
    public let claims: [String: JSONValue]
    /// How the request was authenticated.
    public let source: Source
    /// A valid access token for calling the provider's APIs on the user's behalf.
    public let accessToken: Secret<String>
    /// When ``accessToken`` expires.
    public let expiresAt: Date?
    /// The value an HTML form posting to the sign-out route must send as its `csrf` field (session
    /// identities only).
    public let csrfToken: String?

    /// The `email` claim, when there is one.
    public var email: String? { claims["email"]?.stringValue }

    public init(provider: String, subject: String?, claims: [String: JSONValue], source: Source, accessToken: Secret<String>,
                expiresAt: Date?, csrfToken: String?) {
        self.provider = provider
        self.subject = subject
        self.claims = claims
        self.source = source
        self.accessToken = accessToken
        self.expiresAt = expiresAt
        self.csrfToken = csrfToken
    }
}
