import AuthHub
import Foundation

/// Maps Management API v2 errors (<doc:Auth0Endpoints>: “Management API users”) to ``AuthError``.
///
/// The wire body is `{statusCode, error, message, errorCode}`, e.g.
/// `{"statusCode":404,"error":"Not Found","message":"The user does not exist.","errorCode":"inexistent_user"}`.
/// Auth0.swift 2.x read `code` and `description` from it and so lost both the specific code and the
/// text; this mapper reads the real members:
/// - ``AuthError/providerCode``: `errorCode`, else `error` (the HTTP reason phrase), else `code`;
/// - ``AuthError/message``: `message`, else `description`, else `error`;
/// - ``AuthError/details``: `error` under `"error"`.
///
/// Canonical codes: 401 → ``AuthErrorCode/invalidToken``; 403 → ``AuthErrorCode/accessDenied``, or
/// `insufficientScope` when `errorCode` is `insufficient_scope` (the token lacks the endpoint's
/// scope); 404 → ``AuthErrorCode/userNotFound`` when `errorCode` is `inexistent_user`, else
/// ``AuthErrorCode/invalidRequest``; 400 → ``AuthErrorCode/invalidRequest``; 409 →
/// ``AuthErrorCode/conflict``; 429 → ``AuthErrorCode/rateLimited`` with `Retry-After`; anything else
/// by status alone (5xx → ``AuthErrorCode/providerUnavailable``).
@_spi(Internals) public struct Auth0ManagementErrorMapper: ErrorMapper {
    /// Creates the mapper.
    public init() {}

    /// Maps one non-2xx reply.
    public func map(_ response: HTTPReply, provider: String, operation: AuthOperation) -> AuthError {
        let body = (try? JSONValue.parse(response.body))?.objectValue ?? [:]
        let errorCode = body["errorCode"]?.stringValue
        let reason = body["error"]?.stringValue
        let providerCode = errorCode ?? reason ?? body["code"]?.stringValue
        let message = body["message"]?.stringValue ?? body["description"]?.stringValue ?? reason
        var details: [String: String] = [:]
        if let reason { details["error"] = reason }
        let canonical: AuthErrorCode
        switch response.status {
        case 401: canonical = .invalidToken
        case 403:
            canonical = errorCode == "insufficient_scope" ? .insufficientScope : .accessDenied
        case 404: canonical = errorCode == "inexistent_user" ? .userNotFound : .invalidRequest
        case 400: canonical = .invalidRequest
        case 409: canonical = .conflict
        case 429: canonical = .rateLimited
        default: canonical = StatusErrorMapper.code(forStatus: response.status)
        }
        return AuthError(canonical, message: message, provider: provider, providerCode: providerCode,
                         statusCode: response.status, retryAfter: response.headerFields.retryAfter(), details: details)
    }
}
