import AuthHub
import Foundation

/// Auth0.swift's `CredentialsManager` semantics (<doc:Auth0Endpoints>: “Credentials manager”) on AuthHub's session layer.
///
/// The main credentials are a core ``Session`` kept by a ``SessionManager``, so renewal is
/// single-flight, cross-process safe with the file store, and rotation-safe. On top of it:
/// - **Session expiry.** The ID token's `session_expiry` claim is pinned at ``store(_:)`` (only when
///   nothing is pinned yet); when `now + 30 s` reaches it, ``credentials(scope:minTTL:)``,
///   ``apiCredentials(forAudience:scope:minTTL:)`` and ``ssoCredentials()`` clear everything and
///   throw ``AuthErrorCode/sessionExpired``.
/// - **API credentials** per audience and scope, stored beside the main session under the key
///   `audience` or `audience::scope1::scope2` (scopes sorted), renewed with the refresh token and
///   the audience; the main session takes the reply's ID token and rotated refresh token.
/// - **SSO** session transfer tokens, **revoke** (revoke, then clear; a failed revoke keeps the
///   credentials), **clear**, and the **user profile** from the stored ID token.
/// - **Retries**: renewals that fail with a retryable error (network, 429, 5xx) are tried again
///   up to `maxRetries` times after `0.5 × 2ⁿ` seconds.
///
/// Differences from Auth0.swift, on purpose: a renewal is never lost — when the renewed token lives
/// shorter than `minTTL` it is stored before the error is thrown (see ``SessionManager``); and
/// concurrency is safe across processes, not only within one.
public actor Auth0CredentialsManager {
    /// The main session's key.
    public nonisolated let key: SessionKey
    /// The session manager of the main credentials.
    public nonisolated let sessions: SessionManager
    /// How many times a retryable renewal failure is retried.
    public nonisolated let maxRetries: Int
    private let provider: Auth0Provider
    private let store: any SessionStore
    private let lock: any RefreshLock
    private let clock: any AuthClock

    /// The extras key of the pinned `session_expiry` (epoch seconds).
    public static let pinnedSessionExpiryKey = "auth0.session_expiry"
    /// How long before `session_expiry` the session counts as expired.
    public static let sessionExpiryMargin: TimeInterval = 30

    /// Creates a manager over a hub's session: the hub's ``SessionManager`` for an Auth0 provider
    /// account, so the hub, its ``AuthHub/events()`` and this manager share one owner and one cache of
    /// the main session (API credentials live beside it in the hub's store).
    /// - Parameters:
    ///   - maxRetries: retries of a retryable renewal failure (Auth0.swift's default is 0).
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` for an unknown id or a provider of another type.
    public init(hub: AuthHub, provider id: String? = nil, account: String = SessionKey.defaultAccount, maxRetries: Int = 0) throws {
        try self.init(manager: hub.manager(provider: id, account: account), maxRetries: maxRetries)
    }

    /// Creates a manager over an existing session manager (the hub's: ``AuthHub/manager(provider:account:)``);
    /// its store, refresh lock and clock are used for the API credentials too.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` when the manager's provider is not an ``Auth0Provider``.
    public init(manager: SessionManager, maxRetries: Int = 0) throws {
        let provider = try manager.provider(as: Auth0Provider.self)
        self.key = manager.key
        self.provider = provider
        self.store = manager.sessionStore
        self.lock = manager.refreshLock
        self.clock = manager.clock
        self.maxRetries = max(0, maxRetries)
        self.sessions = manager
    }

    /// Creates a standalone manager that owns its session (an app without an ``AuthHub``). With a hub,
    /// use ``init(hub:provider:account:maxRetries:)``: two owners of one key would keep two caches.
    /// - Parameters:
    ///   - provider: the Auth0 provider that renews.
    ///   - store: where the main and API credentials live.
    ///   - account: the account key of the main session.
    ///   - refreshLock: serialises renewals; by default the store's own.
    ///   - maxRetries: retries of a retryable renewal failure (Auth0.swift's default is 0).
    ///   - clock: the time source (also used for the retry delays).
    public init(provider: Auth0Provider, store: any SessionStore, account: String = SessionKey.defaultAccount,
                refreshLock: (any RefreshLock)? = nil, maxRetries: Int = 0, clock: any AuthClock = SystemClock()) {
        let key = SessionKey(provider: provider.id, account: account)
        let lock = refreshLock ?? store.makeRefreshLock()
        self.key = key
        self.provider = provider
        self.store = store
        self.lock = lock
        self.clock = clock
        self.maxRetries = max(0, maxRetries)
        self.sessions = SessionManager(key: key, provider: provider, store: store, refreshLock: lock, clock: clock)
    }

    // MARK: - Storing and checking

    /// Stores credentials from a sign-in, pinning the ID token's `session_expiry` unless one is
    /// pinned already.
    @discardableResult
    public func store(_ credentials: Auth0Credentials) async throws -> Session {
        try await store(provider.session(from: credentials))
    }

    /// Stores a session from a sign-in, pinning its ID token's `session_expiry` unless one is pinned.
    ///
    /// Storing is a sign-in by the hub's one rule (``SignInPolicy``, through
    /// ``SessionManager/signIn(method:policy:upgradesGuest:isolation:_:)``, method `credentials`):
    /// credentials of another grant replace the stored ones, which are revoked at Auth0 in the
    /// background; events and telemetry are the hub's.
    @discardableResult
    public func store(_ session: Session) async throws -> Session {
        let sessions = self.sessions
        return try await sessions.signIn(method: "credentials") { _ in
            var session = session
            if let pinned = try await sessions.current()?.extras[Self.pinnedSessionExpiryKey] {
                session.extras[Self.pinnedSessionExpiryKey] = pinned
            } else if let expiry = session.claims["session_expiry"]?.doubleValue, expiry > 0, expiry < 1e10 {
                session.extras[Self.pinnedSessionExpiryKey] = .number(expiry)
            }
            return session
        }
    }

    /// True when credentials are stored and valid for at least `minTTL` seconds (refresh token ignored).
    public func hasValid(minTTL: TimeInterval = 0) async throws -> Bool {
        try await sessions.hasValid(minTTL: minTTL)
    }

    /// True when credentials are stored and have a refresh token.
    public func canRenew() async throws -> Bool {
        try await sessions.canRenew()
    }

    /// Whether the login session (`session_expiry`) ends within 30 seconds.
    public func hasSessionExpired() async throws -> Bool {
        guard let session = try await sessions.current() else { return false }
        return isSessionExpired(session)
    }

    private nonisolated func isSessionExpired(_ session: Session) -> Bool {
        guard let expiry = session.extras[Self.pinnedSessionExpiryKey]?.doubleValue ?? session.claims["session_expiry"]?.doubleValue
        else { return false }
        return clock.now.addingTimeInterval(Self.sessionExpiryMargin).timeIntervalSince1970 >= expiry
    }

    /// The main session, after the session-expiry check.
    private func liveSession() async throws -> Session {
        guard let session = try await sessions.current() else {
            throw AuthError(.noSession, message: "No credentials were found in the store.", provider: key.provider)
        }
        if isSessionExpired(session) {
            try await clearAll()
            throw AuthError(.sessionExpired, message: "The login session has expired; sign in again.", provider: key.provider)
        }
        return session
    }

    // MARK: - Credentials

    /// Valid credentials: the stored ones unless they expire within `minTTL` seconds or `scope`
    /// differs (as a set) from the stored scope, else renewed with the refresh token.
    /// - Throws: ``AuthErrorCode/noSession``, ``AuthErrorCode/sessionExpired``, or the renewal's error
    ///   (after `maxRetries` retries of a retryable one).
    ///
    /// A cached session that is valid and within its login session is returned after one hop to the
    /// session manager (without entering this actor: the check needs none of its state); anything
    /// else takes the full path below.
    public nonisolated func credentials(scope: String? = nil, minTTL: TimeInterval = 60) async throws -> Session {
        if let cached = sessions.cachedSession(minTTL: minTTL, scope: scope), !isSessionExpired(cached) {
            return cached
        }
        return try await renewedCredentials(scope: scope, minTTL: minTTL)
    }

    private func renewedCredentials(scope: String?, minTTL: TimeInterval) async throws -> Session {
        _ = try await liveSession()
        return try await withRetries { try await self.sessions.session(minTTL: minTTL, scope: scope) }
    }

    /// Renews now, whatever the expiry.
    @discardableResult
    public func renew() async throws -> Session {
        _ = try await liveSession()
        return try await withRetries { try await self.sessions.renew() }
    }

    private func withRetries<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            do {
                return try await body()
            } catch let error as AuthError where error.isRetryable && attempt < maxRetries {
                try await clock.sleep(for: .milliseconds(500 << min(attempt, 6)))  // 0.5 s doubling, at most 32 s
                attempt += 1
            }
        }
    }

    // MARK: - API credentials

    /// The storage key of API credentials: the audience, or `audience::` + the sorted scopes joined
    /// with `::`.
    public static func apiStorageKey(audience: String, scope: String?) -> String {
        guard let scope, !scope.isEmpty else { return audience }
        return ([audience] + scope.split(separator: " ").map(String.init).sorted()).joined(separator: "::")
    }

    private func apiKey(audience: String, scope: String?) -> SessionKey {
        SessionKey(provider: key.provider, account: "\(key.account)#api:\(Self.apiStorageKey(audience: audience, scope: scope))")
    }

    /// Credentials for an API audience: the cached ones while valid for `minTTL` seconds with the
    /// same scope, else exchanged with the refresh token (<doc:Auth0Endpoints>: “Other operations”).
    public func apiCredentials(forAudience audience: String, scope: String? = nil,
                               minTTL: TimeInterval = 60) async throws -> Auth0APICredentials {
        let apiKey = apiKey(audience: audience, scope: scope)
        if let cached = try await store.load(apiKey), cached.isValid(at: clock.now, minTTL: minTTL),
           !Self.apiScopeChanged(stored: cached.scope, requested: scope) {
            return Self.apiCredentials(cached)
        }
        _ = try await liveSession()
        return try await lock.withLock(key) {
            try await self.exchangeForAPI(audience: audience, scope: scope, apiKey: apiKey, minTTL: minTTL)
        }
    }

    private func exchangeForAPI(audience: String, scope: String?, apiKey: SessionKey, minTTL: TimeInterval) async throws -> Auth0APICredentials {
        let main = try await mainForExchange()
        let reply = try await withRetries {
            try await self.provider.authentication.renew(refreshToken: main.refreshToken ?? Secret(""), scope: scope, audience: audience,
                                                         dpopKey: try main.dpopKey())
        }
        try await restoreMain(main, idToken: reply.idToken, refreshToken: reply.refreshToken)
        try SessionTimeLimits.requireLifetime(minTTL, of: "API token", expiresAt: reply.expiresAt, now: clock.now, provider: key.provider)
        let api = Session(providerID: key.provider, accountKey: apiKey.account, accessToken: reply.accessToken,
                          tokenType: reply.tokenType.isEmpty ? "Bearer" : reply.tokenType, expiresAt: reply.expiresAt,
                          scope: reply.scope ?? "", secretExtras: Session.secretExtras(dpopKey: reply.dpopKey),
                          issuedAt: clock.now)
        try api.checkTokenSyntax(operation: .tokenExchange)
        _ = try await store.save(api, for: apiKey, expectedVersion: nil)
        return Self.apiCredentials(api)
    }

    /// Removes the cached credentials of one audience and scope.
    public func clear(forAudience audience: String, scope: String? = nil) async throws {
        try await store.remove(apiKey(audience: audience, scope: scope))
    }

    static func apiCredentials(_ session: Session) -> Auth0APICredentials {
        Auth0APICredentials(accessToken: session.accessToken, tokenType: session.tokenType,
                            expiresAt: session.expiresAt ?? .distantPast, scope: session.scope ?? "",
                            dpopKey: session.isDPoPBound ? (try? session.dpopKey()) ?? nil : nil)
    }

    /// Scope comparison for API credentials: sets of lowercased scopes, ignoring a stored `openid`
    /// when the request lacks it; a nil request means no change.
    static func apiScopeChanged(stored: String?, requested: String?) -> Bool {
        guard let requested else { return false }
        let wanted = Set(requested.lowercased().split(separator: " ").map(String.init))
        var have = Set((stored ?? "").lowercased().split(separator: " ").map(String.init))
        if !wanted.contains("openid") { have.remove("openid") }
        return wanted != have
    }

    // MARK: - SSO

    /// A session transfer token for web single sign-on (<doc:Auth0Endpoints>: “Session transfer” and “Other operations”); the main session takes the
    /// reply's ID token and rotated refresh token.
    public func ssoCredentials() async throws -> Auth0SSOCredentials {
        _ = try await liveSession()
        return try await lock.withLock(key) {
            let main = try await self.mainForExchange()
            let reply = try await self.provider.authentication.ssoExchange(refreshToken: main.refreshToken ?? Secret(""))
            try await self.restoreMain(main, idToken: reply.idToken, refreshToken: reply.refreshToken)
            return Auth0SSOCredentials(sessionTransferToken: reply.accessToken, issuedTokenType: reply.issuedTokenType ?? "",
                                       expiresAt: reply.expiresAt, idToken: reply.idToken, refreshToken: reply.refreshToken)
        }
    }

    /// The main session re-read under the lock, with its refresh token.
    private func mainForExchange() async throws -> Session {
        guard let main = try await sessions.reload() else {
            throw AuthError(.noSession, message: "No credentials were found in the store.", provider: key.provider)
        }
        guard main.canRenew else {
            throw AuthError(.sessionExpired, message: "The stored credentials have no refresh token.", provider: key.provider)
        }
        return main
    }

    /// Saves the main session with a new ID token and rotated refresh token (access token and
    /// expiry unchanged), then refreshes the session manager's cache.
    private func restoreMain(_ main: Session, idToken: Secret<String>, refreshToken: Secret<String>?) async throws {
        var updated = main
        if !idToken.isEmpty {
            updated.idToken = idToken
            if let claims = Auth0IDTokenClaims.decode(idToken) {
                // An exchange for an API's audience asks for that API's scopes, so its ID token may
                // carry fewer profile claims (no `email`, `name`): those of the same user are kept,
                // the new token's win. Another user's token replaces them all.
                let sameUser = claims["sub"]?.stringValue == nil || claims["sub"]?.stringValue == main.userID
                updated.claims = sameUser ? main.claims.merging(claims, uniquingKeysWith: { _, new in new }) : claims
                updated.userID = claims["sub"]?.stringValue ?? updated.userID
            }
        }
        if let refreshToken, !refreshToken.isEmpty { updated.refreshToken = refreshToken }
        try updated.checkTokenSyntax(operation: .tokenExchange)
        _ = try await store.save(updated, for: key, expectedVersion: main.version)
        _ = try await sessions.reload()
    }

    // MARK: - Revoke, clear, profile

    /// Revokes the refresh token at Auth0, then clears the credentials. Without a refresh token it
    /// only clears; when the revocation fails the credentials are kept and the error thrown.
    public func revoke() async throws {
        guard let session = try await sessions.current() else {
            throw AuthError(.noSession, message: "No credentials were found in the store.", provider: key.provider)
        }
        if let refreshToken = session.refreshToken, !refreshToken.isEmpty {
            try await provider.authentication.revoke(refreshToken: refreshToken)
        }
        try await clear()
    }

    /// Removes the main credentials (and with them the pinned session expiry).
    public func clear() async throws {
        try await sessions.clear()
    }

    /// Removes the main credentials and every API credential of this account.
    public func clearAll() async throws {
        let prefix = "\(key.account)#api:"
        for stored in try await store.keys() where stored.provider == key.provider && stored.account.hasPrefix(prefix) {
            try await store.remove(stored)
        }
        try await sessions.clear()
    }

    /// The user profile from the stored ID token's claims (not verified: it describes, it does not
    /// authorise); nil when there are no credentials or no ID token.
    public func userProfile() async throws -> UserInfo? {
        guard let session = try await sessions.current(), let idToken = session.idToken,
              let claims = Auth0IDTokenClaims.decode(idToken) else { return nil }
        return try Auth0UserProfile.userInfo(from: .object(claims), provider: key.provider)
    }
}
