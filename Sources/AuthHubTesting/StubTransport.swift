import AuthHub
import Foundation
import HTTPTypes

/// An ``HTTPTransport`` for unit tests: answers from registered stubs, records every request, and
/// fails (with a ``StubTransport/UnmatchedRequest`` error and a recorded failure) on any request no
/// stub matches, so an unexpected call never passes silently.
///
/// ```swift
/// let transport = StubTransport()
/// transport.on(.post, "/oauth/token") { _ in .json(200, ["access_token": "a", "expires_in": 3600]) }
/// ```
public final class StubTransport: HTTPTransport, Sendable {
    /// A request as the stub received it: the head, the body, the deadline and the full URL.
    public struct Request: Sendable {
        /// The request head (swift-http-types).
        public var head: HTTPRequest
        /// The body, if any.
        public var body: Data?
        /// The deadline the sender gave.
        public var timeout: Duration?
        /// The request's URL (from the head's scheme, authority and path).
        public var url: URL

        /// The method.
        public var method: HTTPRequest.Method { head.method }
        /// The header fields.
        public var headerFields: HTTPFields { head.headerFields }
    }

    /// A request that matched no stub.
    public struct UnmatchedRequest: Error, CustomStringConvertible, Sendable {
        public var method: HTTPRequest.Method
        public var url: URL
        public var description: String { "StubTransport: no stub for \(method) \(url.path)" }
    }

    /// A stubbed reply or failure.
    public enum Reply: Sendable {
        case response(HTTPReply)
        case failure(TransportError)

        /// A JSON reply.
        public static func json(_ status: Int, _ body: JSONValue, headerFields: HTTPFields = [:]) -> Reply {
            var fields = headerFields
            fields[.contentType] = "application/json"
            let data = (try? JSONEncoder().encode(body)) ?? Data()
            return .response(HTTPReply(status: status, headerFields: fields, body: data))
        }

        /// A reply with a raw body.
        public static func raw(_ status: Int, _ body: String, headerFields: HTTPFields = [:]) -> Reply {
            .response(HTTPReply(status: status, headerFields: headerFields, body: Data(body.utf8)))
        }
    }

    private struct Stub: Sendable {
        var method: HTTPRequest.Method?
        var path: String?
        var predicate: (@Sendable (Request) -> Bool)?
        var remaining: Int?
        var handler: @Sendable (Request) async throws -> Reply
    }

    private let stubs = Mutex<[Stub]>([])
    private let recorded = Mutex<[Request]>([])
    private let unmatched = Mutex<[UnmatchedRequest]>([])

    public init() {}

    /// Answers requests with this method and URL path (and matching `where`, if given).
    /// - Parameters:
    ///   - times: how many requests this stub answers; nil for any number.
    ///   - first: try this stub before those registered earlier (stubs are otherwise tried in
    ///     registration order), to override a general stub for some requests.
    public func on(_ method: HTTPRequest.Method? = nil, _ path: String? = nil, times: Int? = nil, first: Bool = false,
                   where predicate: (@Sendable (Request) -> Bool)? = nil,
                   reply handler: @escaping @Sendable (Request) async throws -> Reply) {
        let stub = Stub(method: method, path: path, predicate: predicate, remaining: times, handler: handler)
        stubs.withLock { first ? $0.insert(stub, at: 0) : $0.append(stub) }
    }

    /// Every request sent, in order.
    public var requests: [Request] { recorded.withLock { $0 } }

    /// Requests no stub matched.
    public var unmatchedRequests: [UnmatchedRequest] { unmatched.withLock { $0 } }

    /// Requests sent to a path.
    public func requests(to path: String) -> [Request] { requests.filter { $0.url.path == path } }

    public func send(_ head: HTTPRequest, body: Data?, timeout: Duration?) async throws -> HTTPReply {
        guard let url = head.url else { throw TransportError(.other, "StubTransport: the request has no absolute URL") }
        let request = Request(head: head, body: body, timeout: timeout, url: url)
        recorded.withLock { $0.append(request) }
        let handler: (@Sendable (Request) async throws -> Reply)? = stubs.withLock { stubs in
            for i in stubs.indices {
                let s = stubs[i]
                if let m = s.method, m != request.method { continue }
                if let p = s.path, p != request.url.path { continue }
                if let pred = s.predicate, !pred(request) { continue }
                if let r = s.remaining {
                    if r <= 0 { continue }
                    stubs[i].remaining = r - 1
                }
                return s.handler
            }
            return nil
        }
        guard let handler else {
            let error = UnmatchedRequest(method: request.method, url: request.url)
            unmatched.withLock { $0.append(error) }
            throw error
        }
        switch try await handler(request) {
        case .response(let r): return r
        case .failure(let e): throw e
        }
    }
}

extension StubTransport.Request {
    /// The body parsed as JSON (nil when absent or not JSON).
    public var jsonBody: JSONValue? { body.flatMap { try? JSONValue.parse($0) } }
    /// The body parsed as a form, as a dictionary (last value wins).
    public var formBody: [String: String] {
        guard let body else { return [:] }
        return Dictionary(FormEncoding.decode(String(decoding: body, as: UTF8.self)), uniquingKeysWith: { _, b in b })
    }
    /// The query parameters as a dictionary.
    public var queryItems: [String: String] {
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, b in b })
    }
}
