import AuthHub
import Foundation

/// Maps Firebase Auth error replies (<doc:FirebaseErrors>: “Envelope”) to ``AuthError``.
///
/// The envelope is `{"error": {"code", "message", "errors": [{"message", "domain", "reason"}],
/// "status"?, "details"?}}`, parsed tolerantly:
/// - The server code is the text of `message` before the first `:`, trimmed (`WEAK_PASSWORD :
///   Password should be at least 6 characters` → `WEAK_PASSWORD`); the text after it is the
///   detail, kept as the error's ``AuthError/message`` (and `details["detail"]`).
/// - A `message` that is not an upper-case code (Google API-layer texts such as "The request is
///   missing a valid API key.") falls back to `status` (`PERMISSION_DENIED`) as the code.
/// - A bad API key is recognised by `errors[].reason` starting with `keyInvalid`, a
///   `google.rpc.ErrorInfo` detail with reason `API_KEY_INVALID`, or the "API key not valid"
///   message; its provider code is `API_KEY_INVALID`. `errors[].reason == "ipRefererBlocked"`
///   is the iOS `appNotAuthorized`.
/// - A body without `errors` or `status`, an OAuth-style `{"error": "...", "error_description"}`,
///   HTML, or nothing at all still maps: by code when there is one, else by HTTP status.
///
/// Every code of <doc:FirebaseErrors>: “Codes” (and the extra codes listed in <doc:FirebaseEndpoints>: “Endpoints”) has a canonical ``AuthErrorCode`` in
/// ``table``; the raw code is kept as ``AuthError/providerCode`` and the iOS SDK's numeric
/// `AuthErrorCode` as `details["iosCode"]` (`17999`, iOS's `internalError`, for codes iOS does not
/// special-case). An unknown code maps to ``AuthErrorCode/unknown`` (``AuthErrorCode/rateLimited``
/// on 429, ``AuthErrorCode/providerUnavailable`` on 5xx) with the raw code kept.
///
/// On the Secure Token endpoint (``Endpoint/secureToken``) the codes that make the iOS SDK sign
/// the user out — `USER_NOT_FOUND`, `USER_DISABLED`, `TOKEN_EXPIRED`, `INVALID_ID_TOKEN` — and
/// `INVALID_REFRESH_TOKEN` map to ``AuthErrorCode/refreshTokenInvalid``, the one code on which the
/// core ``SessionManager`` clears a stored session. Nothing else does: network failures, 429 and
/// 5xx keep the session.
@_spi(Internals) public struct FirebaseErrorMapper: ErrorMapper {
    /// Which Firebase endpoint the reply came from; it decides what the sign-out codes mean.
    public enum Endpoint: Sendable, Hashable {
        /// `identitytoolkit.googleapis.com/v1/accounts:*`.
        case identityToolkit
        /// `securetoken.googleapis.com/v1/token` (refresh).
        case secureToken
    }

    /// The canonical code and iOS `AuthErrorCode` raw value of a server code.
    public struct Entry: Sendable, Hashable {
        /// The canonical code.
        public var code: AuthErrorCode
        /// The iOS SDK's `AuthErrorCode` raw value (<doc:FirebaseErrors>: “Codes”).
        public var iosCode: String

        /// Creates an entry.
        public init(_ code: AuthErrorCode, ios: String = FirebaseErrorMapper.iosInternalError) {
            self.code = code
            self.iosCode = ios
        }
    }

    /// The iOS `internalError` raw value, used for codes iOS does not special-case.
    public static let iosInternalError = "17999"
    /// The provider code of an invalid API key.
    public static let apiKeyInvalidCode = "API_KEY_INVALID"

    /// Server codes after which the iOS SDK signs the user out when a token operation fails with them.
    public static let signOutCodes: Set<String> = ["USER_NOT_FOUND", "USER_DISABLED", "TOKEN_EXPIRED", "INVALID_ID_TOKEN"]

    /// Every known server code (<doc:FirebaseErrors>: “Codes”; <doc:FirebaseEndpoints>: “Endpoints”, plus the Google API status names Firebase replies
    /// carry when `message` is not a code).
    public static let table: [String: Entry] = [
        // AuthHubFirebase docs, FirebaseErrors: “Codes”
        "EMAIL_EXISTS": Entry(.emailAlreadyInUse, ios: "17007"),
        "EMAIL_NOT_FOUND": Entry(.userNotFound, ios: "17011"),
        "USER_NOT_FOUND": Entry(.userNotFound, ios: "17011"),
        "INVALID_PASSWORD": Entry(.invalidCredentials, ios: "17009"),
        "INVALID_LOGIN_CREDENTIALS": Entry(.invalidCredentials, ios: "17004"),
        "INVALID_IDP_RESPONSE": Entry(.invalidCredentials, ios: "17004"),
        "INVALID_PENDING_TOKEN": Entry(.invalidCredentials, ios: "17004"),
        "USER_DISABLED": Entry(.accessDenied, ios: "17005"),
        "OPERATION_NOT_ALLOWED": Entry(.unsupported, ios: "17006"),
        "PASSWORD_LOGIN_DISABLED": Entry(.unsupported, ios: "17006"),
        "INVALID_EMAIL": Entry(.invalidEmail, ios: "17008"),
        "INVALID_IDENTIFIER": Entry(.invalidEmail, ios: "17008"),
        "TOO_MANY_ATTEMPTS_TRY_LATER": Entry(.rateLimited, ios: "17010"),
        "WEAK_PASSWORD": Entry(.weakPassword, ios: "17026"),
        "PASSWORD_DOES_NOT_MEET_REQUIREMENTS": Entry(.weakPassword, ios: "17211"),
        "INVALID_ID_TOKEN": Entry(.sessionExpired, ios: "17017"),
        "TOKEN_EXPIRED": Entry(.sessionExpired, ios: "17021"),
        "CREDENTIAL_TOO_OLD_LOGIN_AGAIN": Entry(.requiresRecentLogin, ios: "17014"),
        "EXPIRED_OOB_CODE": Entry(.expiredActionCode, ios: "17029"),
        "INVALID_OOB_CODE": Entry(.invalidActionCode, ios: "17030"),
        "MISSING_EMAIL": Entry(.invalidEmail, ios: "17034"),
        "MISSING_CONTINUE_URI": Entry(.invalidConfiguration, ios: "17040"),
        "INVALID_CONTINUE_URI": Entry(.invalidConfiguration, ios: "17039"),
        "UNAUTHORIZED_DOMAIN": Entry(.invalidConfiguration, ios: "17038"),
        "MISSING_IOS_BUNDLE_ID": Entry(.invalidConfiguration, ios: "17036"),
        "MISSING_ANDROID_PACKAGE_NAME": Entry(.invalidConfiguration, ios: "17037"),
        "INVALID_MESSAGE_PAYLOAD": Entry(.invalidConfiguration, ios: "17031"),
        "INVALID_SENDER": Entry(.invalidConfiguration, ios: "17032"),
        "INVALID_RECIPIENT_EMAIL": Entry(.invalidEmail, ios: "17033"),
        "INVALID_CUSTOM_TOKEN": Entry(.invalidToken, ios: "17000"),
        "CREDENTIAL_MISMATCH": Entry(.invalidToken, ios: "17002"),
        "QUOTA_EXCEEDED": Entry(.rateLimited, ios: "17052"),
        "ADMIN_ONLY_OPERATION": Entry(.accessDenied, ios: "17085"),
        "EMAIL_CHANGE_NEEDS_VERIFICATION": Entry(.verificationRequired, ios: "17090"),
        "UNVERIFIED_EMAIL": Entry(.emailNotVerified, ios: "17086"),
        "TENANT_ID_MISMATCH": Entry(.invalidConfiguration, ios: "17072"),
        "INVALID_TENANT_ID": Entry(.invalidConfiguration),
        "UNSUPPORTED_TENANT_OPERATION": Entry(.unsupported, ios: "17073"),
        "BLOCKING_FUNCTION_ERROR_RESPONSE": Entry(.accessDenied, ios: "17105"),
        "FEDERATED_USER_ID_ALREADY_LINKED": Entry(.credentialAlreadyInUse, ios: "17025"),
        // Identity Platform second factors (v2 `mfaEnrollment:*`, `mfaSignIn:*`): the codes of
        // firebase-js-sdk's `ServerError`, with the status numbers the Android SDK assigns them,
        // which are the iOS `AuthErrorCode` raw values (`invalidVerificationCode` 17044,
        // `invalidMultiFactorSession` 17083, `multiFactorInfoNotFound` 17084, …). A wrong TOTP
        // code is `INVALID_CODE` (JS `auth/invalid-verification-code`).
        "INVALID_CODE": Entry(.invalidMFACode, ios: "17044"),
        "MISSING_CODE": Entry(.invalidMFACode, ios: "17043"),
        "INVALID_MFA_PENDING_CREDENTIAL": Entry(.sessionExpired, ios: "17083"),
        "MISSING_MFA_PENDING_CREDENTIAL": Entry(.invalidRequest, ios: "17081"),
        "MFA_ENROLLMENT_NOT_FOUND": Entry(.invalidRequest, ios: "17084"),
        "MISSING_MFA_ENROLLMENT_ID": Entry(.invalidRequest, ios: "17082"),
        "SECOND_FACTOR_EXISTS": Entry(.conflict, ios: "17087"),
        "SECOND_FACTOR_LIMIT_EXCEEDED": Entry(.conflict, ios: "17088"),
        "UNSUPPORTED_FIRST_FACTOR": Entry(.unsupported, ios: "17089"),
        "INVALID_SESSION_INFO": Entry(.sessionExpired, ios: "17046"),
        "MISSING_SESSION_INFO": Entry(.invalidRequest, ios: "17045"),
        "SESSION_EXPIRED": Entry(.sessionExpired, ios: "17051"),
        // AuthHubFirebase docs, FirebaseEndpoints: “Endpoints” extras (iOS: internalError)
        "MISSING_PASSWORD": Entry(.invalidRequest),
        "MISSING_OOB_CODE": Entry(.invalidActionCode),
        "MISSING_REQ_TYPE": Entry(.invalidRequest),
        "MISSING_ID_TOKEN": Entry(.invalidRequest),
        "RESET_PASSWORD_EXCEED_LIMIT": Entry(.rateLimited),
        "PROJECT_DISABLED": Entry(.invalidConfiguration),
        "PROJECT_NUMBER_MISMATCH": Entry(.invalidConfiguration),
        "INVALID_REFRESH_TOKEN": Entry(.refreshTokenInvalid),
        "MISSING_REFRESH_TOKEN": Entry(.invalidRequest),
        "INVALID_GRANT_TYPE": Entry(.invalidRequest),
        "MISSING_GRANT_TYPE": Entry(.invalidRequest),
        // API key and Google API statuses
        apiKeyInvalidCode: Entry(.invalidConfiguration, ios: "17023"),
        "ipRefererBlocked": Entry(.invalidConfiguration, ios: "17028"),
        "PERMISSION_DENIED": Entry(.invalidConfiguration),
        "UNAUTHENTICATED": Entry(.invalidConfiguration),
        "INVALID_ARGUMENT": Entry(.invalidRequest),
        "NOT_FOUND": Entry(.invalidRequest),
        "NOT_IMPLEMENTED": Entry(.unsupported),
        "RESOURCE_EXHAUSTED": Entry(.rateLimited),
        "UNAVAILABLE": Entry(.providerUnavailable),
        "INTERNAL": Entry(.providerUnavailable),
    ]

    /// The endpoint this mapper serves.
    public let endpoint: Endpoint

    /// Creates a mapper for replies of `endpoint`.
    public init(endpoint: Endpoint = .identityToolkit) {
        self.endpoint = endpoint
    }

    /// Splits a Firebase `message` into its code and detail: the text before the first `:`,
    /// trimmed, and the trimmed rest (nil when empty or absent).
    public static func split(_ message: String) -> (code: String, detail: String?) {
        guard let colon = message.firstIndex(of: ":") else {
            return (message.trimmingCharacters(in: .whitespacesAndNewlines), nil)
        }
        let code = message[..<colon].trimmingCharacters(in: .whitespacesAndNewlines)
        let detail = message[message.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
        return (code, detail.isEmpty ? nil : detail)
    }

    /// Whether `text` looks like a Firebase server code (`UPPER_SNAKE_CASE`).
    static func isServerCode(_ text: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
    }

    /// Maps a reply; the sign-out codes mean a dead refresh token on the Secure Token endpoint and on
    /// any request made for ``AuthOperation/refresh``.
    public func map(_ response: HTTPReply, provider: String, operation: AuthOperation) -> AuthError {
        let envelope = Envelope(response.body)
        var details: [String: String] = [:]
        if let status = envelope.status { details["status"] = status }
        if let reason = envelope.reasons.first { details["reason"] = reason }
        if let message = envelope.message { details["serverMessage"] = message }

        var serverCode: String?
        var detail: String?
        if envelope.reasons.contains(where: { $0.hasPrefix("keyInvalid") }) || envelope.detailReasons.contains(Self.apiKeyInvalidCode)
            || envelope.message?.hasPrefix("API key not valid") == true
        {
            serverCode = Self.apiKeyInvalidCode
            detail = envelope.message
        } else if envelope.reasons.contains("ipRefererBlocked") {
            serverCode = "ipRefererBlocked"
            detail = envelope.message
        } else if let message = envelope.message {
            let parts = Self.split(message)
            if Self.isServerCode(parts.code) {
                serverCode = parts.code
                detail = parts.detail
            } else {
                serverCode = envelope.status
                detail = message
            }
        } else {
            serverCode = envelope.status
            detail = envelope.description
        }
        if let detail { details["detail"] = detail }

        let code: AuthErrorCode
        if let serverCode, let entry = Self.table[serverCode] {
            details["iosCode"] = entry.iosCode
            if endpoint == .secureToken || operation == .refresh, Self.signOutCodes.contains(serverCode) {
                code = .refreshTokenInvalid
            } else {
                code = entry.code
            }
        } else if serverCode != nil {
            details["iosCode"] = Self.iosInternalError
            switch response.status {
            case 429: code = .rateLimited
            case 500...599: code = .providerUnavailable
            default: code = .unknown
            }
        } else {
            code = StatusErrorMapper.code(forStatus: response.status)
        }
        if envelope.kind != .json { details["body"] = envelope.kind.rawValue }

        return AuthError(code, message: Self.userMessage(detail: detail, serverCode: serverCode, code: code),
                         provider: provider, providerCode: serverCode, statusCode: response.status,
                         retryAfter: response.headerFields.retryAfter(), details: details)
    }

    /// The user-facing message: the server's detail when it is a sentence (never a token: Firebase
    /// details describe the rule that failed), else the core's text for the code.
    static func userMessage(detail: String?, serverCode: String?, code: AuthErrorCode) -> String? {
        if let detail, !detail.isEmpty, detail.count <= 500 { return detail }
        if let serverCode, AuthError(code).message.hasPrefix("Authentication failed") {
            return "Firebase Authentication failed with \(serverCode)."
        }
        return nil
    }
}

/// The parts of a Firebase error body, read tolerantly.
struct Envelope {
    enum Kind: String {
        case json, empty, notJSON = "not-json"
    }

    var kind: Kind = .json
    var message: String?
    var status: String?
    /// `errors[].reason`.
    var reasons: [String] = []
    /// `details[].reason` (google.rpc.ErrorInfo).
    var detailReasons: [String] = []
    /// `error_description` of an OAuth-style body.
    var description: String?

    init(_ body: Data) {
        if body.isEmpty {
            kind = .empty
            return
        }
        guard let json = try? JSONValue.parse(body), let object = json.objectValue else {
            kind = .notJSON
            return
        }
        switch object["error"] {
        case .object(let error)?:
            message = error["message"]?.stringValue
            status = error["status"]?.stringValue
            reasons = error["errors"]?.arrayValue?.compactMap { $0["reason"]?.stringValue } ?? []
            detailReasons = error["details"]?.arrayValue?.compactMap { $0["reason"]?.stringValue } ?? []
        case .string(let code)?:
            // OAuth-style `{"error": "invalid_grant", "error_description": "…"}`.
            description = object["error_description"]?.stringValue
            message = code.uppercased() + (description.map { " : " + $0 } ?? "")
        default:
            message = object["message"]?.stringValue
        }
    }
}
