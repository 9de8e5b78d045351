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
    public var provider: String { storage.provider }
    /// The user's subject (`sub`), when the provider gave one.
    public var subject: String? { storage.subject }
    /// The ID token's or access token's claims.
    public var claims: [String: JSONValue] { storage.claims }
    /// How the request was authenticated.
    public var source: Source { storage.source }
    /// A valid access token for calling the provider's APIs on the user's behalf.
    public var accessToken: Secret<String> { storage.accessToken }
    /// When ``accessToken`` expires.
    public var expiresAt: Date? { storage.expiresAt }
    /// The value an HTML form posting to the sign-out route must send as its `csrf` field (session
    /// identities only).
    public var csrfToken: String? { storage.csrfToken }

    /// The `email` claim, when there is one.
    public var email: String? { claims["email"]?.stringValue }

    /// When the user last gave the provider their credentials: the ID token's `auth_time`, when the
    /// provider sent one, else the time the web core checked the user's password itself (its
    /// sign-in form; what a step-up checks: ``AuthHubWeb/requireRecentAuthentication(_:maxAge:returnTo:afterForm:)``).
    public var authenticatedAt: Date? {
        if let seconds = claims["auth_time"]?.doubleValue, let date = Self.date(seconds) { return date }
        return storage.authenticatedAt
    }

    /// A date of seconds since 1970 when they are a plausible one (0 to the year 9999).
    static func date(_ seconds: Double?) -> Date? {
        guard let seconds, seconds.isFinite, (0...253_402_300_799).contains(seconds) else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }

    /// The fields, in one immutable object: an identity is one reference, so handing it on (the
    /// web core's resolution, Vapor's `req.auth` storage, which boxes larger values) and reusing
    /// it for the next requests of the same session costs a retain, not a copy of every field.
    private let storage: Storage

    private final class Storage: Sendable {
        let provider: String
        let subject: String?
        let claims: [String: JSONValue]
        let source: Source
        let accessToken: Secret<String>
        let expiresAt: Date?
        let csrfToken: String?
        let authenticatedAt: Date?

        init(provider: String, subject: String?, claims: [String: JSONValue], source: Source, accessToken: Secret<String>,
             expiresAt: Date?, csrfToken: String?, authenticatedAt: Date?) {
            self.provider = provider
            self.subject = subject
            self.claims = claims
            self.source = source
            self.accessToken = accessToken
            self.expiresAt = expiresAt
            self.csrfToken = csrfToken
            self.authenticatedAt = authenticatedAt
        }
    }

    /// - Parameter authenticatedAt: when the user gave their credentials, for a provider whose
    ///   claims carry no `auth_time` (``authenticatedAt``).
    public init(provider: String, subject: String?, claims: [String: JSONValue], source: Source, accessToken: Secret<String>,
                expiresAt: Date?, csrfToken: String?, authenticatedAt: Date? = nil) {
        storage = Storage(provider: provider, subject: subject, claims: claims, source: source, accessToken: accessToken,
                          expiresAt: expiresAt, csrfToken: csrfToken, authenticatedAt: authenticatedAt)
    }
}
