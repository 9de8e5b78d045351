import AuthHub
import AuthHubWebCore
import Foundation

/// What an adapter under ``WebAdapterConformance`` serves: the hub, its web integration and three
/// bearer authenticators, to wire into an app with the routes below. The suite talks HTTP to it.
///
/// Routes (`guarded`: the adapter's guard, answering 401 without an identity):
///
/// | route | middleware, outermost first | answers |
/// |---|---|---|
/// | everything | the adapter's security-headers middleware, then its session middleware | |
/// | `GET/POST <routePrefix>/login, /callback, /logout, /second-factor`, `POST <routePrefix>/backchannel-logout` | — | the adapter's sign-in routes |
/// | `GET/POST <accountPath>`, `GET <accountPath>/enroll, /confirm` | — | the adapter's account pages |
/// | `GET /page` | — | 200 `hello` |
/// | `GET /framed` | — | 200 with its own `X-Frame-Options: SAMEORIGIN` |
/// | `GET /me` | guarded | 200: the identity's email (else subject) |
/// | `GET /csrf` | guarded | 200: the identity's ``AuthHubIdentity/csrfToken`` |
/// | `POST /refresh` | guarded | ``refresh(identity:isValidStateChange:)``'s answer |
/// | `GET /fail?code=C` | — | the adapter's error for ``failure(code:)`` (Hummingbird: `throw web.httpError(e)`) |
/// | `GET /api/me` | ``bearer``, guarded | 200: `<provider> <subject>` |
/// | `GET /api/admin` | ``scopedBearer``, guarded | 200 `admin` |
/// | `GET /mixed/me` | ``bearerOrSession``, guarded | 200: email (else subject) |
/// | `POST /mixed/transfer` | ``bearerOrSession``, guarded | 200 `done` |
public struct WebConformanceApp: Sendable {
    public let hub: AuthHub
    public let web: AuthHubWeb
    /// Bearer tokens for the environment's API audience; session cookies not accepted.
    public let bearer: BearerTokenAuthenticator
    /// As ``bearer``, and every token must grant the scope ``WebConformanceApp/adminScope``, which the
    /// environment's tokens lack.
    public let scopedBearer: BearerTokenAuthenticator
    /// As ``bearer``, also accepting the browser session (state changes need the CSRF token).
    public let bearerOrSession: BearerTokenAuthenticator

    /// The scope ``scopedBearer`` requires.
    public static let adminScope = "conformance:admin"

    /// What `POST /refresh` does with the request's identity: renews the session now and answers a
    /// redirect (303 to `/me`), or refuses a request that is not a valid state change (403), or
    /// throws the hub's error — which the route throws as the adapter's error
    /// (`web.httpError(error)`, `req.authHubError(error)`).
    /// - Parameter isValidStateChange: the adapter's `web.isValidStateChange(request, sessionCookie:)`
    ///   for the session cookie's value.
    public func refresh(identity: AuthHubIdentity, isValidStateChange: (String) async throws -> Bool) async throws -> WebResponse {
        guard case .session(let value) = identity.source, try await isValidStateChange(value),
              let account = web.account(ofSessionCookie: value) else {
            return .page(.forbidden, "The form expired. Please try again.")
        }
        _ = try await hub.refresh(provider: identity.provider, account: account)
        return .redirect("/me", status: .seeOther)
    }

    /// The error `GET /fail?code=C` throws: ``AuthError`` with code `C` (and, for a transient code,
    /// `retryAfter` 7 seconds).
    public func failure(code: String?) -> AuthError {
        let code = AuthErrorCode(rawValue: code ?? "unknown")
        return AuthError(code, retryAfter: code.isTransientByDefault ? .seconds(7) : nil)
    }

    /// The body of `GET /me` and `GET /mixed/me`.
    public static func name(of identity: AuthHubIdentity) -> String { identity.email ?? identity.subject ?? "" }
}

/// An app an adapter serves for the suite, on a loopback port.
public struct RunningWebApp: Sendable {
    /// `http://127.0.0.1:PORT`.
    public var baseURL: URL
    /// Stops the app.
    public var stop: @Sendable () async -> Void

    public init(baseURL: URL, stop: @escaping @Sendable () async -> Void) {
        self.baseURL = baseURL
        self.stop = stop
    }
}

/// The identity provider the suite signs in with, and how to play its part — built by the caller
/// (for example over AuthHub's emulator, whose Auth0 tenant is a redirect provider): a fresh one for
/// every check, since checks stop the provider and move the clock.
public struct WebConformanceEnvironment: Sendable {
    /// A hub whose provider ``providerID`` signs in through a browser redirect and renews sessions,
    /// with a memory (or any) store, and ``clock`` as its clock.
    public var hub: AuthHub
    public var clock: FakeClock
    public var providerID: String
    /// The email of the user ``approve`` signs in as.
    public var userEmail: String
    /// The audience of ``accessToken``'s tokens (the bearer authenticators are built for it).
    public var apiAudience: String
    /// The provider's side of the browser: given the authorize URL the login route redirected to,
    /// signs the user in and returns the URL the provider redirects back to (the callback with
    /// `code` and `state`).
    public var approve: @Sendable (URL) async throws -> URL
    /// Revokes a refresh token at the provider (as a sign-out elsewhere would).
    public var revokeRefreshToken: @Sendable (Secret<String>) async throws -> Void
    /// Makes the provider unreachable.
    public var stopProvider: @Sendable () async -> Void
    /// A valid access token for ``apiAudience`` for the user.
    public var accessToken: @Sendable () async throws -> Secret<String>
    /// Ends the environment (after the check, also when it failed).
    public var tearDown: @Sendable () async -> Void
    /// A valid DPoP-bound access token for ``apiAudience`` (`cnf.jkt`, RFC 9449) and the key it is
    /// bound to; nil when the provider cannot bind tokens (the DPoP check then fails: say so).
    public var dpopAccessToken: (@Sendable () async throws -> (token: Secret<String>, key: DPoPKey))?
    /// Registers the app's back-channel logout URL (and its callback URL) with the provider's client
    /// (OpenID Connect Back-Channel Logout); nil when the provider sends no logout tokens.
    public var registerBackChannelLogout: (@Sendable (_ logoutURL: URL, _ callbackURL: URL) async throws -> Void)?
    /// Ends the user's session at the provider (the session ``approve`` signed in last), as the user
    /// signing out there would: the provider then sends its logout tokens.
    public var endProviderSession: (@Sendable () async throws -> Void)?

    public init(hub: AuthHub, clock: FakeClock, providerID: String, userEmail: String, apiAudience: String,
                approve: @escaping @Sendable (URL) async throws -> URL,
                revokeRefreshToken: @escaping @Sendable (Secret<String>) async throws -> Void,
                stopProvider: @escaping @Sendable () async -> Void,
                accessToken: @escaping @Sendable () async throws -> Secret<String>,
                tearDown: @escaping @Sendable () async -> Void,
                dpopAccessToken: (@Sendable () async throws -> (token: Secret<String>, key: DPoPKey))? = nil,
                registerBackChannelLogout: (@Sendable (_ logoutURL: URL, _ callbackURL: URL) async throws -> Void)? = nil,
                endProviderSession: (@Sendable () async throws -> Void)? = nil) {
        self.dpopAccessToken = dpopAccessToken
        self.registerBackChannelLogout = registerBackChannelLogout
        self.endProviderSession = endProviderSession
        self.hub = hub
        self.clock = clock
        self.providerID = providerID
        self.userEmail = userEmail
        self.apiAudience = apiAudience
        self.approve = approve
        self.revokeRefreshToken = revokeRefreshToken
        self.stopProvider = stopProvider
        self.accessToken = accessToken
        self.tearDown = tearDown
    }
}
