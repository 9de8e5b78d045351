import AuthHub
import AuthHubAsyncHTTPClient
import Foundation
import Vapor

/// What ``Application/useAuthHub(_:web:)`` keeps in the application's `Storage`.
struct AuthHubStorage: Sendable {
    let hub: AuthHub
    let web: AuthHubWeb?

    struct Key: StorageKey {
        typealias Value = AuthHubStorage
    }
}

extension Application {
    /// Installs `hub` (and, with a configuration, its browser sign-in as an ``AuthHubWeb``) in the
    /// application's storage, reached as ``authHub`` and ``authHubWeb`` (and on every request as
    /// `req.authHub`), and ties it to the application's lifecycle: at shutdown the hub's background
    /// work ends and what it made from providers.json is released (``AuthHub/shutdown()``: pending
    /// revocations, unsaved renewals, the PostgreSQL store's connections and change feed).
    ///
    /// <!-- example: context app: Application, hub: AuthHub -->
    /// ```swift
    /// try app.useAuthHub(hub, web: WebSignInConfiguration(publicBaseURL: URL(string: "https://app.example.com")!))
    /// try app.register(collection: AuthHubRoutes(app.authHubWeb))
    /// app.middleware.use(try AuthHubSessionAuthenticator(app.authHubWeb))
    /// ```
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` for a web configuration ``AuthHubWeb`` refuses,
    ///   or when a hub is installed already.
    @discardableResult
    public func useAuthHub(_ hub: AuthHub, web configuration: WebSignInConfiguration? = nil) throws -> AuthHubWeb? {
        let web = try configuration.map { try AuthHubWeb(hub: hub, configuration: $0) }
        try install(AuthHubStorage(hub: hub, web: web))
        return web
    }

    /// Installs a web integration made already, and its hub (see ``useAuthHub(_:web:)``).
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` when a hub is installed already.
    public func useAuthHub(_ web: AuthHubWeb) throws {
        try install(AuthHubStorage(hub: web.hub, web: web))
    }

    private func install(_ stored: AuthHubStorage) throws {
        guard storage[AuthHubStorage.Key.self] == nil else {
            throw AuthError(.invalidConfiguration, message: "An AuthHub is installed in this application already.")
        }
        storage[AuthHubStorage.Key.self] = stored
        lifecycle.use(AuthHubLifecycle(hub: stored.hub))
    }

    /// Loads providers.json into a hub whose providers talk through Vapor's own HTTP client
    /// (`app.http.client.shared`, AsyncHTTPClient on the application's event loops) and log through
    /// `app.logger`, and installs it (``useAuthHub(_:web:)``).
    /// - Parameters:
    ///   - registry: the provider plugins (`.builtIn` from AuthHubProviders, or your own).
    ///   - web: the browser sign-in, or nil for an API that only verifies bearer tokens.
    /// - Throws: what `AuthHub.load` throws (every configuration problem, with its JSON path).
    @discardableResult
    public func loadAuthHub(configPath: String = "providers.json", environment: String? = nil, registry: ProviderRegistry,
                            web: WebSignInConfiguration? = nil) throws -> AuthHub {
        var context = ProviderContext(transport: AsyncHTTPClientTransport(client: http.client.shared))
        context.logger = logger
        let hub = try AuthHub.load(configPath: configPath, environment: environment, registry: registry, context: context)
        try useAuthHub(hub, web: web)
        return hub
    }

    /// The hub installed by ``useAuthHub(_:web:)``.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` when none is.
    public var authHub: AuthHub {
        get throws { try requireAuthHubStorage().hub }
    }

    /// The browser sign-in installed by ``useAuthHub(_:web:)``.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` when none is.
    public var authHubWeb: AuthHubWeb {
        get throws {
            guard let web = try requireAuthHubStorage().web else {
                throw AuthError(.invalidConfiguration, message: "The AuthHub of this application has no web sign-in: pass a WebSignInConfiguration to useAuthHub.")
            }
            return web
        }
    }

    var authHubStorage: AuthHubStorage? { storage[AuthHubStorage.Key.self] }

    private func requireAuthHubStorage() throws -> AuthHubStorage {
        guard let stored = authHubStorage else {
            throw AuthError(.invalidConfiguration, message: "No AuthHub is installed in this application: call app.useAuthHub(_:web:) first.")
        }
        return stored
    }
}

extension Request {
    /// The application's hub (``Application/authHub``).
    public var authHub: AuthHub {
        get throws { try application.authHub }
    }
}

/// Ends the hub with the application (``AuthHub/shutdown()``).
struct AuthHubLifecycle: LifecycleHandler {
    let hub: AuthHub

    func shutdownAsync(_ application: Application) async {
        do {
            try await hub.shutdown()
        } catch {
            application.logger.warning("AuthHub: shutdown did not finish cleanly", metadata: ["error": "\(AuthError.wrap(error).code)"])
        }
    }
}
