import struct AuthHub.AuthError
import struct AuthHub.AuthErrorCode
import enum AuthHub.JSONValue
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// A local server that speaks the wire formats of Auth0, Firebase Authentication, Openfort and
/// Turnkey, for development, demos and integration tests.
///
/// ```swift
/// let emulator = try await Emulator.start()          // 127.0.0.1, ephemeral port
/// print(emulator.baseURL)                             // http://127.0.0.1:49731
/// // … point providers.json at emulator.baseURL …
/// await emulator.stop()
/// ```
///
/// Routes:
/// - `GET /__authhub/health` → `{"status":"ok","modules":["auth0","firebase","openfort","turnkey"]}`
/// - `POST /__authhub/reset` → clears all module state
/// - `GET /__authhub/modules` → each module's name, prefixes and info route
/// - each module's routes under its prefixes (see ``EmulatorModule``), with an info route at
///   `{prefix}/__emulator` and a provider-style JSON 404 for unknown paths.
///
/// Several emulators can run in one process at once, each on its own port with its own state.
public struct Emulator: Sendable {
    /// How the emulator listens.
    public var configuration: EmulatorConfiguration
    /// The provider modules it serves.
    public var modules: [any EmulatorModule]

    /// The four built-in modules: auth0, firebase, openfort, turnkey.
    public static var builtInModules: [any EmulatorModule] {
        [Auth0EmulatorModule(), FirebaseEmulatorModule(), OpenfortEmulatorModule(), TurnkeyEmulatorModule()]
    }

    /// Creates an emulator; nothing listens until ``start()``.
    /// - Parameters:
    ///   - configuration: host, port, logger, clock.
    ///   - modules: the provider modules to serve (default: ``builtInModules``).
    public init(configuration: EmulatorConfiguration = EmulatorConfiguration(), modules: [any EmulatorModule] = Emulator.builtInModules) {
        self.configuration = configuration
        self.modules = modules
    }

    /// Starts an emulator with the built-in modules.
    /// - Parameter configuration: host, port, logger, clock.
    /// - Returns: the running emulator, already accepting connections.
    /// - Throws: see ``start()``.
    public static func start(_ configuration: EmulatorConfiguration = EmulatorConfiguration()) async throws -> RunningEmulator {
        try await Emulator(configuration: configuration).start()
    }

    /// Binds the server and returns once it accepts connections.
    ///
    /// - Returns: the running emulator, exposing its bound ``RunningEmulator/port`` and
    ///   ``RunningEmulator/baseURL``. Call ``RunningEmulator/stop()`` when done.
    /// - Throws: ``AuthError`` — `invalidConfiguration` for a non-loopback host (unless allowed),
    ///   a bad port, an unresolvable host or conflicting modules; ``AuthErrorCode/addressInUse``
    ///   when the port is taken; `userCancelled` when the calling task is cancelled; `unknown` for
    ///   any other failure to bind.
    public func start() async throws -> RunningEmulator {
        try configuration.validate()
        try validateModules()

        let logger = configuration.logger
        let state = EmulatorState()
        let environment = EmulatorEnvironment(
            state: state, clock: configuration.clock, random: configuration.random, logger: logger
        )
        let router = try makeRouter(environment: environment)
        let gate = StartupGate()
        let app = Application(
            router: router,
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.bindHost, port: configuration.port),
                serverName: nil,
                reuseAddress: true
            ),
            onServerRunning: { channel in
                if let port = channel.localAddress?.port {
                    gate.resolve(.success(port))
                } else {
                    gate.resolve(.failure(AuthError(.unknown, message: "The emulator's socket has no local port.")))
                }
            },
            logger: logger
        )
        var groupConfiguration = ServiceGroupConfiguration(services: [app], logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = configuration.shutdownTimeout
        // No `maximumCancellationDuration`: ServiceLifecycle turns a cancellation that outlasts it into
        // a `fatalError`, and on a loaded machine (a full test run on 2 cores) winding the server down
        // after the graceful period took longer than 5 s and crashed the whole test process
        // ("Cancellation took longer than allowed by the configuration", signal 4).
        let group = ServiceGroup(configuration: groupConfiguration)
        let task = Task<Void, any Error> {
            do {
                try await group.run()
                gate.resolve(.failure(AuthError(.unknown, message: "The emulator stopped before it was listening.")))
            } catch {
                gate.resolve(.failure(error))
                throw error
            }
        }

        let port: Int
        do {
            port = try await gate.wait()
        } catch {
            await group.triggerGracefulShutdown()
            _ = await task.result
            throw mapStartError(error)
        }

        guard let baseURL = URL(string: "http://\(configuration.urlHost):\(port)") else {
            await group.triggerGracefulShutdown()
            _ = await task.result
            throw AuthError(.invalidConfiguration, message: "The emulator host \(configuration.host) does not form a valid URL.")
        }
        await state.setBaseURL(baseURL)
        logger.debug("emulator listening", metadata: ["url": .string(baseURL.absoluteString)])
        return RunningEmulator(
            host: configuration.host,
            port: port,
            baseURL: baseURL,
            state: state,
            modules: modules,
            group: group,
            task: task
        )
    }

    // MARK: - Set-up

    /// Checks module names and prefixes: unique names, well-formed prefixes, no prefix shared
    /// between modules or under the reserved `/__authhub`.
    func validateModules() throws {
        var problems: [String] = []
        var names = Set<String>()
        var owners: [(prefix: String, module: String)] = []
        for module in modules {
            if module.name.isEmpty { problems.append("a module has an empty name") }
            if !names.insert(module.name).inserted { problems.append("module name \(module.name) is used twice") }
            if module.pathPrefixes.isEmpty { problems.append("module \(module.name) has no path prefix") }
            for prefix in module.pathPrefixes {
                if !prefix.hasPrefix("/") || prefix.count < 2 || prefix.hasSuffix("/") {
                    problems.append("module \(module.name): prefix \(prefix) must start with / and not end with /")
                }
                if EmulatorPaths.overlap(prefix, EmulatorPaths.reserved) {
                    problems.append("module \(module.name): prefix \(prefix) collides with the reserved \(EmulatorPaths.reserved)")
                }
                for other in owners where other.module != module.name && EmulatorPaths.overlap(prefix, other.prefix) {
                    problems.append("module \(module.name): prefix \(prefix) overlaps \(other.prefix) of module \(other.module)")
                }
                owners.append((prefix, module.name))
            }
        }
        if !problems.isEmpty {
            throw AuthError(.invalidConfiguration, message: "Invalid emulator modules: " + problems.joined(separator: "; "))
        }
    }

    /// Builds the router: middleware, the emulator's own routes, then every module's route
    /// collection (its routes and info route).
    func makeRouter(environment: EmulatorEnvironment) throws -> Router<EmulatorRequestContext> {
        let router = Router(context: EmulatorRequestContext.self)
        router.add(middleware: RequestLoggingMiddleware(logger: environment.logger))
        router.add(middleware: NotFoundMiddleware(modules: modules))

        let modules = self.modules
        let names = modules.map(\.name)
        let state = environment.state
        router.get("/__authhub/health") { _, _ in
            EmulatorResponse.json(["status": "ok", "modules": .array(names.map(JSONValue.string))])
        }
        router.post("/__authhub/reset") { _, _ in
            await state.reset()
            for module in modules { await module.reset() }
            return EmulatorResponse.json(["status": "reset", "modules": .array(names.map(JSONValue.string))])
        }
        let listing: [JSONValue] = modules.map { module in
            [
                "name": .string(module.name),
                "prefixes": .array(module.pathPrefixes.map(JSONValue.string)),
                "info": .string(module.infoPath),
            ]
        }
        router.get("/__authhub/modules") { _, _ in
            EmulatorResponse.json(["modules": .array(listing)])
        }

        var problems: [String] = []
        for module in modules {
            let builder = EmulatorRouteBuilder(moduleName: module.name, prefixes: module.pathPrefixes)
            module.register(routes: builder, environment: environment)
            problems += builder.problems
            let info = EmulatorRouteBuilder.Route(method: "GET", path: module.infoPath)
            let routes = Set(builder.routes + [info]).map(\.description).sorted()
            let body: JSONValue = [
                "module": .string(module.name),
                "prefixes": .array(module.pathPrefixes.map(JSONValue.string)),
                "routes": .array(routes.map(JSONValue.string)),
            ]
            if !builder.routes.contains(info) {
                builder.get(RouterPath(module.infoPath)) { _, _ in EmulatorResponse.json(body) }
            }
            router.addRoutes(builder.collection)
        }
        if !problems.isEmpty {
            throw AuthError(.invalidConfiguration, message: "Invalid emulator routes: " + problems.joined(separator: "; "))
        }
        return router
    }

    /// Turns a failure to bind into an ``AuthError`` a person can act on.
    func mapStartError(_ error: any Error) -> AuthError {
        let endpoint = "\(configuration.urlHost):\(configuration.port)"
        switch error {
        case let error as AuthError:
            return error
        case is CancellationError:
            return AuthError(.userCancelled, message: "Starting the emulator was cancelled.", underlying: error)
        case let error as IOError where error.errnoCode == EADDRINUSE:
            return AuthError(
                .addressInUse,
                message: "Cannot start the emulator: \(endpoint) is already in use.",
                underlying: error
            )
        case let error as IOError where error.errnoCode == EADDRNOTAVAIL:
            return AuthError(
                .invalidConfiguration,
                message: "Cannot start the emulator: \(configuration.host) is not an address of this machine.",
                underlying: error
            )
        case let error as IOError where error.errnoCode == EACCES:
            return AuthError(
                .invalidConfiguration,
                message: "Cannot start the emulator: permission denied for \(endpoint).",
                underlying: error
            )
        case let error as SocketAddressError:
            return AuthError(
                .invalidConfiguration,
                message: "Cannot start the emulator: cannot resolve host \(configuration.host).",
                underlying: error
            )
        default:
            return AuthError(
                .unknown,
                message: "Cannot start the emulator on \(endpoint): \(String(describing: error))",
                underlying: error
            )
        }
    }
}
