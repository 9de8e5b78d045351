import Foundation
import ServiceLifecycle

/// An emulator that is listening. Returned by ``Emulator/start()``.
///
/// Stop it with ``stop()`` when done: the server stops accepting connections, lets in-flight
/// requests finish (up to ``EmulatorConfiguration/shutdownTimeout``), closes idle keep-alive
/// connections and releases the port. An emulator that is never stopped runs until the process
/// ends.
public final class RunningEmulator: Sendable {
    /// The host it was bound to, as configured (e.g. `127.0.0.1`).
    public let host: String
    /// The bound TCP port (the ephemeral one when the configuration asked for port 0).
    public let port: Int
    /// `http://HOST:PORT`, with no trailing slash.
    public let baseURL: URL
    /// The state modules keep; lets tests seed or inspect users directly.
    public let state: EmulatorState
    /// The names of the modules served, in order.
    public let moduleNames: [String]

    private let modules: [any EmulatorModule]
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    init(
        host: String,
        port: Int,
        baseURL: URL,
        state: EmulatorState,
        modules: [any EmulatorModule],
        group: ServiceGroup,
        task: Task<Void, any Error>
    ) {
        self.host = host
        self.port = port
        self.baseURL = baseURL
        self.state = state
        self.modules = modules
        self.moduleNames = modules.map(\.name)
        self.group = group
        self.task = task
    }

    /// The absolute URL of `path` on this emulator.
    /// - Parameter path: a path starting with `/`, optionally with a query (`/auth0/authorize?x=1`),
    ///   already percent-encoded where needed. A string that does not form a valid URL yields
    ///   ``baseURL`` itself.
    public func url(_ path: String) -> URL {
        let separator = path.hasPrefix("/") ? "" : "/"
        return URL(string: baseURL.absoluteString + separator + path) ?? baseURL
    }

    /// The base URL of a module prefix, e.g. `url(forPrefix: "/auth0")` →
    /// `http://127.0.0.1:PORT/auth0`, the Auth0 domain to put in providers.json.
    public func url(forPrefix prefix: String) -> URL { url(prefix) }

    /// Clears all module state, like `POST /__authhub/reset`.
    public func reset() async {
        await state.reset()
        for module in modules { await module.reset() }
    }

    /// Shuts the server down gracefully and waits until it has stopped and released its port.
    /// Calling it again, or after the server failed, returns at once.
    public func stop() async {
        await group.triggerGracefulShutdown()
        _ = await task.result
    }

    /// Waits until the server stops, either through ``stop()`` or because it failed.
    /// - Throws: the error the server failed with, if it did not stop cleanly.
    public func waitUntilStopped() async throws {
        try await task.value
    }
}
