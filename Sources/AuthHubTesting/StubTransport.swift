import AuthHub
import Foundation

/// An ``HTTPTransport`` for unit tests: answers from registered stubs, records every request, and
/// fails (with a ``StubTransport/UnmatchedRequest`` error and a recorded failure) on any request no
/// stub matches, so an unexpected call never passes silently.
///
/// ```swift
/// let transport = StubTransport()
/// transport.on(.post, "/oauth/token") { _ in .json(200, ["access_token": "a", "expires_in": 3600]) }
/// ```
public final class StubTransport: HTTPTransport, Sendable {
    /// A request that matched no stub.
    public struct UnmatchedRequest: Error, CustomStringConvertible, Sendable {
        public var method: HTTPMethod
        public var url: URL
        public var description: String { "StubTransport: no stub for \(method) \(url.path)" }
    }

    /// A stubbed reply or failure.
    public enum Reply: Sendable {
        case response(HTTPResponse)
        case failure(TransportError)

        /// A JSON reply.
        public static func json(_ status: Int, _ body: JSONValue, headers: HTTPHeaders = [:]) -> Reply {
            var h = headers
            h["Content-Type"] = "application/json"
            let data = (try? JSONEncoder().encode(body)) ?? Data()
            return .response(HTTPResponse(status: status, headers: h, body: data))
        }

        /// A reply with a raw body.
        public static func raw(_ status: Int, _ body: String, headers: HTTPHeaders = [:]) -> Reply {
            .response(HTTPResponse(status: status, headers: headers, body: Data(body.utf8)))
        }
    }

    private struct Stub: Sendable {
        var method: HTTPMethod?
        var path: String?
        var predicate: (@Sendable (HTTPRequest) -> Bool)?
        var remaining: Int?
        var handler: @Sendable (HTTPRequest) async throws -> Reply
    }

    private let stubs = Mutex<[Stub]>([])
    private let recorded = Mutex<[HTTPRequest]>([])
    private let unmatched = Mutex<[UnmatchedRequest]>([])

    public init() {}

    /// Answers requests with this method and URL path (and matching `where`, if given).
    /// - Parameters:
    ///   - times: how many requests this stub answers; nil for any number.
    ///   - first: try this stub before those registered earlier (stubs are otherwise tried in
    ///     registration order), to override a general stub for some requests.
    public func on(_ method: HTTPMethod? = nil, _ path: String? = nil, times: Int? = nil, first: Bool = false,
                   where predicate: (@Sendable (HTTPRequest) -> Bool)? = nil,
                   reply handler: @escaping @Sendable (HTTPRequest) async throws -> Reply) {
        let stub = Stub(method: method, path: path, predicate: predicate, remaining: times, handler: handler)
        stubs.withLock { first ? $0.insert(stub, at: 0) : $0.append(stub) }
    }

    /// Every request sent, in order.
    public var requests: [HTTPRequest] { recorded.withLock { $0 } }

    /// Requests no stub matched.
    public var unmatchedRequests: [UnmatchedRequest] { unmatched.withLock { $0 } }

    /// Requests sent to a path.
    public func requests(to path: String) -> [HTTPRequest] { requests.filter { $0.url.path == path } }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        recorded.withLock { $0.append(request) }
        let handler: (@Sendable (HTTPRequest) async throws -> Reply)? = stubs.withLock { stubs in
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

extension HTTPRequest {
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
