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
        let error = Self.error(code, description: description, statusCode: response.status, operation: operation)
            .with(provider: provider, retryAfter: response.headerFields.retryAfter())
        if error.code == .refreshTokenInvalid {
            return error.with(isRetryable: false)
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
    ///
    /// This table is the one reading of the standard OAuth codes: the Auth0 mapper uses it too for
    /// every code its Auth0-specific rules (exact `error_description`s, DB-connection codes) leave,
    /// so one `error` means one ``AuthErrorCode`` whichever plugin received it. Notably:
    /// - `unauthorized_client` is ``AuthErrorCode/invalidConfiguration``, as are `invalid_client`,
    ///   `unsupported_grant_type`, `unsupported_response_type` and `invalid_redirect_uri`: the
    ///   client is not registered or not allowed to use this grant or response type (RFC 6749,
    ///   sections 4.1.2.1 and 5.2) — its settings at the provider must change, and neither the
    ///   user nor a retry can fix it (Auth0 answers it for a grant type the application does not
    ///   enable, e.g. device sign-in).
    /// - `invalid_grant` is ``AuthErrorCode/invalidCredentials`` (the grant — code, password,
    ///   device code — is invalid or expired), except on a refresh; see
    ///   ``canonicalCode(for:statusCode:operation:)``.
    /// - `expired_token` is ``AuthErrorCode/sessionExpired`` (RFC 8628: the device code, or for
    ///   Auth0 the MFA token, expired: the pending sign-in must start again).
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
        case "expired_token": .sessionExpired
        default: nil
        }
    }

    /// ``canonicalCode(for:)`` for a reply to `operation` with `statusCode`:
    /// - on a ``AuthOperation/refresh``, `invalid_grant` is ``AuthErrorCode/refreshTokenInvalid``
    ///   (RFC 6749, section 5.2: the refresh token is invalid, expired, revoked or issued to
    ///   another client — the session cannot be renewed);
    /// - a request-shaped code (``AuthErrorCode/invalidRequest``) sent with a 5xx status is
    ///   ``AuthErrorCode/providerUnavailable``: the server failed, not the request.
    public static func canonicalCode(for oauthCode: String, statusCode: Int?, operation: AuthOperation?) -> AuthErrorCode? {
        if operation == .refresh, oauthCode == "invalid_grant" { return .refreshTokenInvalid }
        guard let code = canonicalCode(for: oauthCode) else { return nil }
        if code == .invalidRequest, let statusCode, (500...599).contains(statusCode) { return .providerUnavailable }
        return code
    }

    private static func error(_ code: String, description: String?, statusCode: Int?, operation: AuthOperation? = nil) -> AuthError {
        let canonical = canonicalCode(for: code, statusCode: statusCode, operation: operation)
            ?? statusCode.map(StatusErrorMapper.code(forStatus:)) ?? .unknown
        let message = description.flatMap { $0.isEmpty ? nil : $0 } ?? "The provider returned the error \(code)."
        return AuthError(canonical, message: message, providerCode: code, statusCode: statusCode)
    }
}
