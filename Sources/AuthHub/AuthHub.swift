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
    /// What a sign-in does while a session is stored for its key: replace it and revoke it in the
    /// background (the default), or refuse (see ``SignInPolicy``). Every sign-in of the hub follows it.
    public let signInPolicy: SignInPolicy
    private let providersByID: [String: any AuthProvider]
    private let refreshLock: any RefreshLock
    private let managers = Mutex(SessionManagerTable(capacity: AuthHub.managerCapacity))
    /// AuthHub-held factors: the service in use and the sign-ins waiting for their second step.
    package let heldFactorGate: HeldFactorGate
    /// How many session managers a hub keeps before it drops idle ones: a server that signs in a
    /// new account for every browser session (AuthHubHummingbird) would otherwise keep one manager,
    /// and its cached tokens, per sign-in for as long as it runs.
    public static var managerCapacity: Int { 1_024 }
    private let broadcaster = EventBroadcaster()
    /// Follows the store's change feed (``ObservableSessionStore``) while the hub lives.
    private let changeFollower = Mutex<Task<Void, Never>?>(nil)
    /// What the hub made from its configuration and releases in ``shutdown()``: the session store and
    /// the transport, when they hold resources (a connection pool, a change feed, an HTTP client).
    private let ownedResources: [any Shutdownable]

    /// Builds every provider of an environment.
    /// - Parameters:
    ///   - environment: a validated environment (see `ConfigLoader`).
    ///   - registry: the provider types known to the app.
    ///   - context: transport, clock, randomness and logger handed to every provider. A transport
    ///     set in it explicitly wins; otherwise the environment's `transport` is built (through the
    ///     registry's ``TransportFactory`` for it; `urlsession` when the file names none).
    ///   - store: overrides the environment's `sessionStore`.
    ///   - baseDirectory: relative store paths are resolved against it (the config file's folder).
    ///   - signInPolicy: signing in while signed in (``SignInPolicy/replace`` by default).
    ///   - wrapTransport: wraps the transport the providers use (the context's or the environment's),
    ///     e.g. to log or to tell a terminal user that a reply is slow.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` for an unknown type, a transport no
    ///   registered factory builds, or a plugin's refusal.
    public init(environment: EnvironmentConfiguration, registry: ProviderRegistry, context: ProviderContext = ProviderContext(),
                store: (any SessionStore)? = nil, baseDirectory: URL? = nil, signInPolicy: SignInPolicy = .replace,
                wrapTransport: ((any HTTPTransport) -> any HTTPTransport)? = nil) throws {
        self.environment = environment
        self.signInPolicy = signInPolicy
        var context = context
        var ownedResources: [any Shutdownable] = []
        if context.explicitTransport == nil {
            context.transport = try registry.makeTransport(named: environment.transport, logger: context.logger)
            if let owned = context.transport as? any Shutdownable { ownedResources.append(owned) }
            context.logger.debug("transport from providers.json",
                                 metadata: ["transport": .string(environment.transport ?? TransportName.urlSession)])
        }
        if let wrapTransport { context.transport = wrapTransport(context.transport) }
        self.context = context
        self.heldFactorGate = HeldFactorGate(clock: context.clock, random: context.random)
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
        if store == nil, let owned = resolvedStore as? any Shutdownable { ownedResources.append(owned) }
        self.ownedResources = ownedResources
        self.refreshLock = resolvedStore.makeRefreshLock()
        if let settings = environment.heldFactors {
            guard let factory = registry.heldFactorFactory else {
                throw AuthError(.invalidConfiguration, message: "heldFactors: no held-factor factory is registered "
                                    + "(ProviderRegistry.builtIn has AuthHubFactors'; registry.registering(heldFactorFactory:) adds one).")
            }
            heldFactorGate.use(try factory.makeService(settings, store: (resolvedStore as? any HeldFactorStoring)?.heldFactorStore, context: context))
        }
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
            for manager in managers.withLock({ $0.managers }) { await manager.storeDidChange(change) }
            return
        }
        guard providersByID[key.provider] != nil else { return }
        if let manager = managers.withLock({ $0.existing(key) }) {
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
            table.manager(for: key) {
                let broadcaster = self.broadcaster
                return SessionManager(key: key, provider: p, store: store, refreshLock: refreshLock, clock: context.clock,
                                      logger: context.logger, telemetry: context.telemetry, eventSink: { broadcaster.publish($0) },
                                      heldFactorGate: heldFactorGate)
            }
        }
    }

    /// The session of a provider account when its manager has it cached, loaded and valid for at
    /// least `minTTL` seconds (``SessionManager/cachedSession(minTTL:scope:)``); nil otherwise,
    /// including for an unknown provider. Never reads the store, never renews, never waits: a web
    /// server answers most requests of a signed-in user from it without suspending, and calls
    /// ``session(provider:account:minTTL:scope:)`` when it is nil.
    public func cachedSession(provider id: String? = nil, account: String = SessionKey.defaultAccount, minTTL: TimeInterval = 60,
                              scope: String? = nil) -> Session? {
        let key = SessionKey(provider: id ?? environment.defaultProvider, account: account)
        return managers.withLock { $0.use(key) }?.cachedSession(minTTL: minTTL, scope: scope)
    }

    /// ``cachedSession(provider:account:minTTL:scope:)`` with the manager that holds it (nil for
    /// none), as ``SessionManager/cachedSnapshot(minTTL:scope:)``'s object.
    package func cachedSnapshot(provider id: String, account: String, minTTL: TimeInterval = 60,
                                scope: String? = nil) -> (snapshot: CachedSessionSnapshot?, manager: SessionManager)? {
        let key = SessionKey(provider: id, account: account)
        guard let manager = managers.withLock({ $0.use(key) }) else { return nil }
        return (manager.cachedSnapshot(minTTL: minTTL, scope: scope), manager)
    }

    /// Writes every renewed session that a store refused and a manager of this hub keeps in memory
    /// (``SessionManager/storeUnsaved()``): call it before a program exits, so that a renewal (and
    /// with rotating refresh tokens, the only valid refresh token) is not lost with the process.
    /// - Throws: the first ``AuthErrorCode/storageFailure``, after trying every manager.
    public func storeUnsavedSessions() async throws {
        var first: (any Error)?
        for manager in managers.withLock({ $0.managers }) where await manager.hasUnsavedSession {
            do { try await manager.storeUnsaved() } catch { first = first ?? error }
        }
        if let first { throw first }
    }

    /// Waits until the revocations of replaced sessions that this hub's managers run in the
    /// background have ended (each bounded by ``SignInPolicy/revocationTimeout``), and stores
    /// renewed sessions a store refused (``storeUnsavedSessions()``): call it before a program
    /// exits, so that neither a replaced session's revocation nor a renewal is lost with it.
    /// - Throws: the first ``AuthErrorCode/storageFailure`` of ``storeUnsavedSessions()``.
    public func finishBackgroundWork() async throws {
        for manager in managers.withLock({ $0.managers }) { await manager.backgroundRevocationsFinished() }
        try await storeUnsavedSessions()
    }

    /// Ends the hub before the program or server stops: ``finishBackgroundWork()``, then stops
    /// following the store's change feed and shuts down what the hub made from its configuration and
    /// holds resources (``Shutdownable``: the PostgreSQL store's connections and change feed, a
    /// transport's own HTTP client). A store or transport the app passed in is the app's to shut down.
    /// The hub must not be used afterwards. The web adapters call it from their frameworks'
    /// lifecycles (Vapor's shutdown, a Hummingbird service's graceful shutdown).
    /// - Throws: the first error of ``finishBackgroundWork()`` or of a shutdown; every step runs.
    public func shutdown() async throws {
        var first: (any Error)?
        do { try await finishBackgroundWork() } catch { first = error }
        changeFollower.withLock { task in
            task?.cancel()
            task = nil
        }
        for resource in ownedResources {
            do { try await resource.shutdown() } catch { first = first ?? error }
        }
        if let first { throw first }
    }

    /// How many managers the hub holds now (for tests).
    package var managerCount: Int { managers.withLock { $0.count } }

    /// Every session event of every provider account of this hub — and, with a store that reports
    /// other replicas' changes (``ObservableSessionStore``, e.g. PostgreSQL), theirs too: another
    /// replica's sign-in, renewal and sign-out arrive here as `signedIn`, `tokenRefreshed` and
    /// `signedOut` (a session the provider ended elsewhere arrives as `signedOut`).
    public func events() -> AsyncStream<AuthEvent> { broadcaster.subscribe() }

    func mapped<T>(_ p: any AuthProvider, _ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch { throw AuthError.wrap(error, provider: p.id) }
    }
}
