import Foundation

/// An HTTP method.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue.uppercased() }
    public init(stringLiteral value: String) { self.init(rawValue: value) }
    public var description: String { rawValue }

    public static let get: HTTPMethod = "GET"
    public static let post: HTTPMethod = "POST"
    public static let put: HTTPMethod = "PUT"
    public static let patch: HTTPMethod = "PATCH"
    public static let delete: HTTPMethod = "DELETE"
    public static let head: HTTPMethod = "HEAD"
    public static let options: HTTPMethod = "OPTIONS"

    /// Idempotent per RFC 9110, section 9.2.2: sending it twice has the effect of sending it once.
    public var isIdempotent: Bool { [.get, .head, .put, .delete, .options].contains(self) }
}

/// A request as handed to an ``HTTPTransport``.
public struct HTTPRequest: Sendable, Hashable {
    public var method: HTTPMethod
    public var url: URL
    public var headers: HTTPHeaders
    public var body: Data?
    /// The time the whole exchange may take; nil means the transport's default.
    public var timeout: Duration?

    public init(method: HTTPMethod, url: URL, headers: HTTPHeaders = [:], body: Data? = nil, timeout: Duration? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// A reply from an ``HTTPTransport``.
public struct HTTPResponse: Sendable, Hashable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: Data

    public init(status: Int, headers: HTTPHeaders = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// True for 2xx.
    public var isSuccess: Bool { (200..<300).contains(status) }
}

/// Sends HTTP requests. The seam between AuthHub and the network.
///
/// Implementations throw ``TransportError`` for failures below HTTP (no connection, timeout);
/// any HTTP status, including 4xx/5xx, is a normal ``HTTPResponse``.
public protocol HTTPTransport: Sendable {
    /// Sends one request and returns the reply.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}

/// A failure below HTTP.
public struct TransportError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: String, Sendable {
        /// The exchange did not finish in time.
        case timeout
        /// The host could not be resolved or the connection was refused, reset or lost.
        case connection
        /// TLS failed (certificate, handshake).
        case tls
        /// The request was cancelled.
        case cancelled
        /// The reply body was larger than the transport's cap; the rest was not read.
        case responseTooLarge
        /// The request could not be built or sent for another reason.
        case other
    }

    public var kind: Kind
    public var message: String
    public var underlying: (any Error & Sendable)?

    public init(_ kind: Kind, _ message: String, underlying: (any Error & Sendable)? = nil) {
        self.kind = kind
        self.message = message
        self.underlying = underlying
    }

    public var description: String { "\(kind.rawValue): \(message)" }
}
