import AuthHub
import AuthHubOIDC
import Foundation

/// Maps Auth0 Authentication API error replies (<doc:Auth0Errors>) to ``AuthError``.
///
/// - The vendor code is `error`, else `code`; an empty body is `a0.sdk.internal_error.empty`, a
///   non-JSON body `a0.sdk.internal_error.plain`. It lands in ``AuthError/providerCode``.
/// - The message is `description` when it is a string, else `error_description`, else
///   `Received error with code X.` (PasswordStrengthError's `description` is an object of rules).
/// - ``AuthError/details`` keeps `name` (the DB-connection error class) and `description` (the
///   exact text), so every helper of <doc:Auth0Errors>: “Helpers and canonical codes” is answerable from the error: see ``Auth0ErrorHelpers``.
/// - The canonical code follows those helpers: `mfa_required` → `mfaRequired` (with the MFA token
///   and requirements in ``AuthError/mfa``), wrong email or password → `invalidCredentials`, a
///   deleted or unknown refresh token → `refreshTokenInvalid` (the only code that clears a stored
///   session), 429 → `rateLimited` with `Retry-After`, 5xx → `providerUnavailable`, and so on.
///   Standard OAuth codes the helpers leave follow the generic ``OAuthErrorMapper`` table, so both
///   plugins agree (`unauthorized_client` → `invalidConfiguration`; `invalid_grant` with another
///   description → `invalidCredentials`, or `refreshTokenInvalid` on a refresh, as RFC 6749 reads it).
@_spi(Internals) public struct Auth0ErrorMapper: ErrorMapper {
    /// The code of an empty error body.
    public static let emptyBodyCode = "a0.sdk.internal_error.empty"
    /// The code of a body that is not a JSON object.
    public static let plainBodyCode = "a0.sdk.internal_error.plain"

    public init() {}

    public func map(_ response: HTTPReply, provider: String, operation: AuthOperation) -> AuthError {
        let info: [String: JSONValue]
        let vendorCode: String
        let description: String
        if response.body.isEmpty {
            info = [:]
            vendorCode = Self.emptyBodyCode
            description = "Empty response body."
        } else if let object = (try? JSONValue.parse(response.body))?.objectValue {
            info = object
            vendorCode = object["error"]?.stringValue ?? object["code"]?.stringValue ?? "a0.sdk.internal_error.unknown"
            description = object["description"]?.stringValue ?? object["error_description"]?.stringValue
                ?? "Received error with code \(vendorCode)."
        } else {
            info = [:]
            vendorCode = Self.plainBodyCode
            // The body of a non-JSON reply (an HTML error page) is not shown: it may be long and is
            // not meant for users.
            description = "The server answered HTTP \(response.status) with a body that is not JSON."
        }
        var details: [String: String] = ["description": description]
        if let name = info["name"]?.stringValue { details["name"] = name }
        let helpers = Auth0ErrorHelpers(code: vendorCode, description: description, name: details["name"],
                                        statusCode: response.status)
        var mfa: MFARequirement?
        if helpers.isMultifactorRequired, let token = info["mfa_token"]?.stringValue {
            let requirements = info["mfa_requirements"]
            mfa = MFARequirement(
                token: Secret(token),
                challengeTypes: requirements?["challenge"]?.arrayValue?.compactMap { $0["type"]?.stringValue } ?? [],
                enrollTypes: requirements?["enroll"]?.arrayValue?.compactMap { $0["type"]?.stringValue } ?? [])
        }
        var code = Self.canonicalCode(helpers, status: response.status, operation: operation)
        var message = description
        if operation == .tokenExchange, description == "Unauthorized" {
            // Auth0 answers a PKCE exchange by a confidential application with just "Unauthorized".
            code = .invalidConfiguration
            message = "PKCE not allowed: the Auth0 application type must be Native and its Token Endpoint Auth Method None."
        }
        return AuthError(
            code, message: message, provider: provider, providerCode: vendorCode, statusCode: response.status,
            retryAfter: response.headerFields.retryAfter(), isRetryable: helpers.isRetryable,
            mfa: mfa, details: details)
    }

    /// The canonical code: Auth0's own rules first (the helpers' exact codes and descriptions, the
    /// DB-connection codes), then, for the standard OAuth codes, the generic mapper's table
    /// (``OAuthErrorMapper/canonicalCode(for:statusCode:operation:)``), so that `unauthorized_client`,
    /// `invalid_client`, `unsupported_grant_type`, `invalid_grant`, `expired_token`, `slow_down`,
    /// `server_error`, … mean the same ``AuthErrorCode`` from either plugin; anything else by status.
    static func canonicalCode(_ h: Auth0ErrorHelpers, status: Int, operation: AuthOperation? = nil) -> AuthErrorCode {
        if h.isMultifactorRequired { return .mfaRequired }
        if h.isMultifactorEnrollRequired { return .mfaEnrollmentRequired }
        if h.isMultifactorCodeInvalid { return .invalidMFACode }
        if h.isMultifactorTokenInvalid { return .sessionExpired }
        if h.isPasswordNotStrongEnough || h.isPasswordAlreadyUsed { return .weakPassword }
        if h.isPasswordLeaked { return .passwordLeaked }
        if h.isInvalidCredentials { return .invalidCredentials }
        if h.isRefreshTokenDeleted || h.isInvalidRefreshToken { return .refreshTokenInvalid }
        // Bot detection ("Suspicious request requires verification"): a CAPTCHA on Universal Login,
        // not an email to verify.
        if h.isVerificationRequired { return .captchaRequired }
        if h.isTooManyAttempts { return .rateLimited }
        if h.isAccessDenied || h.isRuleError { return .accessDenied }
        if h.isLoginRequired { return .requiresRecentLogin }
        switch h.code {
        case "user_exists", "username_exists": return .emailAlreadyInUse
        case "invalid_signup", "bad.email", "bad.connection", "use_dpop_nonce":
            return status >= 500 ? .providerUnavailable : .invalidRequest
        default:
            return OAuthErrorMapper.canonicalCode(for: h.code, statusCode: status, operation: operation)
                ?? StatusErrorMapper.code(forStatus: status)
        }
    }
}
