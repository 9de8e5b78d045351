@_exported import HTTPTypes
import Foundation

/// A reply as a transport received it: the head (status and header fields, swift-http-types'
/// `HTTPResponse`) and the whole body.
///
/// swift-http-types models only the head of a message; AuthHub's replies are small and read whole
/// (the transport caps them), so the body travels beside the head as bytes.
public struct HTTPReply: Sendable, Hashable {
    /// The status and header fields.
    public var head: HTTPResponse
    /// The body, at most the transport's cap.
    public var body: Data

    public init(_ head: HTTPResponse, body: Data = Data()) {
        self.head = head
        self.body = body
    }

    /// A reply with this status code (any integer 100…999 the server sent), fields and body.
    public init(status: Int, headerFields: HTTPFields = [:], body: Data = Data()) {
        self.init(HTTPResponse(status: HTTPResponse.Status(code: Self.clampedCode(status)), headerFields: headerFields), body: body)
    }

    /// The status code (`head.status.code`).
    public var status: Int { head.status.code }

    /// The header fields (`head.headerFields`).
    public var headerFields: HTTPFields { head.headerFields }

    /// True for 2xx.
    public var isSuccess: Bool { head.status.kind == .successful }

    /// swift-http-types accepts codes 0…999 only (a larger one traps); a code from elsewhere is clamped into that range.
    private static func clampedCode(_ code: Int) -> Int { min(max(code, 0), 999) }
}

/// Sends HTTP requests. The seam between AuthHub and the network.
///
/// The request is swift-http-types' `HTTPRequest` (method, scheme, authority, path, header fields);
/// its body and the time the whole exchange may take travel beside it. Implementations throw
/// ``TransportError`` for failures below HTTP (no connection, timeout); any HTTP status, including
/// 4xx/5xx, is a normal ``HTTPReply``.
public protocol HTTPTransport: Sendable {
    /// Sends one request and returns the reply.
    /// - Parameters:
    ///   - request: the request head; its scheme and authority say where it goes.
    ///   - body: the request body, if any.
    ///   - timeout: the time the whole exchange may take; nil means the transport's default.
    func send(_ request: HTTPRequest, body: Data?, timeout: Duration?) async throws -> HTTPReply
}

extension HTTPTransport {
    /// Sends a request to a URL (a convenience for tools and tests; providers go through ``APIClient``).
    /// - Throws: a `.other` ``TransportError`` when `url` has no scheme or host; what the transport throws.
    public func send(_ method: HTTPRequest.Method, _ url: URL, headerFields: HTTPFields = [:], body: Data? = nil,
                     timeout: Duration? = nil) async throws -> HTTPReply {
        guard url.scheme != nil, url.host != nil else { throw TransportError(.other, "the URL has no scheme or host") }
        return try await send(HTTPRequest(method: method, url: url, headerFields: headerFields), body: body, timeout: timeout)
    }
}

extension HTTPRequest.Method {
    /// Idempotent per RFC 9110, section 9.2.2: sending it twice has the effect of sending it once.
    package var isIdempotent: Bool { [.get, .head, .put, .delete, .options].contains(self) }
}

extension HTTPField.Name {
    /// A header name written in AuthHub's own source. Such names are tokens by construction, and
    /// `HeaderNameTests` builds every one of them; the trap below cannot be reached by outside input.
    package static func constant(_ name: StaticString) -> HTTPField.Name {
        guard let field = HTTPField.Name(name.description) else { preconditionFailure("not a header name: \(name)") }
        return field
    }
}

extension HTTPFields {
    /// The value of the fields with this name, compared case-insensitively (several fields of one
    /// name are joined with `, `, as swift-http-types' own subscript joins them); nil when there is
    /// none or the name is not a valid field name. Setting a value replaces every field of that name
    /// (nil removes them); setting under an invalid name does nothing.
    package subscript(_ name: String) -> String? {
        get { HTTPField.Name(name).flatMap { self[$0] } }
        set {
            guard let field = HTTPField.Name(name) else { return }
            self[field] = newValue
        }
    }

    /// Sets every field of `other`, replacing same-named fields here (values in `other` win).
    package mutating func merge(_ other: HTTPFields) {
        var seen = Set<HTTPField.Name>()
        for field in other where seen.insert(field.name).inserted {
            self[values: field.name] = other[values: field.name]
        }
    }
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
        /// The reply was a redirect that AuthHub's rules do not follow (credentials to another
        /// origin, a request with a body, https to http); see `RedirectPolicy`.
        case redirectRefused
        /// The reply was compressed (`Content-Encoding` other than `identity`), which AuthHub does not
        /// ask for and does not decode.
        case unsupportedEncoding
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
