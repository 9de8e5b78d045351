import AuthHub
import Foundation
import HTTPTypes

/// A request as AuthHub's web core reads it: the head in swift-http-types (method, path with its
/// query, header fields) and a way to read the body, which the core reads only for a form it must
/// check (sign-out, state changes) and never beyond a bound.
///
/// An adapter builds one from its framework's request: Hummingbird's `Request.head` is already an
/// `HTTPRequest`; Vapor's method, URI and headers are copied.
public struct WebRequest: Sendable {
    public var head: HTTPRequest
    /// Reads the body, at most `limit` bytes; throws (any error) when the body is longer.
    public var readBody: @Sendable (_ limit: Int) async throws -> [UInt8]
    /// The client's address as the framework saw the connection (behind a proxy: the proxy's, unless
    /// the framework is set up to read a forwarding header it trusts); nil when the adapter has none.
    /// Kept with a browser session only when the app opts in
    /// (``WebSignInConfiguration/recordsClientAddress``).
    public var peerAddress: String?

    public init(head: HTTPRequest, peerAddress: String? = nil,
                readBody: @escaping @Sendable (_ limit: Int) async throws -> [UInt8] = { _ in [] }) {
        self.head = head
        self.peerAddress = peerAddress
        self.readBody = readBody
    }

    public var method: HTTPRequest.Method { head.method }
    public var headerFields: HTTPFields { head.headerFields }

    /// The path without its query.
    public var path: String {
        let full = head.path ?? "/"
        return full.firstIndex(of: "?").map { String(full[..<$0]) } ?? full
    }

    /// The raw query (after `?`, still percent-encoded), or nil.
    public var query: String? {
        guard let full = head.path, let mark = full.firstIndex(of: "?") else { return nil }
        return String(full[full.index(after: mark)...])
    }

    /// The decoded query parameters (`+` is a space); the first of a repeated name wins.
    public var queryParameters: [String: String] {
        guard let query else { return [:] }
        return Dictionary(FormEncoding.decode(query), uniquingKeysWith: { first, _ in first })
    }

    /// The value of cookie `name` (`WebCookie.value(named:in:)`).
    public func cookie(_ name: String) -> String? {
        WebCookie.value(named: name, in: head.headerFields[values: .cookie])
    }

    /// The fields of a form body (`application/x-www-form-urlencoded`, at most 4 KiB; the last of a
    /// repeated name wins); empty for another content type.
    /// - Throws: ``AuthErrorCode/invalidRequest`` for a longer body.
    public func formFields() async throws -> [String: String] {
        try await formFields(limit: 4096)
    }

    /// ``formFields()`` for a form that may be larger (a passkey's registration: up to `limit` bytes).
    public func formFields(limit: Int) async throws -> [String: String] {
        guard head.headerFields[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true else { return [:] }
        let body: [UInt8]
        do {
            body = try await readBody(limit)
        } catch {
            throw AuthError(.invalidRequest, message: "The form is too large.")
        }
        guard body.count <= limit else { throw AuthError(.invalidRequest, message: "The form is too large.") }
        return Dictionary(FormEncoding.decode(String(decoding: body, as: UTF8.self)), uniquingKeysWith: { _, last in last })
    }

    /// The header AuthHub's forms and scripts send the CSRF token in.
    public static let csrfHeader = HTTPField.Name("X-CSRF-Token")!
}
