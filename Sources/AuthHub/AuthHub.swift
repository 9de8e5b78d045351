import Foundation
import Logging
import Tracing

/// The one entry point of an app: routes sign-in, sign-up, sessions and sign-out to the provider
/// named (or the environment's default), stores sessions, and publishes every session event.
///
/// ```swift
/// let hub = try AuthHub.load(registry: .builtIn)            // ./providers.json, $AUTHHUB_ENV
/// try await hub.signIn(.password(identifier: "a@b.c", password: Secret(pw)))
/// let session = try await hub.session()                      // renewed when needed
/// ```
///
/// Every error is an ``AuthError`` mapped by the provider that produced it.
public final class AuthHub: Sendable {
    /// The environment this hub runs.
    public let environment: EnvironmentConfiguration
    /// Where sessions are kept.
    public let store: any SessionStore
    /// What providers were built with (transport, clock, logger).
    public let context: ProviderContext
    private let providersByID: [String: any AuthProvider]
    private let refreshLock: any RefreshLock
    private let managers = Mutex(ManagerTable())
    /// The managers of this hub by key, each with the tick of its last use.
    struct ManagerTable {
        struct Slot {
            var manager: SessionManager
            var lastUse: UInt64
        }
        var slots: [SessionKey: Slot] = [:]
        var tick: UInt64 = 0
        var sweepAbove = AuthHub.managerCapacity
    }
    /// How many session managers a hub keeps before it drops idle ones: a server that signs in a
    /// new account for every browser session (AuthHubHummingbird) would otherwise keep one manager,
    /// and its cached tokens, per sign-in for as long as it runs.
    public static var managerCapacity: Int { 1_024 }
    private let broadcaster = EventBroadcaster()
    /// Follows the store's change feed (``ObservableSessionStore``) while the hub lives.
    private let changeFollower = Mutex<Task<Void, Never>?>(nil)

    /// Builds every provider of an environment.
    /// - Parameters:
    ///   - environment: a validated environment (see `ConfigLoader`).
    ///   - registry: the provider types known to the app.
    ///   - context: transport, clock, randomness and logger handed to every provider. A transport
    ///     set in it explicitly wins; otherwise the environment's `transport` is built (through the
    ///     registry's ``TransportFactory`` for it; `urlsession` when the file names none).
    ///   - store: overrides the environment's `sessionStore`.
    ///   - baseDirectory: relative store paths are resolved against it (the config file's folder).
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` for an unknown type, a transport no
    ///   registered factory builds, or a plugin's refusal.
    public init(environment: EnvironmentConfiguration, registry: ProviderRegistry, context: ProviderContext = ProviderContext(),
                store: (any SessionStore)? = nil, baseDirectory: URL? = nil) throws {
        self.environment = environment
        var context = context
        if context.explicitTransport == nil {
            context.transport = try registry.makeTransport(named: environment.transport, logger: context.logger)
            context.logger.debug("transport from providers.json",
                                 metadata: ["transport": .string(environment.transport ?? TransportName.urlSession)])
        }
        self.context = context
        var built: [String: any AuthProvider] = [:]
        for entry in environment.providers {
            guard let plugin = registry.plugin(for: entry.type) else {
                throw AuthError(.invalidConfiguration,
                                message: "\(entry.path).type: unknown provider type '\(entry.type)' (known: \(registry.types.joined(separator: ", ")))")
            }
            var providerContext = context
            providerContext.logger[metadataKey: "provider"] = .string(entry.id)
            do {
                built[entry.id] = try plugin.makeProvider(entry, context: providerContext)
            } catch {
                throw AuthError.wrap(error, provider: entry.id)
            }
        }
        self.providersByID = built
        let resolvedStore = try store ?? AuthHub.makeStore(environment.sessionStore, registry: registry, baseDirectory: baseDirectory,
                                                           logger: context.logger)
        self.store = resolvedStore
        self.refreshLock = resolvedStore.makeRefreshLock()
        if let observable = resolvedStore as? any ObservableSessionStore {
            let changes = observable.changes()
            changeFollower.withLock {
                $0 = Task { [weak self] in
                    for await change in changes {
                        guard let self else { return }
                        await self.storeDidChange(change)
                    }
                }
            }
        }
    }

    deinit { changeFollower.withLock { $0 }?.cancel() }

    /// Applies a change another replica made to the shared store: the key's manager (if this hub has
    /// one) reads the session again and publishes the event through the hub; without a manager the
    /// event is published directly, when anyone listens. Keys of providers this environment does not
    /// have are ignored.
    func storeDidChange(_ change: SessionStoreChange) async {
        guard let key = change.key else {
            for manager in managers.withLock({ $0.slots.values.map(\.manager) }) { await manager.storeDidChange(change) }
            return
        }
        guard providersByID[key.provider] != nil else { return }
        if let manager = managers.withLock({ $0.slots[key]?.manager }) {
            await manager.storeDidChange(change)
            return
        }
        guard broadcaster.hasSubscribers else { return }
        switch change {
        case .saved(_, _, let signIn):
            guard let session = try? await store.load(key) else { return }
            broadcaster.publish(signIn ? .signedIn(session) : .tokenRefreshed(session))
        case .removed:
            broadcaster.publish(.signedOut(key))
        case .resynchronize:
            break
        }
    }

    /// The store of `configuration`: memory and file stores are built here, every other type by the
    /// ``SessionStoreFactory`` registered for it.
    static func makeStore(_ configuration: SessionStoreConfiguration, registry: ProviderRegistry, baseDirectory: URL?,
                          logger: Logger) throws -> any SessionStore {
        switch configuration {
        case .memory:
            return InMemorySessionStore()
        case .file(let path, let key):
            let url: URL
            if path.hasPrefix("/") {
                url = URL(fileURLWithPath: path)
            } else {
                let base = baseDirectory ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
                url = base.appendingPathComponent(path)
            }
            return try FileSessionStore(directory: url, encryptionKey: key, logger: logger)
        case .plugin(var settings):
            guard let factory = registry.storeFactory(for: settings.type) else {
                let shown = ConfigValidator.looksLikeName(settings.type) ? "'\(settings.type)'" : "(name not shown)"
                throw AuthError(.invalidConfiguration,
                                message: "\(settings.path.isEmpty ? "sessionStore" : settings.path).type: no store factory is registered for "
                                    + "session store type \(shown) (known: \(registry.storeTypes.joined(separator: ", "))): register the "
                                    + "SessionStoreFactory of the module that provides it (registry.registering(storeFactory: …)).")
            }
            if settings.baseDirectory == nil { settings.baseDirectory = baseDirectory }
            return try factory.makeStore(settings, logger: logger)
        }
    }

    // MARK: Providers

    /// The provider ids in providers.json order.
    public var providerIDs: [String] { environment.providers.map(\.id) }

    /// The provider with `id`, or the environment's default.
    public func provider(_ id: String? = nil) throws -> any AuthProvider {
        let id = id ?? environment.defaultProvider
        guard let provider = providersByID[id] else {
            throw AuthError(.invalidConfiguration,
                            message: "No provider '\(id)' in environment '\(environment.name)' (have: \(providerIDs.joined(separator: ", "))).")
        }
        return provider
    }

    /// The provider with `id` as its concrete type, for provider-specific APIs.
    public func provider<P: AuthProvider>(_ id: String, as type: P.Type) throws -> P {
        let p = try provider(id)
        guard let typed = p as? P else {
            throw AuthError(.invalidConfiguration, message: "Provider '\(id)' is of type '\(p.type)', not \(P.self).", provider: id)
        }
        return typed
    }

    /// The session manager of a provider account (one per key, created on first use).
    ///
    /// The hub keeps up to ``managerCapacity`` managers. Beyond that, creating one drops the least
    /// recently used *idle* managers that nobody else holds (``SessionManager/isIdle``: nothing
    /// running, nothing unsaved, no event listener) down to half of it; their sessions stay in the
    /// store and the next call for their key reads it again. A manager in use is never dropped, so
    /// one key never has two managers at once in a hub.
    public func manager(provider id: String? = nil, account: String = SessionKey.defaultAccount) throws -> SessionManager {
        let p = try provider(id)
        let key = SessionKey(provider: p.id, account: account)
        return managers.withLock { table in
            table.tick &+= 1
            if let index = table.slots.index(forKey: key) {
                table.slots.values[index].lastUse = table.tick
                return table.slots.values[index].manager
            }
            let broadcaster = self.broadcaster
            let m = SessionManager(key: key, provider: p, store: store, refreshLock: refreshLock, clock: context.clock,
                                   logger: context.logger, telemetry: context.telemetry, eventSink: { broadcaster.publish($0) })
            table.slots[key] = ManagerTable.Slot(manager: m, lastUse: table.tick)
            if table.slots.count > table.sweepAbove { Self.dropIdleManagers(&table) }
            return m
        }
    }

    /// Drops the least recently used idle managers that only the table holds, down to half of
    /// ``managerCapacity``; the next sweep waits until the table has doubled (or reached the capacity),
    /// so a hub whose managers are all in use does not sweep at every call.
    private static func dropIdleManagers(_ table: inout ManagerTable) {
        var idle: [(key: SessionKey, lastUse: UInt64)] = []
        // Walked by hand: `indices` holds a copy of the dictionary, and with it every manager would
        // look shared (the in-place access below would copy the storage).
        var index = table.slots.startIndex
        while index != table.slots.endIndex {
            // Only the table holds it: no caller is in the middle of using it, and none can get it
            // while the table's lock is held.
            if isKnownUniquelyReferenced(&table.slots.values[index].manager), table.slots.values[index].manager.isIdle {
                idle.append((table.slots.keys[index], table.slots.values[index].lastUse))
            }
            table.slots.formIndex(after: &index)
        }
        let excess = table.slots.count - managerCapacity / 2
        for entry in idle.sorted(by: { $0.lastUse < $1.lastUse }).prefix(max(excess, 0)) {
            table.slots[entry.key] = nil
        }
        table.sweepAbove = max(managerCapacity, table.slots.count * 2)
    }

    /// Writes every renewed session that a store refused and a manager of this hub keeps in memory
    /// (``SessionManager/storeUnsaved()``): call it before a program exits, so that a renewal (and
    /// with rotating refresh tokens, the only valid refresh token) is not lost with the process.
    /// - Throws: the first ``AuthErrorCode/storageFailure``, after trying every manager.
    public func storeUnsavedSessions() async throws {
        var first: (any Error)?
        for manager in managers.withLock({ $0.slots.values.map(\.manager) }) where await manager.hasUnsavedSession {
            do { try await manager.storeUnsaved() } catch { first = first ?? error }
        }
        if let first { throw first }
    }

    /// How many managers the hub holds now (for tests).
    package var managerCount: Int { managers.withLock { $0.slots.count } }

    // MARK: Operations

    /// Signs in, stores the session and publishes `signedIn`.
    ///
    /// **Signing in while signed in** (a session is stored for the same provider and account) follows
    /// one rule for every provider: the new session *replaces* the old one, and the old one is
    /// revoked at the provider (best effort: a failed revocation is logged, not thrown) — the way
    /// Firebase and Auth0.swift replace the current user. One exception: signing in with an emailed
    /// code while signed in as a *guest* of a ``GuestUpgradingProvider`` (Openfort) upgrades that
    /// guest — the same user — instead. To keep several sessions of one provider, use `account`.
    @discardableResult
    public func signIn(_ request: SignInRequest, provider id: String? = nil, account: String = SessionKey.defaultAccount) async throws -> Session {
        let p = try provider(id)
        return try await observedSignIn(provider: p.id, method: request.methodName) {
            let m = try manager(provider: p.id, account: account)
            let previous = try? await m.current()
            if let previous, case .emailCode = request, let upgrading = p as? any GuestUpgradingProvider, upgrading.isGuest(previous) {
                let session = try await mapped(p) { try await upgrading.signIn(request, upgrading: previous) }
                return try await m.store(session)
            }
            let session = try await mapped(p) { try await p.signIn(request) }
            return try await replace(previous, with: session, provider: p, manager: m)
        }
    }

    // MARK: Telemetry

    /// Runs a sign-in in an `authhub.sign_in` span and counts it (``AuthTelemetry/MetricName/signIns``);
    /// the span carries the subject only when the app opted in to user ids.
    private func observedSignIn(provider: String, method: String, isolation: isolated (any Actor)? = #isolation,
                                _ body: () async throws -> Session) async throws -> Session {
        let telemetry = context.telemetry
        return try await observed(AuthTelemetry.SpanName.signIn, counter: AuthTelemetry.MetricName.signIns, provider: provider,
                                  dimensions: [("method", method)]) { span in
            let session = try await body()
            if telemetry.recordsUserIDs, let user = session.userID { span.attributes["enduser.id"] = user }
            return session
        }
    }

    /// Runs `body` in a span named `name` and increments `counter` by provider, the extra
    /// dimensions and the outcome (`success` or the error code).
    private func observed<T>(_ name: String, counter: String, provider: String, dimensions: [(String, String)] = [],
                             isolation: isolated (any Actor)? = #isolation,
                             _ body: (any Span) async throws -> T) async throws -> T {
        let telemetry = context.telemetry
        var attributes = ["authhub.provider": provider]
        for (key, value) in dimensions { attributes["authhub." + key] = value }
        do {
            let value = try await telemetry.withSpan(name, attributes: attributes) { span in
                let value = try await body(span)
                span.attributes["authhub.outcome"] = "success"
                return value
            }
            telemetry.increment(counter, [("provider", provider)] + dimensions + [("outcome", "success")])
            return value
        } catch {
            telemetry.increment(counter, [("provider", provider)] + dimensions + [("outcome", AuthTelemetry.outcome(error))])
            throw error
        }
    }

    /// Stores `session` in place of `previous` and revokes `previous` at the provider (best effort)
    /// unless it is the same session.
    private func replace(_ previous: Session?, with session: Session, provider p: any AuthProvider,
                         manager m: SessionManager) async throws -> Session {
        let stored = try await m.store(session)
        if let previous, previous.refreshToken != session.refreshToken || previous.accessToken != session.accessToken {
            do {
                try await p.signOut(previous)
            } catch {
                context.logger.notice("the replaced session could not be revoked",
                                      metadata: ["provider": "\(p.id)", "error": "\(AuthError.wrap(error, provider: p.id).code)"])
            }
        }
        return stored
    }

    /// Signs in through the user's browser (``BrowserSignInProvider``: Auth0 Web Auth, generic
    /// OpenID Connect) with an RFC 8252 loopback redirect, and stores the session.
    /// - Parameters:
    ///   - options: per-sign-in choices (audience, scope, organization, prompt, `max_age`, …).
    ///   - timeout: how long to wait for the browser's redirect.
    ///   - open: shows the sign-in URL (opens a browser, or prints it); it must return at once.
    /// - Throws: ``AuthErrorCode/unsupported`` for a provider without browser sign-in or an option
    ///   it cannot honour; every error of the flow.
    public func signInWithBrowser(provider id: String? = nil, account: String = SessionKey.defaultAccount,
                                  options: BrowserSignInOptions = BrowserSignInOptions(), timeout: Duration = .seconds(300),
                                  open: @Sendable (URL) async throws -> Void) async throws -> Session {
        let p = try provider(id)
        guard let browser = p as? any BrowserSignInProvider else {
            throw AuthError(.unsupported, message: "Browser sign-in is not available for provider '\(p.id)'.", provider: p.id)
        }
        return try await observedSignIn(provider: p.id, method: "browser") {
            let m = try manager(provider: p.id, account: account)
            let previous = try? await m.current()
            let session = try await mapped(p) { try await browser.signInWithBrowser(timeout: timeout, options: options, open: open) }
            return try await replace(previous, with: session, provider: p, manager: m)
        }
    }

    /// A device sign-in (RFC 8628: the device shows a code, the user approves elsewhere) whose session
    /// is stored when approved, replacing a stored one as ``signIn(_:provider:account:)`` does.
    ///
    /// ```swift
    /// let flow = try hub.deviceSignIn(provider: "auth0")
    /// let code = try await flow.start()               // show code.userCode at code.verificationURI
    /// let session = try await flow.waitForApproval()  // stored
    /// ```
    /// - Throws: ``AuthErrorCode/unsupported`` for a provider without device sign-in.
    public func deviceSignIn(provider id: String? = nil, account: String = SessionKey.defaultAccount,
                             options: DeviceSignInOptions = DeviceSignInOptions()) throws -> DeviceSignInFlow {
        let p = try provider(id)
        guard let device = p as? any DeviceSignInProvider else {
            throw AuthError(.unsupported, message: "Device sign-in is not available for provider '\(p.id)'.", provider: p.id)
        }
        let m = try manager(provider: p.id, account: account)
        let telemetry = context.telemetry
        return DeviceSignInFlow(provider: device, options: options, clock: context.clock, complete: { [self] session in
            let previous = try? await m.current()
            return try await replace(previous, with: session, provider: p, manager: m)
        }, finished: { result in
            let outcome: String
            switch result {
            case .success: outcome = "success"
            case .failure(let error): outcome = AuthTelemetry.outcome(error)
            }
            telemetry.increment(AuthTelemetry.MetricName.signIns, [("provider", p.id), ("method", "device"), ("outcome", outcome)])
        })
    }

    /// Starts a passwordless sign-in (sends a code).
    public func startSignIn(_ request: SignInStartRequest, provider id: String? = nil) async throws -> SignInChallenge {
        let p = try provider(id)
        return try await mapped(p) { try await p.startSignIn(request) }
    }

    /// Creates an account; stores the session when the provider signs the user in at once.
    @discardableResult
    ///
    /// While signed in as a guest of a ``GuestUpgradingProvider`` (Openfort), the guest is upgraded:
    /// the same user gets the email and password. Otherwise a stored session is replaced by the new
    /// account's (and revoked), as for ``signIn(_:provider:account:)``.
    public func signUp(_ request: SignUpRequest, provider id: String? = nil, account: String = SessionKey.defaultAccount) async throws -> SignUpResult {
        let p = try provider(id)
        return try await observed(AuthTelemetry.SpanName.signUp, counter: AuthTelemetry.MetricName.signUps, provider: p.id) { _ in
            try await signUpUnobserved(request, provider: p, account: account)
        }
    }

    private func signUpUnobserved(_ request: SignUpRequest, provider p: any AuthProvider, account: String) async throws -> SignUpResult {
        let m = try manager(provider: p.id, account: account)
        let previous = try? await m.current()
        if let previous, let upgrading = p as? any GuestUpgradingProvider, upgrading.isGuest(previous) {
            let result = try await mapped(p) { try await upgrading.signUp(request, upgrading: previous) }
            if case .signedIn(let session) = result { return .signedIn(try await m.store(session)) }
            return result
        }
        let result = try await mapped(p) { try await p.signUp(request) }
        if case .signedIn(let session) = result {
            return .signedIn(try await replace(previous, with: session, provider: p, manager: m))
        }
        return result
    }

    /// Creates an account whose credential is a new passkey (``PasskeySignUpProvider``: Turnkey) and
    /// stores the session (replacing a stored one, as ``signIn(_:provider:account:)`` does).
    @discardableResult
    public func signUpWithPasskey(email: String, displayName: String? = nil, provider id: String? = nil,
                                  account: String = SessionKey.defaultAccount) async throws -> Session {
        let p = try provider(id)
        guard let passkeys = p as? any PasskeySignUpProvider else {
            throw AuthError(.unsupported, message: "'\(p.id)' does not create accounts with passkeys.", provider: p.id)
        }
        return try await observed(AuthTelemetry.SpanName.signUp, counter: AuthTelemetry.MetricName.signUps, provider: p.id,
                                  dimensions: [("method", "passkey")]) { _ in
            let m = try manager(provider: p.id, account: account)
            let previous = try? await m.current()
            let session = try await mapped(p) { try await passkeys.signUpWithPasskey(email: email, displayName: displayName) }
            return try await replace(previous, with: session, provider: p, manager: m)
        }
    }

    /// A session valid for at least `minTTL` seconds, renewed when needed (see ``SessionManager``).
    public func session(provider id: String? = nil, account: String = SessionKey.defaultAccount, minTTL: TimeInterval = 60,
                        scope: String? = nil) async throws -> Session {
        try await manager(provider: id, account: account).session(minTTL: minTTL, scope: scope)
    }

    /// Renews the session now.
    @discardableResult
    public func refresh(provider id: String? = nil, account: String = SessionKey.defaultAccount, scope: String? = nil) async throws -> Session {
        try await manager(provider: id, account: account).renew(scope: scope)
    }

    /// Signs out: asks the provider to revoke the session (when it can), then removes it locally
    /// whatever the provider answered, and publishes `signedOut`.
    /// - Returns: the revocation error, if the provider could not revoke (the local session is gone all the same) —
    ///   also the read error when the stored session could not be read, and was removed unrevoked.
    @discardableResult
    public func signOut(provider id: String? = nil, account: String = SessionKey.defaultAccount) async throws -> AuthError? {
        try await signOut(provider: id, account: account, browser: nil).revocationError
    }

    /// Signs out (``signOut(provider:account:)``) and, with `browser`, also builds the URL that ends
    /// the provider's browser session (``BrowserSignOutProvider``) — from the session's ID token
    /// before it is removed, with a fresh random `state` where the provider's logout takes one.
    /// Open ``SignOutResult/browserSignOutURL`` in the user's browser; whoever receives the
    /// post-logout redirect checks its `state` against ``SignOutResult/browserSignOutState``.
    /// - Throws: ``AuthErrorCode/unsupported`` (before anything is removed) when `browser` is given
    ///   and the provider has no browser sign-out; storage errors.
    public func signOut(provider id: String? = nil, account: String = SessionKey.defaultAccount,
                        browser: BrowserSignOut?) async throws -> SignOutResult {
        let p = try provider(id)
        return try await observed(AuthTelemetry.SpanName.signOut, counter: AuthTelemetry.MetricName.signOuts, provider: p.id) { span in
            let result = try await signOutUnobserved(provider: p, account: account, browser: browser)
            // Signed out locally either way; a failed revocation is recorded as its code.
            if let error = result.revocationError { span.attributes["authhub.revocation"] = error.code.rawValue }
            return result
        }
    }

    private func signOutUnobserved(provider p: any AuthProvider, account: String, browser: BrowserSignOut?) async throws -> SignOutResult {
        let m = try manager(provider: p.id, account: account)
        var browserProvider: (any BrowserSignOutProvider)?
        if browser != nil {
            guard let capable = p as? any BrowserSignOutProvider else {
                throw AuthError(.unsupported, message: "Provider '\(p.id)' cannot end its browser session.", provider: p.id)
            }
            browserProvider = capable
        }
        var revocationError: AuthError?
        // A stored session that cannot be read (damaged, out of range, not a regular file) cannot be
        // revoked, but signing out must still work: it is removed, and the read error says why it
        // was not revoked.
        let stored: Session?
        do {
            stored = try await m.current()
        } catch let error as AuthError where error.code == .storageFailure {
            context.logger.notice("the stored session cannot be read; removing it without revocation",
                                   metadata: ["provider": "\(p.id)"])
            stored = nil
            revocationError = error
        }
        var url: URL?
        var logoutState: String?
        if let browser, let browserProvider {
            // A fresh random state for each logout (RP-Initiated Logout's `state`); reported only
            // when the provider's URL carries it.
            let state = PKCE.randomToken(context.random)
            let built = try await mapped(p) {
                try await browserProvider.browserSignOutURL(idToken: stored?.idToken, returnTo: browser.returnTo, federated: browser.federated,
                                                            state: state)
            }
            url = built
            let items = URLComponents(url: built, resolvingAgainstBaseURL: false)?.queryItems ?? []
            if items.contains(where: { $0.name == "state" && $0.value == state }) { logoutState = state }
        }
        if let session = stored {
            do {
                try await p.signOut(session)
            } catch {
                let wrapped = AuthError.wrap(error, provider: p.id)
                revocationError = wrapped
                context.logger.notice("revocation failed; signed out locally",
                                       metadata: ["provider": "\(p.id)", "error": "\(wrapped.code)"])
            }
        }
        try await m.clear()
        return SignOutResult(hadSession: stored != nil || revocationError?.code == .storageFailure,
                             revocationError: revocationError, browserSignOutURL: url, browserSignOutState: logoutState)
    }

    /// Sends a password-reset email.
    public func sendPasswordReset(email: String, provider id: String? = nil) async throws {
        let p = try provider(id)
        try await mapped(p) { try await p.sendPasswordReset(email: email) }
    }

    /// The signed-in user, fetched from the provider.
    public func userInfo(provider id: String? = nil, account: String = SessionKey.defaultAccount) async throws -> UserInfo {
        let p = try provider(id)
        let session = try await self.session(provider: p.id, account: account)
        return try await mapped(p) { try await p.userInfo(session) }
    }

    /// Deletes the signed-in user's account at the provider and removes the local session.
    public func deleteAccount(provider id: String? = nil, account: String = SessionKey.defaultAccount) async throws {
        let p = try provider(id)
        let session = try await self.session(provider: p.id, account: account)
        try await mapped(p) { try await p.deleteAccount(session) }
        try await manager(provider: p.id, account: account).clear()
    }

    /// The ``EmailActionProvider`` behind `id`, or ``AuthErrorCode/unsupported`` naming `operation`.
    private func emailActions(_ p: any AuthProvider, _ operation: String) throws -> any EmailActionProvider {
        guard let actions = p as? any EmailActionProvider else {
            throw AuthError(.unsupported, message: "'\(p.id)' does not support \(operation) from the app (its emailed links complete on the provider's own pages).",
                            provider: p.id)
        }
        return actions
    }

    /// Sets a new password with the code from a password-reset message (``EmailActionProvider``).
    /// No session results: sign in with the new password.
    public func confirmPasswordReset(provider id: String? = nil, email: String? = nil, code: Secret<String>,
                                     newPassword: Secret<String>) async throws {
        let p = try provider(id)
        let actions = try emailActions(p, "confirming a password reset")
        try await mapped(p) { try await actions.confirmPasswordReset(email: email, code: code, newPassword: newPassword) }
    }

    /// Sends the signed-in user a message to verify their email address.
    public func sendEmailVerification(provider id: String? = nil, account: String = SessionKey.defaultAccount) async throws {
        let p = try provider(id)
        let actions = try emailActions(p, "email verification")
        let session = try await self.session(provider: p.id, account: account)
        try await mapped(p) { try await actions.sendEmailVerification(session) }
    }

    /// Verifies the email address with the code from the verification message; a stored session
    /// is then renewed, so that its claims show the verified address.
    /// - Returns: the renewed session, or nil when none is stored or it cannot be renewed.
    @discardableResult
    public func confirmEmailVerification(provider id: String? = nil, account: String = SessionKey.defaultAccount,
                                         code: Secret<String>) async throws -> Session? {
        let p = try provider(id)
        let actions = try emailActions(p, "email verification")
        let m = try manager(provider: p.id, account: account)
        let stored = try await m.current()
        try await mapped(p) { try await actions.confirmEmailVerification(code: code, session: stored) }
        guard let stored, stored.canRenew else { return nil }
        return try? await m.renew(scope: nil)
    }

    /// Every session event of every provider account of this hub — and, with a store that reports
    /// other replicas' changes (``ObservableSessionStore``, e.g. PostgreSQL), theirs too: another
    /// replica's sign-in, renewal and sign-out arrive here as `signedIn`, `tokenRefreshed` and
    /// `signedOut` (a session the provider ended elsewhere arrives as `signedOut`).
    public func events() -> AsyncStream<AuthEvent> { broadcaster.subscribe() }

    private func mapped<T>(_ p: any AuthProvider, _ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch { throw AuthError.wrap(error, provider: p.id) }
    }
}
