import enum AuthHub.JSONValue
import HTTPTypes
import Hummingbird

/// A refusal in one of Auth0's error body shapes (spec/auth0.md §4.2), thrown by the emulator's
/// Auth0 handlers and turned into the reply by ``response``.
///
/// The spec gives the body shapes and the exact descriptions the SDK's helpers look for (§4.3),
/// but not every status. Where it is silent the emulator follows Auth0's observable behaviour:
/// `invalid_grant` and `mfa_required` are 403, `invalid_request` and `unsupported_grant_type` 400,
/// a missing or unknown bearer token 401.
struct Auth0Failure: Error, Sendable {
    /// The HTTP status.
    var status: HTTPResponse.Status
    /// The JSON body.
    var body: JSONValue
    /// Extra header fields (e.g. `WWW-Authenticate`).
    var headers: HTTPFields = [:]

    /// The reply for this failure, with `Cache-Control: no-store` like every token endpoint reply.
    var response: Response {
        var fields = headers
        fields[.cacheControl] = "no-store"
        return EmulatorResponse.json(body, status: status, headers: fields)
    }

    /// An OAuth error: `{"error":…, "error_description":…}`.
    static func oauth(_ error: String, _ description: String, status: HTTPResponse.Status) -> Auth0Failure {
        Auth0Failure(status: status, body: ["error": .string(error), "error_description": .string(description)])
    }

    /// `400 invalid_request` naming a missing parameter, in Auth0's wording.
    static func missing(_ parameter: String) -> Auth0Failure {
        .oauth("invalid_request", "Missing required parameter: \(parameter)", status: .badRequest)
    }

    /// `400 invalid_request` with a description.
    static func invalidRequest(_ description: String) -> Auth0Failure {
        .oauth("invalid_request", description, status: .badRequest)
    }

    /// `403 invalid_grant` with a description.
    static func invalidGrant(_ description: String) -> Auth0Failure {
        .oauth("invalid_grant", description, status: .forbidden)
    }

    /// Wrong username or password (spec §4.2/§4.3: `isInvalidCredentials`).
    static let wrongCredentials = invalidGrant("Wrong email or password.")
    /// A refresh token that is unknown, revoked or already rotated (spec §4.3: `isInvalidRefreshToken`).
    static let invalidRefreshToken = invalidGrant("Unknown or invalid refresh token.")
    /// An unknown or consumed MFA token (spec §4.3: `isMultifactorTokenInvalid`).
    static let malformedMFAToken = invalidGrant("Malformed mfa_token")
    /// An expired MFA token (spec §4.3: `isMultifactorTokenInvalid`).
    static let expiredMFAToken = oauth("expired_token", "mfa_token is expired", status: .forbidden)
    /// A wrong one-time code (spec §4.3: `isMultifactorCodeInvalid`).
    static let invalidOTP = invalidGrant("Invalid otp_code.")

    /// A database-connection error (spec §4.2): `{name, code, description, statusCode}`.
    static func database(
        name: String = "BadRequestError",
        code: String,
        description: JSONValue,
        status: HTTPResponse.Status = .badRequest,
        extra: [String: JSONValue] = [:]
    ) -> Auth0Failure {
        var body: [String: JSONValue] = [
            "name": .string(name), "code": .string(code), "description": description,
            "statusCode": .number(Double(status.code)),
        ]
        body.merge(extra) { _, new in new }
        return Auth0Failure(status: status, body: .object(body))
    }

    /// `401 invalid_token` for a missing, unknown or expired bearer token.
    static func invalidToken(_ description: String) -> Auth0Failure {
        Auth0Failure(
            status: .unauthorized,
            body: ["error": "invalid_token", "error_description": .string(description)],
            headers: [.wwwAuthenticate: "Bearer error=\"invalid_token\""]
        )
    }
}
