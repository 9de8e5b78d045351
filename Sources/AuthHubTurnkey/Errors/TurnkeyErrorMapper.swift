import AuthHub
import Foundation

/// Maps Turnkey error replies to ``AuthError`` (<doc:TurnkeyErrors>).
///
/// Bodies are gRPC statuses `{"code": <int>, "message": "…", "details": [ … ] | [] | null}`; a
/// body that is empty, truncated, HTML or of another shape maps by HTTP status alone. The raw gRPC
/// code (as text) is kept in ``AuthError/providerCode``; `BadRequest` field violations go to
/// ``AuthError/details`` (key `fieldViolations`, `field: description` pairs joined by `; `).
///
/// What a failure means depends on the request, so the mapper takes a ``Context``:
/// - ``Context/passkeyLogin``: code 16 `could not find public key in organization or its parent
///   organization` means the passkey is not registered for that account →
///   ``AuthErrorCode/invalidCredentials``;
/// - ``Context/session`` (stamped with a session key): that message, or `… expired api key …`
///   (matched on the text, whatever the numeric code) → ``AuthErrorCode/sessionExpired``;
/// - ``Context/refresh`` (a stamp_login stamped with the current session key): those messages, and
///   any other 16/401 → ``AuthErrorCode/refreshTokenInvalid`` (the session key is no longer accepted);
/// - ``Context/signUp`` (the app backend's `createSubOrg`): a message saying the email already
///   exists (is in use, registered, a duplicate), whatever the status → ``AuthErrorCode/emailAlreadyInUse``;
///   another code 6 (`ALREADY_EXISTS`) or a bare HTTP 409 → ``AuthErrorCode/conflict``;
/// - otherwise 16/401 (e.g. a stamp whose signature does not verify) → ``AuthErrorCode/invalidToken``.
///
/// By code: 3 and 9 → ``AuthErrorCode/invalidRequest``, 5 → ``AuthErrorCode/userNotFound`` during a
/// login and ``AuthErrorCode/invalidRequest`` elsewhere, 7 → ``AuthErrorCode/accessDenied``, 8 (or
/// HTTP 429) → ``AuthErrorCode/rateLimited`` with `Retry-After`, 13/14 (or HTTP 5xx) →
/// ``AuthErrorCode/providerUnavailable`` (retryable).
public struct TurnkeyErrorMapper: ErrorMapper {
    /// What the failed request was.
    public enum Context: Sendable, Hashable {
        /// Any other request (lookups, requests stamped with an API key).
        case request
        /// A passkey-stamped login (stamp_login, and its get_activity polls).
        case passkeyLogin
        /// A request stamped with the session key of a ``Session``.
        case session
        /// A stamp_login stamped with the current session key, to renew the session.
        case refresh
        /// The app backend's sub-organization creation (`POST <proxyURL>/auth/createSubOrg`) at sign-up.
        case signUp
    }

    /// The message fragment of an unknown stamp key (<doc:TurnkeyErrors>, code 16).
    public static let unknownPublicKeyMessage = "could not find public key"
    /// The message fragment of an expired API or session key (<doc:TurnkeyErrors>, code 17).
    public static let expiredKeyMessage = "expired api key"

    /// The request's context.
    public var context: Context

    /// Creates a mapper for requests of `context`.
    public init(context: Context = .request) {
        self.context = context
    }

    /// Maps a reply; a request made for ``AuthOperation/refresh`` is read as the ``Context/refresh``
    /// context whatever this mapper's own.
    public func map(_ response: HTTPReply, provider: String, operation: AuthOperation) -> AuthError {
        if operation == .refresh, context != .refresh {
            return TurnkeyErrorMapper(context: .refresh).map(response, provider: provider, operation: operation)
        }
        var code: Int?
        var message: String?
        var details: JSONValue?
        if let body = (try? JSONValue.parse(response.body))?.objectValue {
            code = Self.int(body["code"])
            // gRPC statuses carry `message`; app backends often answer `{"error": "…"}` instead.
            message = body["message"]?.stringValue ?? body["error"]?.stringValue
            details = body["details"]
        }
        return map(grpcCode: code, message: message, details: details, status: response.status, provider: provider,
                   retryAfter: response.headerFields.retryAfter())
    }

    /// Maps an activity-level failure (`activity.failure`, arriving with HTTP 200).
    public func map(activityFailure failure: JSONValue?, provider: String) -> AuthError {
        let object = failure?.objectValue
        return map(grpcCode: Self.int(object?["code"]), message: object?["message"]?.stringValue, details: object?["details"],
                   status: nil, provider: provider, retryAfter: nil, activity: true)
    }

    /// Maps a gRPC status (code, message, details) and, when known, the HTTP status.
    public func map(grpcCode: Int?, message: String?, details: JSONValue?, status: Int?, provider: String,
                    retryAfter: Duration? = nil, activity: Bool = false) -> AuthError {
        let text = message?.trimmingCharacters(in: .whitespacesAndNewlines)
        let lower = text?.lowercased() ?? ""
        let unknownKey = lower.contains(Self.unknownPublicKeyMessage)
        let expiredKey = lower.contains(Self.expiredKeyMessage)
        let unauthenticated = grpcCode == 16 || grpcCode == 17 || (grpcCode == nil && status == 401)
        var extra: [String: String] = [:]
        if let violations = Self.fieldViolations(details), !violations.isEmpty { extra["fieldViolations"] = violations }
        let what = activity ? "The Turnkey activity failed" : "Turnkey refused the request"
        let describe: (String) -> String = { fallback in
            if let text, !text.isEmpty {
                return "\(what)" + (grpcCode.map { " (code \($0))" } ?? "") + ": \(text)"
            }
            return fallback
        }
        func error(_ c: AuthErrorCode, _ msg: String, retryable: Bool? = nil) -> AuthError {
            AuthError(c, message: msg, provider: provider, providerCode: grpcCode.map(String.init), statusCode: status,
                      retryAfter: retryAfter, isRetryable: retryable, details: extra)
        }

        switch context {
        case .passkeyLogin where unknownKey:
            return error(.invalidCredentials,
                         "This passkey is not registered for the account (Turnkey could not find its public key in the organization).")
        case .session where unknownKey || expiredKey:
            return error(.sessionExpired, expiredKey
                ? "The Turnkey session key has expired; sign in again."
                : "The Turnkey session key is no longer registered for the account; sign in again.")
        case .refresh where unknownKey || expiredKey || unauthenticated:
            return error(.refreshTokenInvalid, describe("Turnkey no longer accepts the session key; sign in again."))
        case .signUp where Self.saysEmailTaken(lower):
            return error(.emailAlreadyInUse, "A Turnkey account is already registered for this email.")
        case .signUp where grpcCode == 6 || (grpcCode == nil && status == 409):
            return error(.conflict, describe("The sub-organization could not be created: something it names already exists."))
        default:
            break
        }

        switch grpcCode {
        case 3?, 9?:
            return error(.invalidRequest, describe("Turnkey rejected the request as invalid."))
        case 5?:
            return error(context == .passkeyLogin ? .userNotFound : .invalidRequest, describe("Turnkey could not find what the request names."))
        case 7?:
            return error(.accessDenied, describe("Turnkey denied the request."))
        case 8?:
            return error(.rateLimited, describe("Too many requests to Turnkey; try again later."))
        case 13?, 14?:
            return error(.providerUnavailable, describe("Turnkey is unavailable; try again later."))
        case 16?, 17?:
            return error(.invalidToken, describe("Turnkey could not authenticate the request's stamp."))
        default:
            break
        }
        guard let status else {
            return error(.unknown, describe("The Turnkey activity failed."))
        }
        switch status {
        case 429: return error(.rateLimited, describe("Too many requests to Turnkey; try again later."))
        case 500...599: return error(.providerUnavailable, describe("Turnkey is unavailable (HTTP \(status)); try again later."))
        case 401: return error(.invalidToken, describe("Turnkey could not authenticate the request's stamp."))
        case 403: return error(.accessDenied, describe("Turnkey denied the request."))
        case 404: return error(context == .passkeyLogin ? .userNotFound : .invalidRequest, describe("Turnkey could not find what the request names (HTTP 404)."))
        case 400, 409, 422: return error(.invalidRequest, describe("Turnkey rejected the request as invalid (HTTP \(status))."))
        default: return error(StatusErrorMapper.code(forStatus: status), describe("Turnkey answered HTTP \(status)."))
        }
    }

    /// Whether a (lower-cased) message says the email is already taken: it names the email and says
    /// it already exists, is in use or registered, or is a duplicate. The app backend's wording is
    /// its own (Turnkey's example backend passes Turnkey's error message on), so this reads meaning,
    /// not one exact sentence.
    static func saysEmailTaken(_ lower: String) -> Bool {
        guard lower.contains("email") else { return false }
        return ["already exist", "already in use", "already registered", "already taken", "duplicate"].contains { lower.contains($0) }
    }

    /// `field: description` of every BadRequest field violation, joined by `; `.
    static func fieldViolations(_ details: JSONValue?) -> String? {
        guard let items = details?.arrayValue else { return nil }
        let pairs = items.flatMap { item -> [String] in
            (item["fieldViolations"]?.arrayValue ?? []).map { v in
                let field = v["field"]?.stringValue ?? "?"
                let description = v["description"]?.stringValue ?? ""
                return description.isEmpty ? field : "\(field): \(description)"
            }
        }
        return pairs.isEmpty ? nil : pairs.joined(separator: "; ")
    }

    /// A code that is a JSON number or a numeric string.
    static func int(_ value: JSONValue?) -> Int? {
        if let i = value?.intValue { return i }
        return value?.stringValue.flatMap { Int($0) }
    }
}
