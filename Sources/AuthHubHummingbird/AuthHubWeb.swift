import AuthHub
import AuthHubOIDC
import Crypto
import Foundation
import Hummingbird
import HummingbirdAuth

/// Browser sign-in for a Hummingbird app on top of an `AuthHub`: the sign-in, callback and
/// sign-out routes (``routes(context:)``) and the middleware that turns the session cookie into an
/// identity with a valid access token (``sessionMiddleware(context:)``).
///
/// - **Sign-in.** `GET <prefix>/login?provider=ID&returnTo=/path` starts a redirect sign-in
///   (`RedirectSignInProvider`: PKCE, `state`, `nonce`) and sends the browser to the
///   provider. The transaction stays on the server; the browser gets only a short-lived pre-session
///   cookie binding the sign-in to it. `returnTo` must be a local path (open redirects are refused).
/// - **Callback.** `GET <prefix>/callback` takes the pending sign-in once (a replay finds nothing),
///   refuses it after ``WebSignInConfiguration/preSessionLifetime``, checks `state`, exchanges the
///   code, validates the ID token, stores the session in the hub's store under a fresh opaque id
///   (a new id at every sign-in: no session fixation) and sets the session cookie: `HttpOnly`,
///   `SameSite=Lax` (Strict would drop the cookie on the provider's redirect back), `Secure` and the
///   `__Host-` prefix over HTTPS. The cookie never holds a token.
/// - **Sign-out.** `POST <prefix>/logout` must come from the app's own origin (`Origin`, else
///   `Referer`) and carry the identity's ``AuthHubIdentity/csrfToken`` (form field `csrf` or header
///   `X-CSRF-Token`); it revokes and removes the session and clears the cookie. With `browser=1`
///   it sends the browser on to end the provider's own browser session (Auth0's default
///   `/v2/logout?client_id=…&returnTo=…`, as Auth0.swift's `clearSession()`; OpenID RP-Initiated
///   Logout); with `federated=1` also the upstream identity provider's (`/v2/logout?federated`).
///
/// Sessions live in the hub's `SessionStore` like any other (one account per browser
/// session), so renewal is the `SessionManager`'s: single-flight, a transient provider failure
/// keeps the session, a dead refresh token ends it.
public final class AuthHubWeb: Sendable {
    public let hub: AuthHub
    public let configuration: WebSignInConfiguration
    let pending = PendingWebSignIns()
    private let csrfKey: SymmetricKey
    /// When each browser session was last seen by this replica (idle timeout).
    private let lastSeen = Mutex<[String: Date]>([:])

    /// Creates the web integration.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` for settings ``WebSignInConfiguration`` refuses.
    public init(hub: AuthHub, configuration: WebSignInConfiguration) throws {
        try configuration.validate()
        self.hub = hub
        self.configuration = configuration
        if let key = configuration.csrfKey {
            csrfKey = SymmetricKey(data: SHA256.hash(data: Data(key.revealed().utf8)))
        } else {
            csrfKey = SymmetricKey(data: hub.context.random.bytes(32))
        }
    }

    var now: Date { hub.context.clock.now }

    // MARK: - Cookies

    func sessionCookie(_ id: WebSessionID) -> Cookie {
        let remaining = configuration.absoluteTimeout.seconds - now.timeIntervalSince(id.createdAt)
        let maxAge = Int(max(0, min(configuration.idleTimeout.seconds, remaining)).rounded(.down))
        return cookie(configuration.sessionCookieName, id.value, maxAge: maxAge)
    }

    func cookie(_ name: String, _ value: String, maxAge: Int) -> Cookie {
        Cookie(name: name, value: value, maxAge: maxAge, path: "/", secure: !configuration.isDevelopment, httpOnly: true,
               sameSite: .lax)
    }

    func clearing(_ name: String) -> Cookie { cookie(name, "", maxAge: 0) }

    // MARK: - CSRF

    /// The sign-out token of a session: HMAC-SHA256 of its id under the CSRF key.
    func csrfToken(for id: WebSessionID) -> String {
        Base64URL.encode(HMAC<SHA256>.authenticationCode(for: Data(id.value.utf8), using: csrfKey))
    }

    func isValidCSRFToken(_ token: String?, for id: WebSessionID) -> Bool {
        guard let token, let given = Base64URL.decode(token) else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(given, authenticating: Data(id.value.utf8), using: csrfKey)
    }

    /// Whether a state-changing request comes from the app's own pages: its `Origin` (or, when a
    /// browser sends none, its `Referer`'s origin) is ``WebSignInConfiguration/origin``.
    func isSameOrigin(_ request: Request) -> Bool {
        if let origin = request.headers[.origin] { return origin == configuration.origin }
        guard let referer = request.headers[.referer], let url = URL(string: referer) else { return false }
        var origin = "\(url.scheme ?? "")://\(url.host ?? "")"
        if let port = url.port { origin += ":\(port)" }
        return origin == configuration.origin
    }

    /// Whether a state-changing request of a signed-in browser (a form of the app's own) may be
    /// served: it comes from the app's origin and carries the session's CSRF token (form field
    /// `csrf`, up to 4 KiB of form body, or header `X-CSRF-Token`).
    /// - Parameter value: the session cookie's value (``AuthHubIdentity/Source/session(id:)``).
    public func isValidStateChange(_ request: Request, sessionCookie value: String) async throws -> Bool {
        guard isSameOrigin(request), let id = WebSessionID(cookie: value) else { return false }
        let fields = try await Self.formFields(request)
        return isValidCSRFToken(request.headers[HTTPField.Name.constant("X-CSRF-Token")] ?? fields["csrf"], for: id)
    }

    /// The hub account a browser session is stored under, for calls such as `hub.refresh(provider:account:)`.
    public func account(ofSessionCookie value: String) -> String? { WebSessionID(cookie: value)?.account }

    /// The fields of a form body (`application/x-www-form-urlencoded`, at most 4 KiB); empty for
    /// another content type.
    static func formFields(_ request: Request) async throws -> [String: String] {
        guard request.headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true else { return [:] }
        var request = request
        let body = try await request.collectBody(upTo: 4096)
        return Dictionary(FormEncoding.decode(String(buffer: body)), uniquingKeysWith: { _, last in last })
    }

    // MARK: - Sessions

    /// The session a cookie names, with its identity, renewed when needed.
    enum Resolution {
        case none
        case signedIn(WebSessionID, AuthHubIdentity)
        /// The cookie names no usable session: clear it.
        case over
    }

    func resolve(cookie value: String?) async throws -> Resolution {
        guard let value else { return .none }
        guard let id = WebSessionID(cookie: value), hub.providerIDs.contains(id.provider) else { return .over }
        let age = now.timeIntervalSince(id.createdAt)
        guard age >= -60, age <= configuration.absoluteTimeout.seconds else { return await end(id) }
        let idle = lastSeen.withLock { $0[id.account] }.map { now.timeIntervalSince($0) > configuration.idleTimeout.seconds } ?? false
        guard !idle else { return await end(id) }
        let session: Session
        do {
            session = try await hub.session(provider: id.provider, account: id.account, minTTL: 60)
        } catch let error as AuthError where [.noSession, .refreshTokenInvalid, .sessionExpired].contains(error.code) {
            forget(id)
            return .over
        }
        touch(id)
        let identity = AuthHubIdentity(provider: id.provider, subject: session.userID ?? session.claims["sub"]?.stringValue,
                                       claims: session.claims, source: .session(id: id.value), accessToken: session.accessToken,
                                       expiresAt: session.expiresAt, csrfToken: csrfToken(for: id))
        return .signedIn(id, identity)
    }

    /// Ends a session that timed out: removed from the store (revoked at the provider when it can be).
    private func end(_ id: WebSessionID) async -> Resolution {
        _ = try? await hub.signOut(provider: id.provider, account: id.account)
        forget(id)
        return .over
    }

    private func touch(_ id: WebSessionID) {
        let now = self.now, idle = configuration.idleTimeout.seconds
        lastSeen.withLock { table in
            table[id.account] = now
            // Bounded: entries idle past the timeout go once the table is large.
            if table.count > 50_000 { table = table.filter { now.timeIntervalSince($0.value) <= idle } }
        }
    }

    func forget(_ id: WebSessionID) { lastSeen.withLock { $0[id.account] = nil } }

    /// Stores a new session under a fresh id and returns the id.
    func startSession(_ session: Session, provider: String) async throws -> WebSessionID {
        let id = WebSessionID.make(provider: provider, now: now, random: hub.context.random)
        // The hub's one sign-in rule (stored, `signedIn` published, counted as a `browser` sign-in);
        // a fresh id has no session to replace — the browser's previous one is retired by the caller.
        _ = try await hub.manager(provider: provider, account: id.account).signIn(method: "browser") { _ in session }
        touch(id)
        return id
    }

    /// A provider that can sign in through a redirect to this app (and whose id can stand in a
    /// cookie), or nil.
    func redirectProvider(_ id: String?) -> (any RedirectSignInProvider)? {
        guard let provider = try? hub.provider(id), WebSessionID.isUsable(providerID: provider.id) else { return nil }
        return provider as? any RedirectSignInProvider
    }
}
