import Foundation

/// Turns a provider's non-success HTTP reply into an ``AuthError``.
///
/// Every provider plugin has one, tested with the golden error bodies of its spec sheet. The
/// contract:
/// - the result's ``AuthError/provider`` is the provider id, ``AuthError/statusCode`` the HTTP
///   status and ``AuthError/providerCode`` the vendor's raw code when the body has one;
/// - a body that is empty, not JSON or of an unexpected shape still maps (by status) — never a crash;
/// - 429 maps to ``AuthErrorCode/rateLimited`` with `Retry-After`, 5xx to
///   ``AuthErrorCode/providerUnavailable`` unless the body says something more specific;
/// - the message never contains a token, password or code taken from the request;
/// - what a code means for the operation is decided here, from `operation`: a refresh whose token
///   the provider no longer accepts maps to ``AuthErrorCode/refreshTokenInvalid`` in the mapper,
///   not by callers rewriting the mapped error.
public protocol ErrorMapper: Sendable {
    /// Maps a reply.
    /// - Parameters:
    ///   - response: the HTTP reply (status, headers, body).
    ///   - provider: the provider id to attribute the error to.
    ///   - operation: what the request was for (``APIRequest/operation``).
    func map(_ response: HTTPReply, provider: String, operation: AuthOperation) -> AuthError
}

extension ErrorMapper {
    /// Maps a reply to a request of no particular operation (``AuthOperation/other``).
    public func map(_ response: HTTPReply, provider: String) -> AuthError {
        map(response, provider: provider, operation: .other)
    }
}

/// A mapper that knows no vendor format: it classifies by HTTP status only and reads the common
/// OAuth `{"error", "error_description"}` body when present. Provider plugins use it as the fallback.
public struct StatusErrorMapper: ErrorMapper {
    public init() {}

    public func map(_ response: HTTPReply, provider: String, operation: AuthOperation) -> AuthError {
        var providerCode: String?
        var message: String?
        if let body = try? JSONValue.parse(response.body) {
            providerCode = body["error"]?.stringValue ?? body["code"]?.stringValue
            message = body["error_description"]?.stringValue ?? body["message"]?.stringValue
        }
        return AuthError(
            StatusErrorMapper.code(forStatus: response.status),
            message: message,
            provider: provider,
            providerCode: providerCode,
            statusCode: response.status,
            retryAfter: response.headerFields.retryAfter()
        )
    }

    /// The canonical code for an HTTP status alone.
    public static func code(forStatus status: Int) -> AuthErrorCode {
        switch status {
        case 400, 404, 405, 409, 422: .invalidRequest
        case 401: .invalidCredentials
        case 403: .accessDenied
        case 408: .timeout
        case 429: .rateLimited
        case 500...599: .providerUnavailable
        default: .unknown
        }
    }
}
