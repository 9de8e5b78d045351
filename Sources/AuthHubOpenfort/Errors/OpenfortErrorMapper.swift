import AuthHub
import Foundation

/// Maps Openfort error replies to ``AuthError`` (<doc:OpenfortErrors>): by the vendor code first, then by HTTP
/// status.
///
/// Body shapes accepted (openfort-js `extractApiError`):
/// 1. flat `{ "code", "message" }` (better-auth),
/// 2. nested `{ "error": { "code", "message", "status"? } }` (and the legacy v1
///    `{ "error": { "type", "message" } }`, whose `type` is read when there is no `code`),
/// 3. string `{ "error": "…", "error_description"?, "code"? }`,
/// 4. Openfort API `{ "message"?, "error"?, "statusCode"?, "correlationId"? }`.
///
/// The code is `error.code` → (`error.type`) → `code` → `error` (a string); the message
/// `error.message` → `error_description` → `message`. A body that is empty, not JSON or of
/// another shape maps by status alone; the vendor code then is `REQUEST_ERROR`, as in openfort-js.
///
/// Status fallback: 400/404/422 → ``AuthErrorCode/invalidRequest``, 401 →
/// ``AuthErrorCode/invalidCredentials`` (or ``AuthErrorCode/sessionExpired`` on calls made with a
/// session token, see ``sessionCall``), 403 → ``AuthErrorCode/accessDenied`` (`USER_NOT_AUTHORIZED`),
/// 429 → ``AuthErrorCode/rateLimited`` (with `Retry-After`), 5xx →
/// ``AuthErrorCode/providerUnavailable``.
@_spi(Internals) public struct OpenfortErrorMapper: ErrorMapper {
    /// Whether the mapped calls carry the user's session token: a 401 without a known code then
    /// means the session is no longer valid rather than wrong credentials.
    public var sessionCall: Bool
    /// Whether the mapped calls go to the legacy v1 API (`/iam/v1/…`), whose refresh endpoint
    /// answers a dead refresh token with 400, 401, 403 or 404.
    public var legacyAPI: Bool

    /// Creates a mapper.
    public init(sessionCall: Bool = false, legacyAPI: Bool = false) {
        self.sessionCall = sessionCall
        self.legacyAPI = legacyAPI
    }

    /// The vendor code used when a body names none (openfort-js's fallback).
    public static let fallbackCode = "REQUEST_ERROR"

    /// The canonical code of every vendor code <doc:OpenfortErrors> lists (better-auth server codes, the
    /// openfort-js client codes, and the common OAuth string errors).
    public static let codes: [String: AuthErrorCode] = [
        // credentials
        "INVALID_EMAIL_OR_PASSWORD": .invalidCredentials,
        "INVALID_CREDENTIALS": .invalidCredentials,
        "INVALID_PASSWORD": .invalidCredentials,
        "CREDENTIAL_ACCOUNT_NOT_FOUND": .invalidCredentials,
        "INVALID_EMAIL": .invalidEmail,
        "PASSWORD_TOO_SHORT": .weakPassword,
        "PASSWORD_TOO_LONG": .weakPassword,
        "EMAIL_NOT_VERIFIED": .emailNotVerified,
        // users
        "USER_ALREADY_EXISTS": .emailAlreadyInUse,
        "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL": .emailAlreadyInUse,
        "EMAIL_ALREADY_IN_USE": .emailAlreadyInUse,
        "USER_NOT_FOUND": .userNotFound,
        "USER_EMAIL_NOT_FOUND": .userNotFound,
        "ACCOUNT_NOT_FOUND": .userNotFound,
        "INVALID_USER": .userNotFound,
        "FAILED_TO_CREATE_USER": .invalidRequest,
        "FAILED_TO_UPDATE_USER": .invalidRequest,
        "USER_ALREADY_HAS_PASSWORD": .invalidRequest,
        "EMAIL_ALREADY_VERIFIED": .invalidRequest,
        "EMAIL_CAN_NOT_BE_UPDATED": .invalidRequest,
        "EMAIL_CANNOT_BE_UPDATED": .invalidRequest,
        "CHANGE_EMAIL_DISABLED": .unsupported,
        // sessions
        "SESSION_EXPIRED": .requiresRecentLogin,
        "FAILED_TO_CREATE_SESSION": .providerUnavailable,
        "SESSION_CREATION_FAILED": .providerUnavailable,
        "COULD_NOT_CREATE_SESSION": .providerUnavailable,
        "FAILED_TO_GET_SESSION": .providerUnavailable,
        "SESSION_RETRIEVAL_FAILED": .providerUnavailable,
        "NOT_LOGGED_IN": .noSession,
        "ALREADY_LOGGED_IN": .conflict,
        "REFRESH_TOKEN_ERROR": .refreshTokenInvalid,
        "LOGOUT_ERROR": .unknown,
        // tokens
        "INVALID_TOKEN": .invalidToken,
        "TOKEN_EXPIRED": .invalidToken,
        // social
        "PROVIDER_NOT_FOUND": .invalidRequest,
        "OAUTH_PROVIDER_NOT_FOUND": .invalidRequest,
        "ID_TOKEN_NOT_SUPPORTED": .invalidToken,
        "OAUTH_TOKEN_INVALID": .invalidToken,
        "FAILED_TO_GET_USER_INFO": .invalidToken,
        "OAUTH_USER_INFO_FAILED": .invalidToken,
        "SOCIAL_ACCOUNT_ALREADY_LINKED": .conflict,
        "LINKED_ACCOUNT_ALREADY_EXISTS": .conflict,
        "FAILED_TO_UNLINK_LAST_ACCOUNT": .invalidRequest,
        "CANNOT_UNLINK_LAST_ACCOUNT": .invalidRequest,
        // project configuration (allow-lists, disabled methods)
        "INVALID_CALLBACK_URL": .invalidConfiguration,
        "INVALID_REDIRECT_URL": .invalidConfiguration,
        "INVALID_ERROR_CALLBACK_URL": .invalidConfiguration,
        "INVALID_NEW_USER_CALLBACK_URL": .invalidConfiguration,
        "INVALID_ORIGIN": .invalidConfiguration,
        "MISSING_OR_NULL_ORIGIN": .invalidConfiguration,
        "CALLBACK_URL_REQUIRED": .invalidConfiguration,
        "EMAIL_PASSWORD_DISABLED": .invalidConfiguration,
        "PROVIDER_DISABLED": .invalidConfiguration,
        "INVALID_CONFIGURATION": .invalidConfiguration,
        // one-time codes
        "INVALID_OTP": .invalidMFACode,
        "OTP_INVALID": .invalidMFACode,
        "OTP_EXPIRED": .invalidMFACode,
        "TOO_MANY_ATTEMPTS": .rateLimited,
        "OTP_SEND_FAILED": .providerUnavailable,
        "OTP_REQUIRED": .invalidRequest,
        // anonymous
        "ANONYMOUS_USERS_CANNOT_SIGN_IN_AGAIN_ANONYMOUSLY": .conflict,
        // request validation
        "VALIDATION_ERROR": .invalidRequest,
        "MISSING_FIELD": .invalidRequest,
        "BODY_MUST_BE_AN_OBJECT": .invalidRequest,
        "REQUEST_ERROR": .unknown,
        "INTERNAL_ERROR": .providerUnavailable,
        "USER_NOT_AUTHORIZED": .accessDenied,
        // string errors (shape 3, OAuth redirects)
        "invalid_request": .invalidRequest,
        "unauthorized": .invalidCredentials,
        "access_denied": .accessDenied,
        "state_mismatch": .stateMismatch,
        "please_restart_the_process": .stateMismatch,
        "rate_limited": .rateLimited,
    ]

    /// The canonical code of a vendor code, if it is a known one.
    public static func code(for providerCode: String) -> AuthErrorCode? {
        codes[providerCode] ?? codes[providerCode.uppercased()]
    }

    /// The vendor code and message a body carries, by the extraction order above.
    public static func extract(_ body: Data) -> (code: String?, message: String?) {
        guard !body.isEmpty, let json = try? JSONValue.parse(body), let object = json.objectValue else { return (nil, nil) }
        let nested = object["error"]?.objectValue
        let code = nonEmpty(nested?["code"]?.stringValue) ?? nonEmpty(nested?["type"]?.stringValue)
            ?? nonEmpty(object["code"]?.stringValue) ?? nonEmpty(object["error"]?.stringValue)
        let message = nonEmpty(nested?["message"]?.stringValue) ?? nonEmpty(object["error_description"]?.stringValue)
            ?? nonEmpty(object["message"]?.stringValue)
        return (code, message)
    }

    private static func nonEmpty(_ s: String?) -> String? {
        guard let s, !s.isEmpty else { return nil }
        return s
    }

    /// Maps a reply. On a ``AuthOperation/refresh`` (v2 `GET /get-session`, v1 `POST /iam/v1/sessions`)
    /// the answers that mean the session is over map to ``AuthErrorCode/refreshTokenInvalid``, not
    /// retryable: 401 on v2; 400, 401, 403 and 404 on v1.
    public func map(_ response: HTTPReply, provider: String, operation: AuthOperation) -> AuthError {
        let (vendorCode, message) = Self.extract(response.body)
        let status = response.status
        var code = vendorCode.flatMap(Self.code(for:)) ?? Self.code(forStatus: status, sessionCall: sessionCall)
        // A known code whose mapping is generic still yields to a specific status.
        if code == .unknown, status == 429 { code = .rateLimited }
        if operation == .refresh, (legacyAPI ? [400, 401, 403, 404] : [401]).contains(status) {
            code = .refreshTokenInvalid
            return AuthError(code, message: message, provider: provider, providerCode: vendorCode ?? Self.fallbackCode,
                             statusCode: status, isRetryable: false)
        }
        let providerCode = vendorCode ?? (status == 403 ? "USER_NOT_AUTHORIZED" : Self.fallbackCode)
        return AuthError(code, message: message, provider: provider, providerCode: providerCode, statusCode: status,
                         retryAfter: response.headerFields.retryAfter(),
                         isRetryable: code == .rateLimited || code == .providerUnavailable ? true : nil)
    }

    /// The canonical code for a status alone.
    public static func code(forStatus status: Int, sessionCall: Bool) -> AuthErrorCode {
        if status == 401, sessionCall { return .sessionExpired }
        return StatusErrorMapper.code(forStatus: status)
    }
}
