import AuthHub
import AuthHubOIDC
import Crypto
import Foundation
import HTTPTypes

/// Browser sign-in on top of an `AuthHub`, for any web framework: the sign-in, callback and
/// sign-out handlers (``login(_:)``, ``callback(_:)``, ``logout(_:)``) and the session logic that
/// turns the session cookie into an identity with a valid access token (``resolveSession(_:)``).
/// It speaks swift-http-types (``WebRequest`` in, ``WebResponse`` out); the Hummingbird and Vapor
/// adapters (`AuthHubHummingbird`, `AuthHubVapor`) are glue around it, held to one behaviour by
/// AuthHubTesting's `WebAdapterConformance`.
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
    let secondSteps = PendingSecondSteps()
    /// Enrollments started on the account pages, by browser session (one each), kept server-side.
    let enrollments = Mutex<[String: (challenge: MethodEnrollmentChallenge, startedAt: Date)]>([:])
    let pages: WebPageRenderer
    private let csrfKey: SymmetricKey
    /// HMAC-SHA256 keyed with ``csrfKey`` and nothing authenticated yet: a copy per token skips
    /// the key schedule (padding and hashing the key) that `HMAC(key:)` makes on every request.
    private let csrfMAC: HMAC<SHA256>
    /// ``WebSignInConfiguration/isDevelopment`` and ``WebSignInConfiguration/sessionCookieName`` of
    /// ``configuration`` (immutable here), read once: each reading parses the URL's host.
    let isDevelopment: Bool
    package let sessionCookieName: String
    /// The idle and absolute timeouts in seconds, read once (each reading of a `Duration` divides).
    private let idleSeconds: TimeInterval, absoluteSeconds: TimeInterval
    /// The browser sessions this replica has served: when each was last seen (idle timeout), and
    /// its parsed cookie and CSRF token, so that a signed-in user's next request hashes nothing.
    private let seen = Mutex(SeenSessions())

    struct SeenSessions: Sendable {
        /// One session's entry. Its `var`s are read and written only while the table's lock
        /// (`AuthHubWeb.seen`) is held, and its `let`s never change: that is why it may be
        /// `@unchecked Sendable` (a reference, so that a request finds it with one retain and
        /// marks it seen in place).
        final class Entry: @unchecked Sendable {
            let id: WebSessionID
            let csrfToken: String
            var lastSeen: Date
            /// When this replica last sent the session cookie (sign-in, or a renewed `Max-Age`).
            var cookieSentAt: Date
            /// The hub's manager of the session, once found: read without the hub's table (see
            /// `AuthHubWeb.cachedSnapshot(_:seen:)`); weak, so the hub may still drop it.
            weak var manager: SessionManager?
            /// The identity last made for this session and the hub's snapshot of the session it
            /// was made from: handed out again while the manager's snapshot is that same object
            /// (it is replaced at every change of the session: renewal, sign-out, another
            /// replica's write), so a signed-in request builds no identity.
            var identity: (snapshot: CachedSessionSnapshot, identity: AuthHubIdentity)?

            /// When the session's absolute timeout ends it (its creation time plus the timeout).
            let absoluteDeadline: Date

            init(id: WebSessionID, csrfToken: String, now: Date, absoluteTimeout: TimeInterval) {
                self.id = id
                self.csrfToken = csrfToken
                lastSeen = now
                cookieSentAt = now
                absoluteDeadline = id.createdAt.addingTimeInterval(absoluteTimeout)
            }
        }
        /// By cookie value (always ``WebSessionID/value``: ``WebSessionID/init(cookie:)`` accepts
        /// only the canonical form, so one session has one key).
        var entries: [String: Entry] = [:]
        var sweepAt = 50_000
    }

    /// Creates the web integration.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` for settings ``WebSignInConfiguration`` refuses.
    public init(hub: AuthHub, configuration: WebSignInConfiguration) throws {
        try configuration.validate()
        pages = try WebPageRenderer(configuration.pages)
        self.hub = hub
        self.configuration = configuration
        let key = configuration.csrfKey.map { SymmetricKey(data: SHA256.hash(data: Data($0.revealed().utf8))) }
            ?? SymmetricKey(data: hub.context.random.bytes(32))
        csrfKey = key
        csrfMAC = HMAC<SHA256>(key: key)
        isDevelopment = configuration.isDevelopment
        sessionCookieName = configuration.sessionCookieName
        idleSeconds = configuration.idleTimeout.seconds
        absoluteSeconds = configuration.absoluteTimeout.seconds
        cookieRenewalInterval = min(60, idleSeconds / 20)
        clock = hub.context.clock
        logoutTokenReplayCache = configuration.logoutTokenReplayCache ?? InMemoryReplayCache(capacity: 100_000, clock: hub.context.clock)
    }

    /// Where accepted back-channel logout tokens' `jti`s are kept (see ``WebSignInConfiguration/logoutTokenReplayCache``).
    let logoutTokenReplayCache: any ReplayCache

    /// The hub's clock, kept (reading it through the hub's context copies the context's fields).
    private let clock: any AuthClock
    var now: Date { clock.now }

    // MARK: - Cookies

    func sessionCookie(_ id: WebSessionID) -> WebCookie {
        let remaining = absoluteSeconds - now.timeIntervalSince(id.createdAt)
        let maxAge = Int(max(0, min(idleSeconds, remaining)).rounded(.down))
        return cookie(sessionCookieName, id.value, maxAge: maxAge)
    }

    func cookie(_ name: String, _ value: String, maxAge: Int) -> WebCookie {
        WebCookie(name: name, value: value, maxAge: maxAge, path: "/", secure: !isDevelopment, httpOnly: true, sameSite: .lax)
    }

    /// The cookie that clears cookie `name` (empty, `Max-Age=0`, the same attributes).
    public func clearing(_ name: String) -> WebCookie { cookie(name, "", maxAge: 0) }

    // MARK: - CSRF

    /// The sign-out token of a session: HMAC-SHA256 of its id under the CSRF key.
    func csrfToken(for id: WebSessionID) -> String {
        var mac = csrfMAC
        mac.update(data: Data(id.value.utf8))
        return mac.finalize().withUnsafeBytes { Base64URL.encode(buffer: $0) }
    }

    func isValidCSRFToken(_ token: String?, for id: WebSessionID) -> Bool {
        guard let token, let given = Base64URL.decode(token) else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(given, authenticating: Data(id.value.utf8), using: csrfKey)
    }

    /// Whether a state-changing request comes from the app's own pages: its `Origin` (or, when a
    /// browser sends none, its `Referer`'s origin) is ``WebSignInConfiguration/origin``.
    public func isSameOrigin(_ request: HTTPRequest) -> Bool {
        if let origin = request.headerFields[.origin] { return origin == configuration.origin }
        guard let referer = request.headerFields[.referer], let url = URL(string: referer) else { return false }
        var origin = "\(url.scheme ?? "")://\(url.host ?? "")"
        if let port = url.port { origin += ":\(port)" }
        return origin == configuration.origin
    }

    /// Whether a state-changing request of a signed-in browser (a form of the app's own) may be
    /// served: it comes from the app's origin and carries the session's CSRF token (form field
    /// `csrf`, up to 4 KiB of form body, or header `X-CSRF-Token`).
    /// - Parameter value: the session cookie's value (``AuthHubIdentity/Source/session(id:)``).
    public func isValidStateChange(_ request: WebRequest, sessionCookie value: String) async throws -> Bool {
        guard isSameOrigin(request.head), let id = WebSessionID(cookie: value) else { return false }
        var token = request.headerFields[WebRequest.csrfHeader]
        if token == nil { token = try await request.formFields()["csrf"] }
        return isValidCSRFToken(token, for: id)
    }

    /// The hub account a browser session is stored under, for calls such as `hub.refresh(provider:account:)`.
    public func account(ofSessionCookie value: String) -> String? { WebSessionID(cookie: value)?.account }

    // MARK: - Sessions

    /// The browser session of a request: its cookie read, checked and resolved (see
    /// ``resolveSession(cookie:)``).
    public func resolveSession(_ request: HTTPRequest) async -> WebSessionResolution {
        await resolveSession(cookie: WebCookie.value(named: sessionCookieName, in: request.headerFields[values: .cookie]))
    }

    /// The session a session cookie's value names, with its identity, renewed when needed:
    /// - no cookie: ``WebSessionResolution/anonymous``;
    /// - a valid session: ``WebSessionResolution/signedIn(_:cookie:)`` with an access token valid for
    ///   at least a minute (renewed first through the hub's `SessionManager` when needed:
    ///   single-flight, across processes with a shared store) and, when due
    ///   (``cookieRenewalInterval``), the cookie again with a renewed `Max-Age` (sliding idle timeout);
    /// - a cookie that names no usable session (malformed, tampered, idle or absolute timeout, signed
    ///   out elsewhere, refresh token dead): ``WebSessionResolution/ended(clear:)``; a timed-out
    ///   session is removed from the store (revoked at the provider when it can be);
    /// - the provider unreachable while the session needs renewing: ``WebSessionResolution/failed(_:)``
    ///   with a 503 (``errorResponse(for:)``); the session and the cookie are kept.
    public func resolveSession(cookie value: String?) async -> WebSessionResolution {
        if let value, let identity = seenSessionIdentity(value) { return .signedIn(identity, cookie: nil) }
        let id: WebSessionID, seen: SeenBefore?
        switch check(value) {
        case .resolved(let resolution):
            return resolution
        case .timedOut(let timedOut):
            await end(timedOut)
            return .ended(clear: clearing(sessionCookieName))
        case .valid(let valid, let seenBefore):
            if let snapshot = cachedSnapshot(valid, seen: seenBefore) {
                return signedIn(valid, seen: seenBefore, session: snapshot.session, snapshot: snapshot)
            }
            (id, seen) = (valid, seenBefore)
        }
        let session: Session
        do {
            session = try await hub.session(provider: id.provider, account: id.account, minTTL: 60)
        } catch let error as AuthError where [.noSession, .refreshTokenInvalid, .sessionExpired].contains(error.code) {
            forget(id)
            return .ended(clear: clearing(sessionCookieName))
        } catch {
            return .failed(errorResponse(for: error))
        }
        return signedIn(id, seen: seen, session: session, snapshot: nil)
    }

    /// What ``resolveSession(_:)`` returns, when it can be had without waiting: no cookie, a cookie
    /// that names no session, or a session the hub has cached with an access token valid for at
    /// least a minute (`AuthHub.cachedSession(provider:account:minTTL:scope:)`) — a signed-in
    /// user's usual request. Nil when the store must be read, the session renewed or a timed-out
    /// session ended: then call ``resolveSession(_:)``. An adapter whose framework runs waiting
    /// middleware on another thread (Vapor's `AsyncMiddleware`) answers from here on the event loop.
    public func resolveCachedSession(_ request: HTTPRequest) -> WebSessionResolution? {
        resolveCachedSession(cookie: WebCookie.value(named: sessionCookieName, in: request.headerFields[values: .cookie]))
    }

    /// ``resolveCachedSession(_:)`` for a session cookie's value.
    public func resolveCachedSession(cookie value: String?) -> WebSessionResolution? {
        if let value, let identity = seenSessionIdentity(value) { return .signedIn(identity, cookie: nil) }
        switch check(value) {
        case .resolved(let resolution):
            return resolution
        case .timedOut:
            return nil
        case .valid(let id, let seen):
            guard let snapshot = cachedSnapshot(id, seen: seen) else { return nil }
            return signedIn(id, seen: seen, session: snapshot.session, snapshot: snapshot)
        }
    }

    /// A signed-in user's usual request, on a replica that has answered the session before: its
    /// entry holds the identity made from the hub's current snapshot of the session, the session is
    /// within its idle and absolute timeouts, its cookie is not due, and the snapshot is still the
    /// manager's with an access token valid for a minute — one look at the table (marking it seen)
    /// and one at the manager's snapshot; no copy of the session or of the parsed cookie. Nil sends
    /// the request down the full path (``check(_:)``), which decides everything again.
    private func seenSessionIdentity(_ value: String) -> AuthHubIdentity? {
        let now = self.now, idleSeconds = self.idleSeconds, interval = cookieRenewalInterval
        let found = seen.withLock { table -> (identity: AuthHubIdentity, snapshot: CachedSessionSnapshot, manager: SessionManager)? in
            guard let entry = table.entries[value], let made = entry.identity, let manager = entry.manager,
                  now.timeIntervalSince(entry.lastSeen) <= idleSeconds, now < entry.absoluteDeadline,
                  now.timeIntervalSince(entry.cookieSentAt) < interval else { return nil }
            entry.lastSeen = now
            return (made.identity, made.snapshot, manager)
        }
        guard let found, found.manager.isCurrent(found.snapshot, minTTL: 60) else { return nil }
        return found.identity
    }

    /// What a session cookie comes to before the session is looked up.
    private enum CookieCheck {
        /// No cookie, or one that names no session.
        case resolved(WebSessionResolution)
        /// A session past its idle or absolute timeout: to be ended.
        case timedOut(WebSessionID)
        /// A well-formed id within its timeouts; for a session this replica has seen before, its
        /// CSRF token and whether its cookie is due (the entry is marked seen already).
        case valid(WebSessionID, seen: SeenBefore?)
    }

    /// What the table knew of a session seen before (its entry already marked seen), read under
    /// its lock.
    private struct SeenBefore {
        let entry: SeenSessions.Entry
        let cookieDue: Bool
        let manager: SessionManager?
        let identity: (snapshot: CachedSessionSnapshot, identity: AuthHubIdentity)?
    }

    /// The hub's cached session of `id`, valid for a minute, as the hub's snapshot object: through
    /// the manager the table keeps for it (no look-up in the hub's manager table, no hashing of the
    /// key) — except when the cookie is due, once a minute per session, when it goes through the
    /// hub, which marks the manager used for its least-recently-used bookkeeping, and the manager
    /// is kept for the next requests.
    private func cachedSnapshot(_ id: WebSessionID, seen: SeenBefore?) -> CachedSessionSnapshot? {
        if let seen, !seen.cookieDue, let snapshot = seen.manager?.cachedSnapshot(minTTL: 60) { return snapshot }
        guard let found = hub.cachedSnapshot(provider: id.provider, account: id.account, minTTL: 60),
              let snapshot = found.snapshot else { return nil }
        if let seen, seen.cookieDue || seen.manager == nil {
            self.seen.withLock { _ in seen.entry.manager = found.manager }
        }
        return snapshot
    }

    private func check(_ value: String?) -> CookieCheck {
        guard let value else { return .resolved(.anonymous) }
        let now = self.now, idleSeconds = self.idleSeconds, interval = cookieRenewalInterval
        // One look at the table: a session seen before is marked seen now, and its cookie counted
        // as sent when due, unless it is idle (to be ended). Marking before the hub is asked costs
        // nothing when the session turns out gone: it is forgotten then.
        let seen = seen.withLock { table -> (idle: Bool, before: SeenBefore)? in
            guard let entry = table.entries[value] else { return nil }
            guard now.timeIntervalSince(entry.lastSeen) <= idleSeconds else {
                return (true, SeenBefore(entry: entry, cookieDue: false, manager: nil, identity: nil))
            }
            let due = now.timeIntervalSince(entry.cookieSentAt) >= interval
            entry.lastSeen = now
            if due { entry.cookieSentAt = now }
            return (false, SeenBefore(entry: entry, cookieDue: due, manager: entry.manager, identity: entry.identity))
        }
        let id: WebSessionID
        if let seen {
            id = seen.before.entry.id
        } else {
            guard let parsed = WebSessionID(cookie: value), (try? hub.provider(parsed.provider)) != nil else {
                return .resolved(.ended(clear: clearing(sessionCookieName)))
            }
            id = parsed
        }
        let age = now.timeIntervalSince(id.createdAt)
        guard age >= -60, age <= absoluteSeconds, !(seen?.idle ?? false) else { return .timedOut(id) }
        return .valid(id, seen: seen?.before)
    }

    /// A signed-in resolution. With the hub's `snapshot` of the session, the identity made from it
    /// is kept in the session's entry and handed out again while the snapshot is the same object.
    private func signedIn(_ id: WebSessionID, seen: SeenBefore?, session: Session,
                          snapshot: CachedSessionSnapshot?) -> WebSessionResolution {
        if let seen, let snapshot, let made = seen.identity, made.snapshot === snapshot {
            if seen.cookieDue { recordLastSeen(id) }
            return .signedIn(made.identity, cookie: seen.cookieDue ? sessionCookie(id) : nil)
        }
        let csrf: String, cookieDue: Bool, entry: SeenSessions.Entry
        if let seen {
            (csrf, cookieDue, entry) = (seen.entry.csrfToken, seen.cookieDue, seen.entry)
        } else {
            csrf = csrfToken(for: id)
            (cookieDue, entry) = touch(id, csrfToken: csrf, sendingCookie: false)
        }
        let identity = AuthHubIdentity(provider: id.provider, subject: session.userID ?? session.claims["sub"]?.stringValue,
                                       claims: session.claims, source: .session(id: id.value), accessToken: session.accessToken,
                                       expiresAt: session.expiresAt, csrfToken: csrf,
                                       authenticatedAt: AuthHubIdentity.date(session.extras[Self.authenticatedAtExtra]?.doubleValue))
        if let snapshot { self.seen.withLock { _ in entry.identity = (snapshot, identity) } }
        if cookieDue { recordLastSeen(id) }
        return .signedIn(identity, cookie: cookieDue ? sessionCookie(id) : nil)
    }

    /// Writes when the session was last seen to the store, in the background (the request does not
    /// wait): as often as its cookie is renewed, at most once per ``cookieRenewalInterval`` on this
    /// replica — so the sessions list reads it on every replica.
    private func recordLastSeen(_ id: WebSessionID) {
        let hub = self.hub, seconds = now.timeIntervalSince1970
        Task {
            guard let manager = try? hub.manager(provider: id.provider, account: id.account) else { return }
            await manager.recordExtras([Self.lastSeenExtra: .number(seconds)])
        }
    }

    /// How long a replica goes without sending a signed-in browser its session cookie again (the
    /// sliding idle timeout's renewed `Max-Age`): a minute, or a twentieth of the idle timeout when
    /// that is shorter. A cookie in a browser thus expires at most this long before the session's
    /// idle timeout would end it — never later — and a page view costs no `Set-Cookie` most of the
    /// time (as ASP.NET Core's sliding expiration re-issues its cookie only past half its window).
    public let cookieRenewalInterval: TimeInterval

    /// Marks a session seen now; returns whether its cookie is due to be sent again (this replica
    /// has not sent it for ``cookieRenewalInterval``; always for a session new to this replica), and
    /// then counts it as sent; and the session's entry. `sendingCookie` says the caller sends the
    /// cookie anyway (a sign-in).
    @discardableResult
    private func touch(_ id: WebSessionID, csrfToken csrf: String, sendingCookie: Bool) -> (cookieDue: Bool, entry: SeenSessions.Entry) {
        let now = self.now, idle = idleSeconds, interval = cookieRenewalInterval
        return seen.withLock { table in
            if let entry = table.entries[id.value] {
                entry.lastSeen = now
                let due = sendingCookie || now.timeIntervalSince(entry.cookieSentAt) >= interval
                if due { entry.cookieSentAt = now }
                return (due, entry)
            }
            let entry = SeenSessions.Entry(id: id, csrfToken: csrf, now: now, absoluteTimeout: absoluteSeconds)
            table.entries[id.value] = entry
            // Bounded: entries idle past the timeout go once the table has grown past its sweep
            // mark, which then doubles what is left (at least 50,000), so a sweep costs O(1) per
            // request amortised even when every entry is live.
            if table.entries.count > table.sweepAt {
                table.entries = table.entries.filter { now.timeIntervalSince($0.value.lastSeen) <= idle }
                table.sweepAt = max(50_000, table.entries.count * 2)
            }
            return (true, entry)
        }
    }

    /// Ends a session that timed out: removed from the store (revoked at the provider when it can be).
    private func end(_ id: WebSessionID) async {
        _ = try? await hub.signOut(provider: id.provider, account: id.account)
        forget(id)
    }

    func forget(_ id: WebSessionID) { seen.withLock { $0.entries[id.value] = nil } }

    /// Stores a new session under a fresh id and returns the id.
    func startSession(_ session: Session, id: WebSessionID, userAgent: String? = nil, peerAddress: String? = nil) async throws -> WebSessionID {
        let provider = id.provider
        var session = session
        // What the sessions list shows of this browser (a summary, never the header).
        if let device = WebUserAgent.summary(userAgent) { session.extras[Self.deviceExtra] = .string(device) }
        if configuration.recordsClientAddress, let address = Self.checkedAddress(peerAddress) { session.extras[Self.addressExtra] = .string(address) }
        // The provider's session it belongs to, for back-channel logout (`sid` may leave the claims at a renewal).
        if let sid = session.claims["sid"]?.stringValue, !sid.isEmpty, sid.utf8.count <= 255 { session.extras[Self.sidExtra] = .string(sid) }
        // The hub's one sign-in rule (stored, `signedIn` published, counted as a `browser` sign-in);
        // a fresh id has no session to replace — the browser's previous one is retired by the caller.
        _ = try await hub.manager(provider: provider, account: id.account).signIn(method: "browser") { [session] _ in session }
        touch(id, csrfToken: csrfToken(for: id), sendingCookie: true)
        return id
    }

    /// Marks a browser session stored by another path (the held second step) as seen, its cookie sent now.
    func sessionStarted(_ id: WebSessionID) {
        touch(id, csrfToken: csrfToken(for: id), sendingCookie: true)
    }

    /// A provider that can sign in through a redirect to this app (and whose id can stand in a
    /// cookie), or nil.
    func redirectProvider(_ id: String?) -> (any RedirectSignInProvider)? {
        guard let provider = try? hub.provider(id), WebSessionID.isUsable(providerID: provider.id) else { return nil }
        return provider as? any RedirectSignInProvider
    }
}
