import Foundation
import HTTPTypes

/// The rules every AuthHub transport follows for redirects and reply encodings, in one place so that
/// `URLSessionTransport` and the AsyncHTTPClient transport cannot drift apart (both run
/// `HTTPTransportConformance`).
///
/// Credentials never follow a redirect to another origin, and token endpoints are never redirected:
/// - A request with a body (a `POST` to a token endpoint carries a password, a code or a refresh
///   token) follows **no** redirect: OAuth servers do not redirect those endpoints, so a 3xx there is
///   an attacker's or a misconfiguration, and re-sending (307/308) would hand the secret to its target.
/// - A request carrying credentials in a header (`Authorization`, `Proxy-Authorization`, `Cookie`,
///   `DPoP`, a Turnkey stamp, an API key: any name ``Redactor/isSensitive(_:)`` calls sensitive)
///   follows a redirect only within its origin (scheme, host, port).
/// - No redirect goes from `https` to `http`.
/// - Otherwise (a `GET` of discovery or keys): 301, 302 and 303 become a GET without a body; 307 and 308
///   keep the method. Only `http` and `https` targets are followed; at most ``maxRedirects`` hops.
/// - A redirect refused by these rules is a `.redirectRefused` ``TransportError`` naming the status and
///   the target (scheme, host, port and path; never the query, which may carry a code).
/// - The deadline covers the whole exchange: every hop, with its body, within the one `timeout`.
///
/// Replies are asked for without compression (`Accept-Encoding: identity`), and a reply with a
/// `Content-Encoding` other than `identity` is refused (`.unsupportedEncoding`) before its body is read:
/// a few KiB of JSON gain nothing from compression, and a decoder that inflates a 1 MB body into 1 GiB
/// before the body cap can see it would let a hostile server exhaust memory.
package enum RedirectPolicy {
    /// The most redirects followed for one request.
    package static let maxRedirects = 10

    /// The request a 3xx reply redirects to; nil when the reply is not a redirect to follow (not a
    /// redirect status, no usable `Location`).
    /// - Throws: a `.redirectRefused` ``TransportError`` when the rules above forbid following it.
    package static func next(from request: HTTPRequest, body: Data?, reply: HTTPResponse) throws -> (head: HTTPRequest, body: Data?)? {
        let status = reply.status.code
        guard [301, 302, 303, 307, 308].contains(status), let location = reply.headerFields[.location],
              let current = request.url,
              let target = URL(string: location, relativeTo: current)?.absoluteURL,
              target.scheme == "http" || target.scheme == "https", target.host != nil else { return nil }
        func refuse(_ why: String) -> TransportError {
            TransportError(.redirectRefused, "the reply was \(status), a redirect to \(describe(target)); \(why)")
        }
        if let body, !body.isEmpty {
            throw refuse("a request with a body (credentials, a code or a token) follows no redirect")
        }
        let sameOrigin = target.scheme == current.scheme && target.host?.lowercased() == current.host?.lowercased()
            && effectivePort(target) == effectivePort(current)
        if !sameOrigin, carriesCredentials(request) {
            throw refuse("credentials are never re-sent to another origin")
        }
        if current.scheme == "https", target.scheme == "http" {
            throw refuse("a redirect from https to http is not followed")
        }
        var next = HTTPRequest(method: request.method, url: target, headerFields: request.headerFields)
        var nextBody = body
        if status <= 303, request.method != .get, request.method != .head {
            next.method = .get
            nextBody = nil
            next.headerFields[.contentType] = nil
            next.headerFields[.contentLength] = nil
        }
        return (next, nextBody)
    }

    /// Whether a header of `request` carries a credential: `Authorization`, `Proxy-Authorization`,
    /// `Cookie`, `DPoP`, or any name ``Redactor/isSensitive(_:)`` calls sensitive (stamps, API keys).
    package static func carriesCredentials(_ request: HTTPRequest) -> Bool {
        // `Redactor` calls authorization (proxy's too), cookie, DPoP and stamp names sensitive.
        request.headerFields.contains { Redactor.isSensitive($0.name.canonicalName) }
    }

    /// `scheme://host[:port]/path` of a redirect target: enough to say where it pointed, never the
    /// query or fragment (which may carry a code or a token).
    package static func describe(_ url: URL) -> String {
        var components = URLComponents()
        components.scheme = url.scheme
        components.host = url.host
        components.port = url.port
        components.path = url.path
        return components.string ?? "\(url.scheme ?? "?")://\(url.host ?? "?")"
    }

    private static func effectivePort(_ url: URL) -> Int? {
        url.port ?? (url.scheme == "https" ? 443 : url.scheme == "http" ? 80 : nil)
    }

    /// The `Accept-Encoding` every request is sent with: no compression.
    package static let acceptEncoding = "identity"

    /// `request` with `Accept-Encoding: identity` unless it names an encoding itself.
    package static func identityEncoded(_ request: HTTPRequest) -> HTTPRequest {
        guard request.headerFields[.acceptEncoding] == nil else { return request }
        var request = request
        request.headerFields[.acceptEncoding] = acceptEncoding
        return request
    }

    /// The `.unsupportedEncoding` error for a reply whose `Content-Encoding` is not `identity`; nil when
    /// the reply is not encoded. Transports call it on the head, before reading the body.
    package static func encodingRefusal(_ fields: HTTPFields) -> TransportError? {
        guard let encoding = fields[.contentEncoding]?.trimmingCharacters(in: .whitespaces), !encoding.isEmpty,
              encoding.lowercased() != "identity" else { return nil }
        let shown = String(encoding.prefix(40).unicodeScalars.filter { $0.value >= 0x20 && $0.value < 0x7F }.map(Character.init))
        return TransportError(.unsupportedEncoding,
                              "the reply is compressed (Content-Encoding: \(shown)) although none was asked for; it is not decoded")
    }

    /// Sends `request` through `sendOnce`, following redirects when `follow` is true, all within
    /// `deadline`: each hop gets what is left of it.
    /// - Throws: a `.timeout` ``TransportError`` when the deadline passed between hops, an `.other`
    ///   one after more than ``maxRedirects`` redirects, a `.redirectRefused` one for a redirect the
    ///   rules forbid; what `sendOnce` throws.
    package static func send(_ request: HTTPRequest, body: Data?, deadline: Duration, follow: Bool,
                             sendOnce: (HTTPRequest, Data?, Duration) async throws -> HTTPReply) async throws -> HTTPReply {
        let request = identityEncoded(request)
        guard follow else { return try await sendOnce(request, body, deadline) }
        let started = ContinuousClock.now
        var current = (head: request, body: body)
        var remaining = deadline
        for _ in 0...maxRedirects {
            let reply = try await sendOnce(current.head, current.body, remaining)
            guard let next = try next(from: current.head, body: current.body, reply: reply.head) else { return reply }
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
