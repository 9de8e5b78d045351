import AsyncHTTPClient
import AuthHub
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// An ``AuthHub/HTTPTransport`` over SwiftNIO's async-http-client, for server apps (Hummingbird,
/// Vapor) that run SwiftNIO already.
///
/// It behaves as `URLSessionTransport` does, and runs the same conformance suite
/// (`HTTPTransportConformance` in AuthHubTesting):
/// - **Deadline**: the timeout covers the whole exchange — every redirect hop and the streaming of
///   every body — not each read.
/// - **Cancellation**: cancelling the calling task cancels the request at once (`.cancelled`).
/// - **Body cap**: a reply whose `Content-Length` says more than ``maxResponseBytes``, or whose body
///   grows past it, fails with `.responseTooLarge` as soon as that is known; bytes beyond the cap
///   are never kept.
/// - **Redirects**: AuthHub's rules, not AsyncHTTPClient's (301/302/303 become a GET without a body,
///   307/308 keep method and body, `Authorization` and `Cookie` stay on their origin, at most
///   ``maxRedirects`` hops); with `followRedirects: false` a 3xx reply is returned as it is.
/// - **Errors**: ``AuthHub/TransportError`` kinds — timeouts `.timeout`; refused, reset or closed
///   connections and DNS failures `.connection`; TLS failures `.tls`; cancellation `.cancelled`.
///   Messages never hold a URL, a header value or a body.
///
/// ## Which HTTPClient
///
/// - ``init(client:defaultTimeout:followRedirects:maxResponseBytes:)`` without a client uses one
///   process-wide client of this module (on `HTTPClient.defaultEventLoopGroup`, configured with
///   ``configuration(_:)``) that lives as long as the process and needs no shutdown.
///   (`HTTPClient.shared` is not used: it follows redirects itself, and its configuration cannot
///   be changed.)
/// - Passing the app's own client shares its connection pool and event loops; configure it with
///   ``configuration(_:)`` (redirects disallowed, so that AuthHub's rules apply; no connection
///   retries, so that a refused connection fails at once). The app shuts it down, as it does today.
/// - ``init(owningClientOn:configuration:defaultTimeout:followRedirects:maxResponseBytes:)`` creates
///   a client of the transport's own on a given event loop group; shut it down with ``shutdown()``.
public struct AsyncHTTPClientTransport: HTTPTransport, Shutdownable {
    /// The reply-body cap of a transport that sets none: 4 MiB, as `URLSessionTransport`'s.
    public static let defaultMaxResponseBytes = URLSessionTransport.defaultMaxResponseBytes

    /// The most redirects followed for one request (as `URLSessionTransport`).
    public static let maxRedirects = URLSessionTransport.maxRedirects

    /// The client requests go through.
    public let client: HTTPClient
    /// The largest reply body accepted.
    public let maxResponseBytes: Int
    private let defaultTimeout: Duration
    private let followsRedirects: Bool
    /// Set when the transport created its client: shuts it down (see ``shutdown()``).
    private let owner: ClientOwner?

    /// The module's process-wide client: never shut down (a global lives as long as the process,
    /// so AsyncHTTPClient's check for a client released without a shutdown never runs for it).
    private static let sharedClient = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup,
                                                 configuration: configuration())

    /// A client configuration that keeps AuthHub's semantics: `base` with redirects disallowed
    /// (the transport follows them with AuthHub's rules) and no retrying of failed connection
    /// attempts (a refused connection fails at once, as with `URLSessionTransport`, instead of
    /// being retried until the deadline).
    /// - Parameter base: the app's settings (TLS, proxy, pool sizes…); the default is AsyncHTTPClient's.
    public static func configuration(_ base: HTTPClient.Configuration = HTTPClient.Configuration()) -> HTTPClient.Configuration {
        var configuration = base
        configuration.redirectConfiguration = .disallow
        configuration.connectionPool.retryConnectionEstablishment = false
        return configuration
    }

    /// Creates a transport over an existing client.
    /// - Parameters:
    ///   - client: the app's client, shared (configure it with ``configuration(_:)``: a client that
    ///     follows redirects itself makes a redirected request fail with an `.other`
    ///     ``AuthHub/TransportError`` saying so, rather than follow rules AuthHub does not apply).
    ///     The app keeps shutting it down. Nil (the default): the module's process-wide client,
    ///     which needs no shutdown.
    ///   - defaultTimeout: used when a request has no timeout of its own.
    ///   - followRedirects: when false, a 3xx reply is returned as it is (with its `Location`).
    ///   - maxResponseBytes: the largest reply body accepted (at least 1 KiB).
    public init(client: HTTPClient? = nil, defaultTimeout: Duration = .seconds(30), followRedirects: Bool = true,
                maxResponseBytes: Int = AsyncHTTPClientTransport.defaultMaxResponseBytes) {
        self.client = client ?? Self.sharedClient
        self.owner = nil
        self.defaultTimeout = defaultTimeout
        self.followsRedirects = followRedirects
        self.maxResponseBytes = max(1024, maxResponseBytes)
    }

    /// Creates a transport with a client of its own on `eventLoopGroup` (an app's group, or
    /// `MultiThreadedEventLoopGroup.singleton`). Call ``shutdown()`` when done with it; a transport
    /// released without one shuts its client down in the background instead of crashing.
    /// - Parameters:
    ///   - eventLoopGroup: the event loops the client runs on; not shut down by the transport.
    ///   - configuration: the client's settings; redirects and connection retries are turned off
    ///     whatever it says (see ``configuration(_:)``).
    ///   - defaultTimeout: used when a request has no timeout of its own.
    ///   - followRedirects: when false, a 3xx reply is returned as it is.
    ///   - maxResponseBytes: the largest reply body accepted (at least 1 KiB).
    public init(owningClientOn eventLoopGroup: any EventLoopGroup, configuration: HTTPClient.Configuration = HTTPClient.Configuration(),
                defaultTimeout: Duration = .seconds(30), followRedirects: Bool = true,
                maxResponseBytes: Int = AsyncHTTPClientTransport.defaultMaxResponseBytes) {
        let client = HTTPClient(eventLoopGroup: eventLoopGroup, configuration: Self.configuration(configuration))
        self.client = client
        self.owner = ClientOwner(client)
        self.defaultTimeout = defaultTimeout
        self.followsRedirects = followRedirects
        self.maxResponseBytes = max(1024, maxResponseBytes)
    }

    /// Whether the transport created its client (and ``shutdown()`` shuts it down).
    public var ownsClient: Bool { owner != nil }

    /// Shuts down the client this transport created, after which its requests fail; idempotent.
    /// Does nothing for a client passed in (the app owns it) or the process-wide one.
    /// - Throws: what `HTTPClient.shutdown()` throws.
    public func shutdown() async throws {
        try await owner?.shutdown()
    }

    /// Sends one request (following redirects unless told not to) within `timeout`, or the
    /// transport's default.
    /// - Throws: a ``AuthHub/TransportError``: `.timeout`, `.connection`, `.tls`, `.cancelled`,
    ///   `.responseTooLarge` or `.other`. Any HTTP status is a reply, not an error.
    public func send(_ request: HTTPRequest, body: Data?, timeout: Duration?) async throws -> HTTPReply {
        let deadline = timeout ?? defaultTimeout
        do {
            return try await Self.within(deadline) { [self] in
                try await RedirectPolicy.send(request, body: body, deadline: deadline, follow: followsRedirects) {
                    try await sendOnce($0, body: $1, timeout: $2)
                }
            }
        } catch {
            throw Self.classify(error)
        }
    }

    /// One request, no redirect followed: the head within `timeout` (AsyncHTTPClient's deadline),
    /// then the body under the cap (the caller's deadline covers it).
    private func sendOnce(_ request: HTTPRequest, body: Data?, timeout: Duration) async throws -> HTTPReply {
        guard let scheme = request.scheme, let authority = request.authority else {
            throw TransportError(.other, "the request has no absolute URL")
        }
        var outgoing = HTTPClientRequest(url: "\(scheme)://\(authority)\(request.path ?? "/")")
        outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
        outgoing.headers = Self.headers(request.headerFields)
        if let body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await client.execute(outgoing, deadline: .now() + Self.timeAmount(timeout))
        guard response.history.count <= 1 else {
            throw TransportError(.other, "the HTTPClient followed a redirect itself; create it with "
                + "AsyncHTTPClientTransport.configuration() (redirects disallowed) so that AuthHub's redirect rules apply")
        }
        let fields = Self.fields(response.headers)
        if let refusal = RedirectPolicy.encodingRefusal(fields) { throw refusal }
        let declared = response.headers.first(name: "content-length").flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
        if let declared, declared > Int64(maxResponseBytes) { throw RedirectPolicy.tooLarge(maxResponseBytes) }
        var data = Data()
        if let declared, declared > 0 { data.reserveCapacity(Int(declared)) }
        for try await chunk in response.body {
            guard data.count + chunk.readableBytes <= maxResponseBytes else { throw RedirectPolicy.tooLarge(maxResponseBytes) }
            data.append(contentsOf: chunk.readableBytesView)
        }
        // A cancelled body stream may simply end: a body cut short by cancellation is not a reply.
        try Task.checkCancellation()
        return HTTPReply(status: Int(response.status.code), headerFields: fields, body: data)
    }

    // MARK: Header fields

    /// swift-http-types fields as NIO headers, one entry per field (repeated fields stay repeated,
    /// in order). `Content-Length` and `Transfer-Encoding` are left to AsyncHTTPClient, which frames
    /// the body it is given.
    static func headers(_ fields: HTTPFields) -> HTTPHeaders {
        var headers = HTTPHeaders()
        headers.reserveCapacity(fields.count)
        for field in fields where field.name != .contentLength && field.name != .transferEncoding {
            headers.add(name: field.name.rawName, value: field.value)
        }
        return headers
    }

    /// NIO headers as swift-http-types fields, one field per header line (several `Set-Cookie`
    /// stay several); a line whose name is not a valid field name is dropped.
    static func fields(_ headers: HTTPHeaders) -> HTTPFields {
        var fields = HTTPFields()
        fields.reserveCapacity(headers.count)
        for (name, value) in headers {
            guard let fieldName = HTTPField.Name(name) else { continue }
            fields.append(HTTPField(name: fieldName, value: value))
        }
        return fields
    }

    // MARK: Deadline

    /// Runs `operation` within `timeout`: when it passes, the operation is cancelled and a
    /// `.timeout` ``AuthHub/TransportError`` thrown. AsyncHTTPClient's own deadline ends at the
    /// reply's head; this one covers the body's streaming too.
    static func within<T: Sendable>(_ timeout: Duration, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await Task.sleep(for: clamped(timeout))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else {
                throw TransportError(.timeout, "no complete reply within \(timeout)")
            }
            return value
        }
    }

    /// A duration clamped to 0…1 day (longer deadlines become one day).
    static func clamped(_ duration: Duration) -> Duration { min(max(duration, .zero), .seconds(86_400)) }

    /// A duration as NIO's `TimeAmount`, clamped to 0…1 day.
    static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = clamped(duration).components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    // MARK: Errors

    static let timeoutErrors: [HTTPClientError] = [
        .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout,
        .socksHandshakeTimeout, .httpProxyHandshakeTimeout,
    ]

    /// Maps what AsyncHTTPClient and SwiftNIO throw to ``AuthHub/TransportError`` kinds, as
    /// `URLSessionTransport` maps `URLError`s. Messages name the kind of failure only: no URL (its
    /// query may hold a code), no header value, no body.
    static func classify(_ error: any Error) -> TransportError {
        if Task.isCancelled, !(error is TransportError) { return TransportError(.cancelled, "the request was cancelled") }
        switch error {
        case let error as TransportError:
            return error
        case is CancellationError:
            return TransportError(.cancelled, "the request was cancelled")
        case let error as HTTPClientError:
            if error == .cancelled { return TransportError(.cancelled, "the request was cancelled", underlying: error) }
            if timeoutErrors.contains(error) { return TransportError(.timeout, "HTTPClientError: \(error.shortDescription)", underlying: error) }
            if error == .remoteConnectionClosed {
                return TransportError(.connection, "HTTPClientError: \(error.shortDescription)", underlying: error)
            }
            return TransportError(.other, "HTTPClientError: \(error.shortDescription)", underlying: error)
        case let error as ChannelError:
            if case .connectTimeout = error { return TransportError(.timeout, "the connection timed out", underlying: error) }
            return TransportError(.connection, "the connection failed (ChannelError)", underlying: error)
        case let error as NIOConnectionError:
            // Its description names host and port; the message does not.
            return TransportError(.connection, "the connection failed (\(error.dnsAError != nil || error.dnsAAAAError != nil ? "DNS" : "connect"))",
                                  underlying: error)
        case let error as IOError:
            return TransportError(.connection, "the connection failed (errno \(error.errnoCode))", underlying: error)
        case let error as SocketAddressError:
            return TransportError(.connection, "the host could not be resolved", underlying: error)
        case let error as HTTPParserError:
            return TransportError(.connection, "the reply could not be parsed", underlying: error)
        case let error as NIOSSLError:
            return TransportError(.tls, "TLS failed (NIOSSLError)", underlying: error)
        case let error as NIOSSLExtraError:
            return TransportError(.tls, "TLS failed (NIOSSLExtraError)", underlying: error)
        case let error as BoringSSLError:
            return TransportError(.tls, "TLS failed (BoringSSLError)", underlying: error)
        default:
            return TransportError(.other, "the request failed: \(type(of: error))")
        }
    }
}

/// Owns a client an ``AsyncHTTPClientTransport`` created: shuts it down once, when asked or, if
/// nobody did, when the last transport holding it is released.
///
/// AsyncHTTPClient traps (in debug builds) when a client that was not shut down is deinitialised.
/// A transport is a value that an app may drop without thinking of it, so a forgotten
/// ``AsyncHTTPClientTransport/shutdown()`` must not crash the process: `deinit` starts the
/// shutdown instead, whose completion keeps the client alive until it is shut down.
final class ClientOwner: Sendable {
    let client: HTTPClient
    private let shutDown = Mutex(false)

    init(_ client: HTTPClient) { self.client = client }

    /// Claims the shutdown and starts it, in one synchronous step: no path can take the claim without
    /// starting the client's shutdown (a claim taken by a caller that then never shut the client
    /// down would leave `deinit` nothing to do and the client to trap in its own `deinit`). False,
    /// doing nothing, when it was claimed before.
    private func startShutdown(_ done: @escaping @Sendable ((any Error)?) -> Void) -> Bool {
        let first = shutDown.withLock { done in
            defer { done = true }
            return !done
        }
        // AsyncHTTPClient keeps the client alive until its shutdown completes.
        if first { client.shutdown(queue: .global(), done) }
        return first
    }

    func shutdown() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let started = startShutdown { error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
            if !started { continuation.resume() }
        }
    }

    deinit {
        _ = startShutdown { _ in }
    }
}
