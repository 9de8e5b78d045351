import Logging

/// Builds the ``HTTPTransport`` named by an environment's `transport` in providers.json, for a
/// transport that core does not build itself because it needs a module an app may not want:
/// `async-http-client` (AuthHubAsyncHTTPClient, which brings SwiftNIO).
///
/// The module that provides the transport provides a factory; an app that wants it registers it,
/// as it registers provider plugins and session store factories:
///
/// ```swift
/// import AuthHubAsyncHTTPClient
/// let hub = try AuthHub.load(registry: ProviderRegistry.builtIn.registering(transportFactory: AsyncHTTPClientTransportFactory()))
/// ```
///
/// `urlsession` (the default) is built by core. A transport given in code
/// (``ProviderContext/transport`` set explicitly) wins over the one named in the file; without a
/// factory for the configured name, building the hub fails with
/// ``AuthErrorCode/invalidConfiguration`` naming the module to import.
public protocol TransportFactory: Sendable {
    /// The `transport` value it builds, e.g. `async-http-client`.
    var transportName: String { get }
    /// Builds the transport. Must not block: connecting happens on first use.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` when it cannot be built.
    func makeTransport(logger: Logger) throws -> any HTTPTransport
}

/// The transports providers.json can name.
public enum TransportName {
    /// `URLSessionTransport`, built by core: the default.
    public static let urlSession = "urlsession"
    /// `AsyncHTTPClientTransport`, built by AuthHubAsyncHTTPClient's ``TransportFactory``.
    public static let asyncHTTPClient = "async-http-client"
    /// The names every registry knows (core validates them even before a factory is registered).
    public static let builtIn = [asyncHTTPClient, urlSession]
}
