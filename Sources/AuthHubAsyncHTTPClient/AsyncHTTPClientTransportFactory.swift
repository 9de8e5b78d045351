import AuthHub
import AsyncHTTPClient
import Logging

/// Builds an ``AsyncHTTPClientTransport`` for `"transport": "async-http-client"` in providers.json.
///
/// Register it with the registry an app loads providers.json with; core then builds this
/// transport for environments that name it (a transport passed in code still wins):
///
/// ```swift
/// let registry = ProviderRegistry.builtIn.registering(transportFactory: AsyncHTTPClientTransportFactory())
/// let hub = try AuthHub.load(registry: registry)
/// ```
public struct AsyncHTTPClientTransportFactory: TransportFactory {
    /// The client transports are built over; nil for the module's process-wide client.
    public let client: HTTPClient?

    /// `async-http-client`.
    public var transportName: String { TransportName.asyncHTTPClient }

    /// Creates the factory.
    /// - Parameter client: the app's client to share (configured with
    ///   ``AsyncHTTPClientTransport/configuration(_:)``); nil for the module's process-wide client,
    ///   which needs no shutdown.
    public init(client: HTTPClient? = nil) { self.client = client }

    /// An ``AsyncHTTPClientTransport`` over ``client`` with the default timeout (30 s), redirects
    /// followed and the 4 MiB body cap, as core's default `URLSessionTransport`.
    public func makeTransport(logger: Logger) throws -> any HTTPTransport {
        AsyncHTTPClientTransport(client: client)
    }
}
