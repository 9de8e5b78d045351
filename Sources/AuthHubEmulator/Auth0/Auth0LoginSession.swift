import Foundation

/// The tenant's browser session (Auth0's SSO session behind its `auth0` cookie), kept server-side
/// under the SHA-256 digest of the opaque cookie value (``Auth0Tenant/digest(_:)``), like every
/// other token of the emulator.
///
/// A session is created when the login page (`POST /auth0/u/login`), the sign-up page
/// (`POST /auth0/u/signup`) or the `X-AuthHub-Emulator-User` login hook succeeds, and ends with
/// `GET /auth0/v2/logout` or when it expires. Lifetimes follow Auth0's tenant defaults: 3 days of
/// inactivity (``Auth0LoginSession/idleLifetime``) and 30 days in all
/// (``Auth0LoginSession/absoluteLifetime``).
struct Auth0LoginSession: Sendable {
    /// The session's id, the `sid` claim of every ID token issued through it and of the logout
    /// tokens sent when it ends (OpenID Connect Back-Channel Logout 1.0, section 2.4; Auth0 puts
    /// `sid` in its ID tokens). A random 16-byte value, base64url (22 characters), unrelated to the
    /// cookie value, so a token's `sid` never reveals the cookie.
    var sessionId: String
    /// The user the session belongs to.
    var userId: String
    /// When the user last gave credentials; `auth_time` of every ID token issued through the
    /// session. A re-login (`prompt=login`, an exceeded `max_age`) starts a new session.
    var authTime: Date
    /// When the session was last used by `/authorize`.
    var lastUsed: Date
    /// The organizations (ids) the session was used for.
    var organizations: Set<String> = []
    /// The clients that received tokens issued within the session (an authorization code of the
    /// session exchanged at `/oauth/token`): the relying parties to notify by back-channel logout
    /// when the session ends (OpenID Connect Back-Channel Logout 1.0, section 2.3).
    var clients: Set<String> = []

    /// Auth0's default inactivity timeout (72 hours).
    static let idleLifetime: TimeInterval = 3 * 86_400
    /// Auth0's default absolute session lifetime (720 hours).
    static let absoluteLifetime: TimeInterval = 30 * 86_400
    /// The cookie's name, Auth0's `auth0`.
    static let cookieName = "auth0"
    /// The longest cookie value read; the emulator's values are 43 characters.
    static let maximumCookieLength = 128

    /// Whether the session may still be used at `now`.
    func isAlive(at now: Date) -> Bool {
        now.timeIntervalSince(authTime) < Self.absoluteLifetime && now.timeIntervalSince(lastUsed) < Self.idleLifetime
    }

    /// The value of the `auth0` cookie in a `Cookie` header, when it looks like one of the
    /// emulator's (base64url, at most ``maximumCookieLength`` characters); nil otherwise.
    static func cookieValue(in header: String?) -> String? {
        guard let header, header.utf8.count <= 8_192 else { return nil }
        for pair in header.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == cookieName else { continue }
            let value = parts[1].trimmingCharacters(in: .whitespaces)
            guard !value.isEmpty, value.count <= maximumCookieLength,
                  value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
            else { return nil }
            return value
        }
        return nil
    }

    /// The `Set-Cookie` value that stores `value` for the tenant: `HttpOnly`, `Path=/auth0` and
    /// `Max-Age` of the absolute lifetime; over HTTPS also `Secure; SameSite=None` as Auth0 sends
    /// it (a browser refuses `SameSite=None` without `Secure`, so plain-HTTP loopback gets neither).
    static func setCookie(_ value: String, secure: Bool) -> String {
        var cookie = "\(cookieName)=\(value); Path=\(Auth0Service.prefix); Max-Age=\(Int(absoluteLifetime)); HttpOnly"
        if secure { cookie += "; Secure; SameSite=None" }
        return cookie
    }

    /// The `Set-Cookie` value that deletes the cookie.
    static func clearCookie(secure: Bool) -> String {
        var cookie = "\(cookieName)=; Path=\(Auth0Service.prefix); Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly"
        if secure { cookie += "; Secure; SameSite=None" }
        return cookie
    }
}
