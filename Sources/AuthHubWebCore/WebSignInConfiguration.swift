import AuthHub
import Foundation

/// How the browser sign-in routes and the session cookie behave.
public struct WebSignInConfiguration: Sendable {
    /// The application's public origin and base (`https://app.example.com`): the redirect URI is
    /// `<publicBaseURL><routePrefix>/callback`, and sign-out requests must come from this origin.
    public var publicBaseURL: URL
    /// Where the routes live (`/auth`: `/auth/login`, `/auth/callback`, `/auth/logout`).
    public var routePrefix: String
    /// Where the browser goes after signing in when the login link named no (valid) return path.
    public var defaultReturnPath: String
    /// Where the browser goes after signing out.
    public var signedOutPath: String
    /// A session unused this long is over (checked per replica, and by the cookie's `Max-Age`,
    /// renewed on every authenticated response).
    public var idleTimeout: Duration
    /// A session older than this is over, however active: the user signs in again.
    public var absoluteTimeout: Duration
    /// How long a started sign-in may take before its callback is refused.
    public var preSessionLifetime: Duration
    /// The key that signs sign-out (CSRF) tokens. Replicas behind one load balancer must share it;
    /// nil: a random key per process (fine for one replica; tokens die with a restart).
    public var csrfKey: Secret<String>?
    /// The headers the sign-in, callback and sign-out routes send (``SecurityHeaders``: no framing, no
    /// sniffing, no `Referer` carrying the callback's code); change a field to send another value,
    /// nil to send none.
    public var securityHeaders: SecurityHeaders = .standard
    /// The templates, strings and stylesheet of AuthHub's own pages (the second step of a sign-in,
    /// the account pages).
    public var pages = WebPages()
    /// Whether a browser session keeps the client's address at sign-in (``WebRequest/peerAddress``),
    /// shown in "where you're signed in" (``WebSessionSummary/address``). Off by default: an address
    /// is personal data; turn it on only where your users are told.
    public var recordsClientAddress = false
    /// Where the account pages live (`/account`: the overview; `/account/enroll`, `/account/confirm`).
    public var accountPath = "/account"
    /// How recent a sign-in must be for a sensitive account action (adding or removing a method,
    /// signing other sessions out); an older one is sent through the provider again first.
    public var accountStepUpMaxAge: Duration = .seconds(600)
    /// Where the `jti`s of accepted back-channel logout tokens are kept (``AuthHubWeb/backChannelLogout(_:)``):
    /// nil keeps them in this process (100,000 at most, on the hub's clock); give every replica one
    /// shared cache so a token cannot be replayed at another replica.
    public var logoutTokenReplayCache: (any ReplayCache)?

    /// Plain-HTTP development on a loopback address: cookies without `Secure` and without the
    /// `__Host-` prefix (browsers refuse both over `http://`). Derived from ``publicBaseURL``: true
    /// only for `http://127.0.0.1`, `http://localhost` and `http://[::1]`; any other `http://` base
    /// is refused when the routes are built.
    public var isDevelopment: Bool {
        publicBaseURL.scheme == "http" && ["127.0.0.1", "localhost", "::1", "[::1]"].contains(publicBaseURL.host ?? "")
    }

    /// The session cookie's name: `__Host-authhub-session` over HTTPS (Secure, Path=/, no Domain:
    /// pinned to this host), `authhub-session` in development.
    public var sessionCookieName: String { isDevelopment ? "authhub-session" : "__Host-authhub-session" }
    /// The short-lived cookie that binds a started sign-in to the browser that started it.
    public var preSessionCookieName: String { isDevelopment ? "authhub-signin" : "__Host-authhub-signin" }
    /// The cookie of a sign-in waiting for its AuthHub-held second step (opaque, five minutes).
    public var secondStepCookieName: String { isDevelopment ? "authhub-2fa" : "__Host-authhub-2fa" }
    /// The page of the second step (`<prefix>/second-factor`).
    public var secondFactorPath: String { routePrefix + "/second-factor" }

    /// The redirect URI the provider sends the browser back to.
    public var callbackURL: String { origin + routePrefix + "/callback" }

    /// `scheme://host[:port]` of ``publicBaseURL``.
    public var origin: String {
        var origin = "\(publicBaseURL.scheme ?? "https")://\(publicBaseURL.host ?? "")"
        if let port = publicBaseURL.port { origin += ":\(port)" }
        return origin
    }

    public init(publicBaseURL: URL, routePrefix: String = "/auth", defaultReturnPath: String = "/", signedOutPath: String = "/",
                idleTimeout: Duration = .seconds(30 * 60), absoluteTimeout: Duration = .seconds(24 * 3600),
                preSessionLifetime: Duration = .seconds(600), csrfKey: Secret<String>? = nil) {
        self.publicBaseURL = publicBaseURL
        self.routePrefix = routePrefix
        self.defaultReturnPath = defaultReturnPath
        self.signedOutPath = signedOutPath
        self.idleTimeout = idleTimeout
        self.absoluteTimeout = absoluteTimeout
        self.preSessionLifetime = preSessionLifetime
        self.csrfKey = csrfKey
    }

    /// Checks the settings.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` for a base URL that is not HTTPS (outside
    ///   loopback development), a prefix that is not a path, or timeouts out of range.
    func validate() throws {
        guard publicBaseURL.host?.isEmpty == false, publicBaseURL.scheme == "https" || isDevelopment else {
            throw AuthError(.invalidConfiguration, message: "publicBaseURL must be https:// (or http:// on a loopback address for development).")
        }
        guard routePrefix.hasPrefix("/"), !routePrefix.hasSuffix("/"), !routePrefix.contains("//") else {
            throw AuthError(.invalidConfiguration, message: "routePrefix must be a path like /auth.")
        }
        for (name, value) in [("idleTimeout", idleTimeout), ("absoluteTimeout", absoluteTimeout), ("preSessionLifetime", preSessionLifetime)] {
            guard value > .zero, value <= .seconds(365 * 86_400) else {
                throw AuthError(.invalidConfiguration, message: "\(name) must be between 1 second and a year.")
            }
        }
        guard ReturnPath.validated(defaultReturnPath) != nil, ReturnPath.validated(signedOutPath) != nil else {
            throw AuthError(.invalidConfiguration, message: "defaultReturnPath and signedOutPath must be local paths.")
        }
    }
}
