import Foundation
import HTTPTypes

/// The redirect rules every AuthHub transport follows, in one place so that `URLSessionTransport`
/// and the AsyncHTTPClient transport cannot drift apart (both run `HTTPTransportConformance`).
///
/// - 301, 302 and 303 become a GET without a body (as browsers and libcurl do; HEAD stays HEAD);
///   307 and 308 keep the method and the body.
/// - `Authorization` and `Cookie` are dropped when the origin (scheme, host, port) changes.
/// - Only `http` and `https` targets are followed; at most ``maxRedirects`` hops.
/// - The deadline covers the whole exchange: every hop, with its body, within the one `timeout`.
package enum RedirectPolicy {
    /// The most redirects followed for one request.
    package static let maxRedirects = 10

    /// The request a 3xx reply redirects to, or nil when it is not a redirect to follow.
    package static func next(from request: HTTPRequest, body: Data?, reply: HTTPResponse) -> (head: HTTPRequest, body: Data?)? {
        let status = reply.status.code
        guard [301, 302, 303, 307, 308].contains(status), let location = reply.headerFields[.location],
              let current = request.url,
              let target = URL(string: location, relativeTo: current)?.absoluteURL,
              target.scheme == "http" || target.scheme == "https", target.host != nil else { return nil }
        var next = HTTPRequest(method: request.method, url: target, headerFields: request.headerFields)
        var nextBody = body
        if status <= 303, request.method != .get, request.method != .head {
            next.method = .get
            nextBody = nil
            next.headerFields[.contentType] = nil
            next.headerFields[.contentLength] = nil
        }
        if target.scheme != current.scheme || target.host != current.host || target.port != current.port {
            next.headerFields[.authorization] = nil
            next.headerFields[.cookie] = nil
        }
        return (next, nextBody)
    }

    /// Sends `request` through `sendOnce`, following redirects when `follow` is true, all within
    /// `deadline`: each hop gets what is left of it.
    /// - Throws: a `.timeout` ``TransportError`` when the deadline passed between hops, an `.other`
    ///   one after more than ``maxRedirects`` redirects; what `sendOnce` throws.
    package static func send(_ request: HTTPRequest, body: Data?, deadline: Duration, follow: Bool,
                             sendOnce: (HTTPRequest, Data?, Duration) async throws -> HTTPReply) async throws -> HTTPReply {
        guard follow else { return try await sendOnce(request, body, deadline) }
        let started = ContinuousClock.now
        var current = (head: request, body: body)
        var remaining = deadline
        for _ in 0...maxRedirects {
            let reply = try await sendOnce(current.head, current.body, remaining)
            guard let next = next(from: current.head, body: current.body, reply: reply.head) else { return reply }
            remaining = deadline - (ContinuousClock.now - started)
            guard remaining > .zero else { throw TransportError(.timeout, "no complete reply within \(deadline)") }
            current = next
        }
        throw TransportError(.other, "more than \(maxRedirects) redirects")
    }

    /// The error of a reply body larger than `maxBytes`.
    package static func tooLarge(_ maxBytes: Int) -> TransportError {
        TransportError(.responseTooLarge, "the reply body is larger than \(maxBytes) bytes")
    }
}
