import AuthHub
import Foundation

/// Maps OAuth 2.0 / OpenID Connect error codes (RFC 6749, sections 4.1.2.1 and 5.2, OpenID Connect Core, section 3.1.2.6)
/// to ``AuthError``s, for authorization callbacks and token endpoint replies.
///
/// The raw code is kept in ``AuthError/providerCode`` and `error_description` becomes the message
/// (it is written by the provider for people). Codes it does not know map by HTTP status, as
/// ``StatusErrorMapper`` does.
public struct OAuthErrorMapper: ErrorMapper {
    /// Creates the mapper.
    public init() {}

    /// Maps a token endpoint reply (`{"error", "error_description"}`; falls back to `code` and
    /// `description`/`message`).
    ///
    /// On a ``AuthOperation/refresh``, `invalid_grant` (RFC 6749, section 5.2: the refresh token is
    /// invalid, expired, revoked or issued to another client) maps to
    /// ``AuthErrorCode/refreshTokenInvalid``, not retryable; elsewhere it is
    /// ``AuthErrorCode/invalidCredentials``.
    public func map(_ response: HTTPReply, provider: String, operation: AuthOperation) -> AuthError {
        guard let body = OAuthErrorBody.decode(response), let code = body.error ?? body.code else {
            return StatusErrorMapper().map(response, provider: provider, operation: operation)
        }
        let description = body.description ?? body.errorDescription ?? body.message
        let error = Self.error(code, description: description, statusCode: response.status)
            .with(provider: provider, retryAfter: response.headerFields.retryAfter())
        if operation == .refresh, code == "invalid_grant" {
            return error.with(code: .refreshTokenInvalid, isRetryable: false)
        }
        return error
    }

    /// The error an authorization callback's `error` parameter stands for.
    /// - Parameters:
    ///   - code: the `error` value, e.g. `access_denied`.
    ///   - description: the `error_description` value.
    ///   - statusCode: the status to record (302 for a redirect).
    public static func authorizationError(_ code: String, description: String?, statusCode: Int? = 302) -> AuthError {
        error(code, description: description, statusCode: statusCode)
    }

    /// The canonical code for an OAuth error code, or nil when the code says nothing specific.
    public static func canonicalCode(for oauthCode: String) -> AuthErrorCode? {
        switch oauthCode {
        case "access_denied", "unauthorized": .accessDenied
        case "login_required", "interaction_required", "consent_required", "account_selection_required": .requiresRecentLogin
        case "invalid_grant": .invalidCredentials
        case "invalid_client", "unauthorized_client", "unsupported_grant_type", "unsupported_response_type",
             "invalid_redirect_uri": .invalidConfiguration
        case "invalid_request", "invalid_scope", "invalid_request_uri", "invalid_request_object",
             "request_not_supported", "request_uri_not_supported", "registration_not_supported": .invalidRequest
        case "server_error", "temporarily_unavailable": .providerUnavailable
        case "too_many_attempts", "slow_down": .rateLimited
        case "mfa_required": .mfaRequired
        default: nil
        }
    }

    private static func error(_ code: String, description: String?, statusCode: Int?) -> AuthError {
        let canonical = canonicalCode(for: code) ?? statusCode.map(StatusErrorMapper.code(forStatus:)) ?? .unknown
        let message = description.flatMap { $0.isEmpty ? nil : $0 } ?? "The provider returned the error \(code)."
        return AuthError(canonical, message: message, providerCode: code, statusCode: statusCode)
    }
}
