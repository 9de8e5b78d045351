@_exported import AuthHubWebCore
import AuthHub
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import Vapor

/// The identity AuthHub's middlewares log in on `req.auth` (Vapor's `Authenticatable`):
/// `try req.auth.require(AuthHubIdentity.self)`.
extension AuthHubIdentity: Authenticatable {}

extension WebRequest {
    /// The web core's view of a Vapor request: its method, URI and headers copied into an
    /// `HTTPRequest`, its body read on demand.
    public init(_ request: Request) {
        var fields = HTTPFields()
        fields.reserveCapacity(request.headers.count)
        for (name, value) in request.headers {
            if let field = HTTPField.Name(name) { fields.append(HTTPField(name: field, value: value)) }
        }
        let head = HTTPRequest(method: HTTPRequest.Method(request.method.rawValue) ?? .get, scheme: nil, authority: nil,
                               path: request.url.string, headerFields: fields)
        let body = request.body
        self.init(head: head, peerAddress: request.remoteAddress?.ipAddress) { limit in
            guard var buffer = try await body.collect(max: limit).get() else { return [] }
            return buffer.readBytes(length: buffer.readableBytes) ?? []
        }
    }
}

extension Response {
    /// A Vapor response with the web core's status, header fields and body.
    public convenience init(_ response: WebResponse) {
        var headers = HTTPHeaders()
        headers.reserveCapacity(response.headerFields.count)
        for field in response.headerFields { headers.add(name: field.name.rawName, value: field.value) }
        self.init(status: HTTPResponseStatus(statusCode: response.status.code, reasonPhrase: response.status.reasonPhrase),
                  headers: headers, body: response.body.isEmpty ? .empty : Response.Body(buffer: ByteBuffer(bytes: response.body)))
    }
}

/// An error from the hub as the response AuthHub's web core gives it (``AuthHubWeb/errorResponse(for:)``),
/// thrown from a Vapor route: `throw req.authHubError(error)`.
///
/// AuthHub's session middleware answers it with the web core's exact response; without that
/// middleware, Vapor's `ErrorMiddleware` renders it as an `AbortError` with the same status and
/// headers (`Set-Cookie` clearing the session, `Retry-After`, the security headers) and the same
/// sentence as its reason.
public struct AuthHubVaporError: AbortError, Sendable {
    /// The error answered.
    public let error: AuthError
    /// The response it maps to.
    public let webResponse: WebResponse

    public init(_ error: any Error, web: AuthHubWeb) {
        self.error = AuthError.wrap(error)
        webResponse = web.errorResponse(for: error)
    }

    public var status: HTTPResponseStatus { HTTPResponseStatus(statusCode: webResponse.status.code) }
    public var reason: String { String(decoding: webResponse.body, as: UTF8.self).trimmingCharacters(in: .newlines) }
    public var headers: HTTPHeaders {
        var headers = HTTPHeaders()
        for field in webResponse.headerFields where field.name != .contentType { headers.add(name: field.name.rawName, value: field.value) }
        return headers
    }
}

extension Request {
    /// The error for a route to throw for an error from the hub, AuthHub's way (see
    /// ``AuthHubWeb/errorResponse(for:)``): a session that is over answers 401 and clears the cookie;
    /// an unreachable provider 503, keeping both. Without a web integration (``Application/useAuthHub(_:web:)``
    /// given none), the error as it is.
    public func authHubError(_ error: any Error) -> any Error {
        guard let web = application.authHubStorage?.web else { return error }
        return AuthHubVaporError(error, web: web)
    }
}
