import Foundation
import Logging
import Tracing

/// Keeps one provider account's session valid: returns the stored session while it is fresh and
/// renews it when it is not.
///
/// Renewal rules (the refresh-token races that break other SDKs are the reason for each):
/// - **Single-flight.** Concurrent callers that need a renewal await the same refresh: 1,000
///   callers on an expired session send one refresh request.
/// - **Cross-process safe.** The refresh runs under the store's ``RefreshLock`` (a `flock` for the
///   file store) and re-reads the store after taking it: when another process has rotated the
///   tokens in the meantime, its session is used and no request is sent.
/// - **Rotation-safe.** A reply without a refresh token keeps the old one; the renewed session is
///   stored (compare-and-swap on its version) before it is returned.
/// - **No deletion on transient failures.** Network errors, timeouts, 429 and 5xx leave the stored
///   session untouched. Only the provider's word that the refresh token is invalid
///   (``AuthErrorCode/refreshTokenInvalid``) clears it, and only if no one replaced it meanwhile.
/// - **No rotated token dropped.** When the store fails to take a renewed session (the database is
///   down) after the provider has answered — and may have rotated, so spent, the stored refresh
///   token —, the write is tried twice more at once; if it still fails, the renewed session is kept
///   in memory, returned and published, and written again in the background (with back-off) and
///   before anything else reads the store. It is dropped only when another writer replaced the
///   stored session meanwhile (theirs is then the live one), or on sign-in or sign-out.
///
/// The manager caches the last session it read or wrote, so ``session(minTTL:scope:)`` on a fresh
/// session costs no I/O; another process's changes are seen when a renewal re-reads the store, after
/// ``reload()``, or — with a store that reports them (``ObservableSessionStore``, e.g. PostgreSQL) —
/// as soon as ``storeDidChange(_:)`` hears of them (``AuthHub`` wires that up).
///
/// Differences from Auth0.swift's CredentialsManager, on purpose: when a renewed token lives shorter
/// than `minTTL`, the renewed session is still stored (its refresh token may have rotated, and
/// dropping it would end the session) before the `minTTL` error is thrown.
public actor SessionManager {
    /// The session this manager looks after.
    public nonisolated let key: SessionKey
    /// The provider that renews this session (wrappers such as `FirebaseAuth` check its type).
    public nonisolated let provider: any AuthProvider
    /// The store the session lives in.
    public nonisolated let sessionStore: any SessionStore
    /// The lock renewals of this key run under.
    public nonisolated let refreshLock: any RefreshLock
    /// The time source.
    public nonisolated let clock: any AuthClock
    let logger: Logger
    /// Revocations of replaced sessions running in the background (see `SessionManager+SignIn`).
    let revocations = BackgroundRevocations()
    /// Where renewals are counted, timed and traced.
    public nonisolated let telemetry: AuthTelemetry
    private let broadcaster = EventBroadcaster()
    private let sink: (@Sendable (AuthEvent) -> Void)?

    private var cached: Session? {
        didSet {
            cacheWrites &+= 1
            publishSnapshot()
        }
    }
    private var loaded = false {
        didSet { publishSnapshot() }
    }
    /// ``cached`` when ``loaded``, else nil: a copy readable without entering the actor, for
    /// ``cachedSession(minTTL:scope:)``. Written only by the actor, right after each change, so a
    /// reader sees what an actor-isolated read at that moment would have seen.
    /// A new (immutable) snapshot object at each change, so a reader that keeps one can tell by
    /// identity whether the session changed since (``cachedSnapshot(minTTL:scope:)``).
    private nonisolated let snapshot = Mutex<CachedSessionSnapshot?>(nil)

    private func publishSnapshot() {
        let current = loaded ? cached.map(CachedSessionSnapshot.init) : nil
        snapshot.withLock { $0 = current }
    }
    /// Counts the assignments to ``cached``: a read of the store that finds it changed when the read
    /// returns keeps the newer cache (a sign-in, sign-out or renewal landed meanwhile) rather than
    /// what it read.
    private var cacheWrites: UInt64 = 0
    /// The first read of the store, shared by every caller that needs it while it runs.
    private var firstLoad: Task<Void, any Error>? {
        didSet { updateBusy() }
    }
    /// The renewal in flight, if any: its task, the scope it asked for, and an id so that only the
    /// caller that started it clears it.
    private var inflight: (id: UInt64, scope: String?, task: Task<Session, any Error>)? {
        didSet { updateBusy() }
    }
    private var nextFlightID: UInt64 = 0
    /// A renewed session the store did not take, and the version its write expects (see
    /// ``writeUnsaved()``); while it is set, it is also ``cached``.
    private var unsaved: (session: Session, expectedVersion: UInt64)? {
        didSet { updateBusy() }
    }
    /// Whether a first read, a renewal or a renewed session the store refused is pending: a copy
    /// readable without entering the actor, for ``isIdle``.
    private nonisolated let busy = Mutex(false)
    /// The hub's second step for AuthHub-held factors (nil for a manager made on its own).
    package nonisolated let heldFactorGate: HeldFactorGate?

    private func updateBusy() {
        let now = firstLoad != nil || inflight != nil || unsaved != nil
        busy.withLock { $0 = now }
    }

    /// Whether dropping this manager loses nothing (``AuthHub`` drops the least recently used idle
    /// managers nobody holds): no first read or renewal is running, no renewed session waits to be
    /// stored (it would hold the only live refresh token), no replaced session is being revoked, and
    /// nobody listens to its ``events()``. What it caches is in the store; a new manager for its key
    /// reads it again.
    nonisolated var isIdle: Bool { !busy.withLock { $0 } && !broadcaster.hasSubscribers && revocations.isEmpty }
    private var unsavedRetry: Task<Void, Never>?

    /// How often a renewed session the store refused is written again in the background (each
    /// attempt after a longer pause, up to ``unsavedRetryMaxPause``) before waiting for the next use.
    static let unsavedRetryAttempts = 20
    static let unsavedRetryMaxPause = Duration.seconds(30)

    /// Creates a manager.
    /// - Parameters:
    ///   - key: the provider id and account.
    ///   - provider: renews sessions (``AuthProvider/refresh(_:scope:)``).
    ///   - store: where the session lives.
    ///   - refreshLock: serialises renewals among every user of `store`; by default the store's own.
    ///   - clock: the time source.
    ///   - telemetry: where renewals are counted, timed and traced (see ``AuthTelemetry``).
    ///   - eventSink: also receives every event (the hub uses it to merge streams).
    public init(key: SessionKey, provider: any AuthProvider, store: any SessionStore, refreshLock: (any RefreshLock)? = nil,
                clock: any AuthClock = SystemClock(), logger: Logger = Logger(label: "authhub.session"),
                telemetry: AuthTelemetry = .default, eventSink: (@Sendable (AuthEvent) -> Void)? = nil) {
        self.init(key: key, provider: provider, store: store, refreshLock: refreshLock, clock: clock, logger: logger,
                  telemetry: telemetry, eventSink: eventSink, heldFactorGate: nil)
    }

    /// A manager whose sign-ins pass the hub's second step for AuthHub-held factors (`gate`).
    package init(key: SessionKey, provider: any AuthProvider, store: any SessionStore, refreshLock: (any RefreshLock)?,
                 clock: any AuthClock, logger: Logger, telemetry: AuthTelemetry, eventSink: (@Sendable (AuthEvent) -> Void)?,
                 heldFactorGate: HeldFactorGate?) {
        self.heldFactorGate = heldFactorGate
        self.key = key
        self.telemetry = telemetry
        self.provider = provider
        self.sessionStore = store
        self.refreshLock = refreshLock ?? store.makeRefreshLock()
        self.clock = clock
        var logger = logger
        logger[metadataKey: "session"] = .string(key.description)
        self.logger = logger
        self.sink = eventSink
    }

    /// The provider as its concrete type, for wrappers built over this manager (`FirebaseAuth`, …).
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` naming both types when it is another type.
    public nonisolated func provider<P: AuthProvider>(as type: P.Type) throws -> P {
        guard let typed = provider as? P else {
            throw AuthError(.invalidConfiguration, message: "Provider '\(key.provider)' is of type '\(provider.type)', not \(P.self).",
                            provider: key.provider)
        }
        return typed
    }

    // MARK: Queries

    /// True when a session is stored and its access token is valid for at least `minTTL` seconds.
    /// Ignores the refresh token.
    public func hasValid(minTTL: TimeInterval = 0) async throws -> Bool {
        guard let session = try await current() else { return false }
        return session.isValid(at: clock.now, minTTL: minTTL)
    }

    /// True when a session is stored and has a refresh token.
    public func canRenew() async throws -> Bool {
        try await current()?.canRenew ?? false
    }

    /// The stored session, as last read or written (nil when signed out).
    public func current() async throws -> Session? {
        if !loaded { try await loadOnce() }
        return cached
    }

    /// Reads the store for callers that find nothing loaded, once for all of those that arrive while
    /// the read runs (a server's first requests after start, or after the cache was dropped).
    private func loadOnce() async throws {
        if let firstLoad { return try await firstLoad.value }
        let task = Task { _ = try await self.reload() }
        firstLoad = task
        defer { firstLoad = nil }
        try await task.value
    }

    /// Reads the store again, forgetting the cached session.
    ///
    /// A renewed session the store could not take yet is written first; while the store still
    /// refuses it, it is what this returns (it holds the live refresh token).
    @discardableResult
    public func reload() async throws -> Session? {
        if unsaved != nil, try await !writeUnsaved() { return cached }
        let writes = cacheWrites
        let session = try await loadFromStore()
        // Something this manager wrote or read while the store was being read is at least as new
        // as what this read found (an older read must not undo a sign-in or a renewal).
        if loaded, cacheWrites != writes { return cached }
        cached = session
        loaded = true
        return session
    }

    // MARK: Sessions

    /// Returns a session whose access token is valid for at least `minTTL` seconds and covers
    /// `scope`, renewing it when needed.
    /// - Parameters:
    ///   - minTTL: the least remaining lifetime, in seconds, the caller needs.
    ///   - scope: the scope the caller needs; a different set of scopes than stored forces a renewal.
    /// - Throws: ``AuthErrorCode/noSession`` when signed out; ``AuthErrorCode/sessionExpired`` when
    ///   the session expired and has no refresh token; the provider's error when renewal fails.
    public func session(minTTL: TimeInterval = 60, scope: String? = nil) async throws -> Session {
        if let session = try await current(), session.isValid(at: clock.now, minTTL: minTTL),
           !Self.scopeChanged(stored: session.scope, requested: scope) {
            return session
        }
        guard try await current() != nil else { throw noSessionError() }
        return try await singleFlight(minTTL: minTTL, scope: scope, force: false)
    }

    /// The cached session when it is loaded, valid for at least `minTTL` seconds and covers `scope`;
    /// nil otherwise. Never reads the store, never renews and never waits: it does not enter the
    /// actor (a fast path for wrappers such as Auth0's credentials manager, which check more before
    /// returning a cached session, and for web servers, which can answer a request for a fresh
    /// session without suspending; on nil they call ``session(minTTL:scope:)``).
    public nonisolated func cachedSession(minTTL: TimeInterval = 60, scope: String? = nil) -> Session? {
        cachedSnapshot(minTTL: minTTL, scope: scope)?.session
    }

    /// ``cachedSession(minTTL:scope:)`` as the snapshot object that holds it, without copying the
    /// session out: the same object until the cached session changes (a renewal, sign-in, sign-out
    /// or a change seen in the store), so a caller may keep what it derived from it (the web core's
    /// identity of a browser session) and reuse it while `===` holds.
    /// Whether `snapshot` is still the published one and its session valid for `minTTL` seconds
    /// (any scope): a caller that keeps what it derived from a snapshot checks this before reusing it.
    package nonisolated func isCurrent(_ snapshot: CachedSessionSnapshot, minTTL: TimeInterval = 60) -> Bool {
        self.snapshot.withLock({ $0 === snapshot }) && Session.isValid(expiresAt: snapshot.expiresAt, at: clock.now, minTTL: minTTL)
    }

    package nonisolated func cachedSnapshot(minTTL: TimeInterval = 60, scope: String? = nil) -> CachedSessionSnapshot? {
        guard let current = snapshot.withLock({ $0 }), current.session.isValid(at: clock.now, minTTL: minTTL),
              !Self.scopeChanged(stored: current.session.scope, requested: scope) else { return nil }
        return current
    }

    /// Renews the session now, whatever its expiry.
    @discardableResult
    public func renew(scope: String? = nil) async throws -> Session {
        guard try await current() != nil else { throw noSessionError() }
        return try await singleFlight(minTTL: 0, scope: scope, force: true)
    }

    /// Stores a session from a sign-in (replacing any previous one) and publishes `signedIn`.
    @discardableResult
    /// - Throws: ``AuthErrorCode/invalidRequest`` when a token is not visible ASCII or the token type
    ///   not an HTTP token (``Session/checkTokenSyntax(operation:)``): nothing is stored then.
    public func store(_ session: Session) async throws -> Session {
        try session.checkTokenSyntax(operation: .signIn)
        var session = session
        session.providerID = key.provider
        session.accountKey = key.account
        if session.issuedAt == nil { session.issuedAt = clock.now }
        let saved = try await mapStoreErrors { try await sessionStore.save(session, for: key, expectedVersion: nil) }
        dropUnsaved()
        cached = saved
        loaded = true
        publish(.signedIn(saved))
        return saved
    }

    /// Writes `extras` into the stored session, quietly (no event): bookkeeping beside the tokens,
    /// such as when a browser session was last seen. Under the refresh lock, so no renewal's new
    /// tokens can be lost to it, and against the version it read; best effort — false when nothing
    /// was written (no session, a renewed session the store has not taken yet, a newer version, a
    /// store that failed).
    @discardableResult
    package func recordExtras(_ extras: [String: JSONValue]) async -> Bool {
        do {
            return try await refreshLock.withLock(key) { try await self.recordExtrasLocked(extras) }
        } catch {
            logger.debug("recording session extras failed", metadata: ["error": "\(AuthError.wrap(error).code)"])
            return false
        }
    }

    private func recordExtrasLocked(_ extras: [String: JSONValue]) async throws -> Bool {
        guard unsaved == nil, let stored = try await reload() else { return false }
        var updated = stored
        updated.extras.merge(extras) { _, new in new }
        let saved = try await sessionStore.save(updated, for: key, expectedVersion: stored.version)
        cached = saved
        loaded = true
        return true
    }

    /// Removes the stored session and publishes `signedOut`.
    public func clear() async throws {
        try await mapStoreErrors { try await sessionStore.remove(key) }
        dropUnsaved()
        cached = nil
        loaded = true
        publish(.signedOut(key))
    }

    /// A stream of this session's events, starting with `initialSession`.
    public func events() async -> AsyncStream<AuthEvent> {
        let initial = try? await current()
        return broadcaster.subscribe(initial: .initialSession(key, initial))
    }

    // MARK: Renewal

    /// Runs one renewal for every concurrent caller that can use its result.
    ///
    /// A caller joins the renewal in flight when it asks for no particular scope or for the same set
    /// of scopes; a caller asking for another scope waits for that renewal to end (the refresh token
    /// may rotate under it) and then renews with its own scope, so it never receives a session for a
    /// scope it did not ask for.
    private func singleFlight(minTTL: TimeInterval, scope: String?, force: Bool) async throws -> Session {
        while let flight = inflight {
            if Self.canShare(flightScope: flight.scope, requested: scope) {
                return try await flight.task.value
            }
            _ = try? await flight.task.value
            // The flight has ended; its starter may not have run again yet to clear it (awaiting a
            // finished task does not suspend, so waiting for the starter here would spin).
            if inflight?.id == flight.id { inflight = nil }
            // The other renewal may have produced what this caller needs (or have been for this scope).
            if !force, let cached, cached.isValid(at: clock.now, minTTL: minTTL),
               let requested = scope, let got = cached.scope, Session.scopeSet(got) == Session.scopeSet(requested) {
                return cached
            }
        }
        nextFlightID &+= 1
        let id = nextFlightID
        let task = Task { try await self.refreshUnderLock(minTTL: minTTL, scope: scope, force: force) }
        inflight = (id, scope, task)
        defer { if inflight?.id == id { inflight = nil } }
        return try await task.value
    }

    /// Whether a caller asking for `requested` may take the result of a renewal for `flightScope`.
    static func canShare(flightScope: String?, requested: String?) -> Bool {
        guard let requested else { return true }
        guard let flightScope else { return false }
        return Session.scopeSet(flightScope) == Session.scopeSet(requested)
    }

    /// A renewal in an `authhub.refresh` span, whose children are the wait for the refresh lock
    /// (`authhub.refresh_lock.wait`, also timed into ``AuthTelemetry/MetricName/refreshLockWait``)
    /// and the provider's HTTP request.
    private func refreshUnderLock(minTTL: TimeInterval, scope: String?, force: Bool) async throws -> Session {
        let telemetry = self.telemetry, key = self.key
        return try await telemetry.withSpan(AuthTelemetry.SpanName.refresh, attributes: ["authhub.provider": key.provider]) { span in
            let waited = ContinuousClock.now
            let wait = telemetry.activeTracer.startAnySpan(AuthTelemetry.SpanName.refreshLockWait, context: ServiceContext.current ?? .topLevel)
            wait.attributes["authhub.provider"] = key.provider
            let waiting = Mutex(true)
            @Sendable func acquired() {
                guard waiting.withLock({ let was = $0; $0 = false; return was }) else { return }
                wait.end()
                telemetry.record(AuthTelemetry.MetricName.refreshLockWait, [("provider", key.provider)], duration: ContinuousClock.now - waited)
            }
            do {
                let session = try await refreshLock.withLock(key) {
                    acquired()
                    return try await self.refreshLocked(minTTL: minTTL, scope: scope, force: force)
                }
                span.attributes["authhub.outcome"] = "success"
                return session
            } catch {
                if waiting.withLock({ $0 }) { wait.setStatus(SpanStatus(code: .error, message: AuthTelemetry.outcome(error))) }
                acquired()
                throw error
            }
        }
    }

    /// Counts a renewal that reached the provider (``AuthTelemetry/MetricName/refreshes``) and records
    /// how long the session still had (``AuthTelemetry/MetricName/renewedRemainingSeconds``).
    private func recordRefresh(of stored: Session, force: Bool, error: (any Error)?) {
        let now = clock.now
        let trigger = force ? "forced" : (stored.isValid(at: now, minTTL: 0) ? "early" : "expired")
        telemetry.increment(AuthTelemetry.MetricName.refreshes,
                            [("provider", key.provider), ("trigger", trigger), ("outcome", AuthTelemetry.outcome(error))])
        if error == nil, let expiresAt = stored.expiresAt {
            telemetry.gauge(AuthTelemetry.MetricName.renewedRemainingSeconds, [("provider", key.provider)],
                            value: expiresAt.timeIntervalSince(now))
        }
    }

    private func refreshLocked(minTTL: TimeInterval, scope: String?, force: Bool) async throws -> Session {
        // Another process or manager may have renewed (or signed out) while we waited for the lock.
        // (A renewed session the store has not taken yet is written first, or renewed from.)
        guard let stored = try await reload() else { throw noSessionError() }
        if !force, stored.isValid(at: clock.now, minTTL: minTTL), !Self.scopeChanged(stored: stored.scope, requested: scope) {
            logger.debug("session already renewed by another holder of the refresh lock")
            return stored
        }
        guard stored.canRenew else {
            throw AuthError(.sessionExpired, message: "The session has expired and has no refresh token; sign in again.",
                            provider: key.provider)
        }

        logger.debug("refreshing session")
        let renewed: Session
        do {
            renewed = try await provider.refresh(stored, scope: scope)
            // A reply with a token that could inject a header or act on a terminal is malformed; the
            // stored session is kept (as for any malformed reply).
            try renewed.checkTokenSyntax(operation: .refresh)
            recordRefresh(of: stored, force: force, error: nil)
        } catch {
            let authError = AuthError.wrap(error, provider: key.provider)
            recordRefresh(of: stored, force: force, error: authError)
            if authError.code == .refreshTokenInvalid {
                return try await handleInvalidRefreshToken(stored, error: authError, minTTL: minTTL)
            }
            logger.debug("refresh failed; stored session kept", metadata: ["error": "\(authError.code)"])
            throw authError
        }

        let merged = Self.merge(renewed: renewed, into: stored, requestedScope: scope, key: key)

        let saved: Session
        do {
            saved = try await saveRenewed(merged, expectedVersion: stored.version)
        } catch let error as AuthError where error.code == .conflict {
            // A writer that does not take the refresh lock (a sign-in elsewhere) got there first.
            if let newer = try await reload() { return newer }
            throw noSessionError()
        } catch {
            // The provider has answered, so the stored refresh token may be spent: keep the renewed
            // session rather than drop it (see the type's notes).
            saved = keepUnsaved(merged, expectedVersion: stored.version, failure: storageError(error))
        }
        cached = saved
        loaded = true
        publish(.tokenRefreshed(saved))

        if let expiresAt = saved.expiresAt {
            try SessionTimeLimits.requireLifetime(minTTL, of: "renewed token", expiresAt: expiresAt, now: clock.now, provider: key.provider)
        }
        return saved
    }

    // MARK: Renewed sessions the store refused

    /// Saves a renewed session, trying twice more (after 100 and 300 ms) when the store's failure is
    /// retryable: a dropped connection should not leave the lock's next holder the spent token.
    private func saveRenewed(_ session: Session, expectedVersion: UInt64) async throws -> Session {
        var pauses: [Duration] = [.milliseconds(100), .milliseconds(300)]
        while true {
            do {
                return try await sessionStore.save(session, for: key, expectedVersion: expectedVersion)
            } catch let error as AuthError where error.code != .conflict && error.isRetryable && !pauses.isEmpty {
                logger.debug("storing the renewed session failed; trying again", metadata: ["error": "\(error.code)"])
                try? await clock.sleep(for: pauses.removeFirst())
            }
        }
    }

    /// Keeps a renewed session the store refused: in memory (it is returned and cached, at the
    /// version it replaces) and written again later.
    private func keepUnsaved(_ session: Session, expectedVersion: UInt64, failure: AuthError) -> Session {
        var kept = session
        kept.version = expectedVersion
        unsaved = (kept, expectedVersion)
        logger.warning("the renewed session could not be stored; kept in memory and written again later",
                       metadata: ["error": "\(failure.code)"])
        unsavedRetry?.cancel()
        unsavedRetry = Task { [clock] in
            var pause = Duration.milliseconds(500)
            for _ in 0..<Self.unsavedRetryAttempts {
                do { try await clock.sleep(for: pause) } catch { return }
                guard await self.retryUnsaved() else { return }
                pause = min(pause * 2, Self.unsavedRetryMaxPause)
            }
        }
        return kept
    }

    /// One background attempt; returns whether to go on trying.
    private func retryUnsaved() async -> Bool {
        guard unsaved != nil else { return false }
        return (try? await writeUnsaved()) != true
    }

    /// Writes the renewed session the store refused before. Returns true when nothing is left
    /// unsaved (written, or dropped because another writer replaced the stored session meanwhile),
    /// false when the store still fails.
    private func writeUnsaved() async throws -> Bool {
        guard let (session, expected) = unsaved else { return true }
        do {
            let saved = try await sessionStore.save(session, for: key, expectedVersion: expected)
            // Still the same pending write (no sign-in or sign-out ran while this one was away)?
            if unsaved?.expectedVersion == expected, unsaved?.session.accessToken == session.accessToken {
                unsaved = nil
                cached = saved
                loaded = true
                logger.info("the renewed session kept in memory is stored now")
            }
            return true
        } catch let error as AuthError where error.code == .conflict {
            logger.warning("a renewed session kept in memory was replaced in the store by another writer; using the stored one")
            dropUnsaved()
            loaded = false
            return true
        } catch {
            logger.debug("the renewed session kept in memory still cannot be stored", metadata: ["error": "\(storageError(error).code)"])
            return false
        }
    }

    private func dropUnsaved() {
        unsaved = nil
        unsavedRetry?.cancel()
        unsavedRetry = nil
    }

    /// Whether a renewed session is waiting to be stored (see the type's notes).
    public var hasUnsavedSession: Bool { unsaved != nil }

    /// Writes a renewed session that the store refused (kept in memory) now, before the program
    /// exits: with rotating refresh tokens it holds the only refresh token still valid. Nothing to do
    /// when no session is waiting, or when another writer replaced the stored one meanwhile.
    /// - Throws: ``AuthErrorCode/storageFailure`` when the store still refuses it (the session is still
    ///   kept in memory, and still tried again in the background).
    public func storeUnsaved() async throws {
        guard let (session, expected) = unsaved else { return }
        do {
            let saved = try await sessionStore.save(session, for: key, expectedVersion: expected)
            if unsaved?.expectedVersion == expected, unsaved?.session.accessToken == session.accessToken {
                dropUnsaved()
                cached = saved
                loaded = true
            }
        } catch let error as AuthError where error.code == .conflict {
            dropUnsaved()
            loaded = false
        } catch {
            let failure = storageError(error)
            throw AuthError(.storageFailure,
                            message: "The renewed session of \(key) could not be stored: \(failure.message)",
                            provider: key.provider, isRetryable: failure.isRetryable, underlying: failure)
        }
    }

    // MARK: Changes made elsewhere

    /// Applies a change another user of the store made (from an ``ObservableSessionStore``'s feed;
    /// ``AuthHub`` calls this for its managers): reads the session again and publishes what happened
    /// — `signedIn` or `tokenRefreshed` for a newer version, `signedOut` for a removal. A change this
    /// manager already has (the same or an older version) is ignored. When the store cannot be read,
    /// the cache is dropped and the next call reads the store.
    public func storeDidChange(_ change: SessionStoreChange) async {
        if let changed = change.key, changed != key { return }
        let before = loaded ? cached : nil
        switch change {
        case .removed:
            dropUnsaved()
            let hadSession = !loaded || cached != nil
            cached = nil
            loaded = true
            if hadSession { publish(.signedOut(key)) }
        case .saved(_, let version, let signIn):
            if loaded, let cached, cached.version >= version, unsaved == nil { return }
            let now: Session?
            do { now = try await reload() } catch {
                loaded = false
                return
            }
            guard let now else {
                // Removed again since; the removal's own notice publishes it.
                return
            }
            if let before {
                if now.version > before.version { publish(signIn ? .signedIn(now) : .tokenRefreshed(now)) }
            } else {
                publish(.signedIn(now))
            }
        case .resynchronize:
            guard loaded else { return }
            let now: Session?
            do { now = try await reload() } catch {
                loaded = false
                return
            }
            switch (before, now) {
            case (nil, nil):
                break
            case (_?, nil):
                publish(.signedOut(key))
            case (nil, let now?):
                publish(.signedIn(now))
            case (let before?, let now?) where now.version != before.version:
                // A renewal keeps the sign-in time; a new sign-in has its own.
                publish(now.issuedAt == before.issuedAt ? .tokenRefreshed(now) : .signedIn(now))
            default:
                break
            }
        }
    }

    // MARK: Invalid refresh tokens

    private func handleInvalidRefreshToken(_ stored: Session, error: AuthError, minTTL: TimeInterval) async throws -> Session {
        // Clear only if the store still holds the session whose token was rejected; if someone
        // rotated it meanwhile, theirs is the live one.
        let now = try await loadFromStore()
        if let now, now.version != stored.version {
            cached = now
            if now.isValid(at: clock.now, minTTL: minTTL) { return now }
            throw error
        }
        if now != nil { try await mapStoreErrors { try await sessionStore.remove(key) } }
        cached = nil
        loaded = true
        logger.info("refresh token rejected by the provider; session cleared")
        publish(.sessionExpired(key))
        throw error
    }

    // MARK: Helpers

    /// The session a renewal leaves: what the provider's reply said, completed from the stored
    /// session where the reply is silent. Providers return only what the server said; this is the one
    /// place where a renewal is merged.
    ///
    /// - a reply without a refresh token (or with an empty one) keeps the stored one (no rotation);
    /// - a reply without an ID token keeps the stored ID token, user id and claims (claims are kept
    ///   also when the reply has an ID token but the provider produced no claims);
    /// - a reply without `scope` has the scope that was asked for, else the stored one (RFC 6749,
    ///   section 5.1: an omitted scope is the requested one);
    /// - extras and secret extras are the stored ones updated by the reply's;
    /// - the sign-in time (`issuedAt`) is the stored one unless the reply set one.
    package static func merge(renewed: Session, into stored: Session, requestedScope: String?, key: SessionKey) -> Session {
        var merged = renewed
        merged.providerID = key.provider
        merged.accountKey = key.account
        if merged.refreshToken.map({ $0.isEmpty }) ?? true { merged.refreshToken = stored.refreshToken }
        if merged.idToken.map({ $0.isEmpty }) ?? true { merged.idToken = stored.idToken }
        if merged.userID == nil { merged.userID = stored.userID }
        if merged.claims.isEmpty { merged.claims = stored.claims }
        if merged.scope == nil { merged.scope = requestedScope ?? stored.scope }
        merged.extras = stored.extras.merging(merged.extras) { _, new in new }
        merged.secretExtras = stored.secretExtras.merging(merged.secretExtras) { _, new in new }
        if merged.issuedAt == nil { merged.issuedAt = stored.issuedAt }
        return merged
    }

    /// Whether the requested scope differs from the stored one (compared as sets of lowercased
    /// tokens; a nil on either side means no change).
    public static func scopeChanged(stored: String?, requested: String?) -> Bool {
        guard let stored, let requested else { return false }
        return Session.scopeSet(stored) != Session.scopeSet(requested)
    }

    private func loadFromStore() async throws -> Session? {
        try await mapStoreErrors { try await sessionStore.load(key) }
    }

    private func mapStoreErrors<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch { throw storageError(error) }
    }

    private func storageError(_ error: any Error) -> AuthError {
        if let e = error as? AuthError { return e }
        return AuthError(.storageFailure, message: "The session store failed for \(key).", provider: key.provider,
                         underlying: error)
    }

    private func noSessionError() -> AuthError {
        AuthError(.noSession, message: "No session is stored for \(key); sign in first.", provider: key.provider)
    }

    private func publish(_ event: AuthEvent) {
        broadcaster.publish(event)
        sink?(event)
    }
}

/// One published state of a ``SessionManager``'s cached session (see
/// ``SessionManager/cachedSnapshot(minTTL:scope:)``): immutable, made anew at each change.
package final class CachedSessionSnapshot: Sendable {
    package let session: Session
    /// ``Session/expiresAt`` of ``session``, read without copying the session out.
    package let expiresAt: Date?
    init(_ session: Session) {
        self.session = session
        expiresAt = session.expiresAt
    }
}
