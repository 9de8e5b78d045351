import enum AuthHub.JSONValue
import HTTPTypes
import Hummingbird

/// A refusal in one of Auth0's error body shapes (AuthHubAuth0 docs, Auth0Errors: “Error body shapes”), thrown by the emulator's
/// Auth0 handlers and rendered by Hummingbird through ``response(from:context:)``.
///
/// The spec gives the body shapes and the exact descriptions the SDK's helpers look for (AuthHubAuth0 docs, Auth0Errors: “Helpers and canonical codes”),
/// but not every status. Where it is silent the emulator follows Auth0's observable behaviour:
/// `invalid_grant` and `mfa_required` are 403, `invalid_request` and `unsupported_grant_type` 400,
/// a missing or unknown bearer token 401.
struct Auth0Failure: EmulatorFailure {
    /// The HTTP status.
    var status: HTTPResponse.Status
    /// The JSON body.
    var body: JSONValue
    /// Extra header fields (e.g. `WWW-Authenticate`).
    var headers: HTTPFields = [:]
    /// The content type of the body when it is not plain `application/json` (the My Account
    /// API's `application/problem+json`).
    var contentType: String? = nil

    /// The reply for this failure, with `Cache-Control: no-store` like every token endpoint reply.
    func response(from request: Request, context: some RequestContext) -> Response {
        var fields = headers
        fields[.cacheControl] = "no-store"
        var reply = EmulatorResponse.json(body, status: status, headers: fields)
        if let contentType { reply.headers[.contentType] = contentType }
        return reply
    }

    /// `500 server_error`, never carrying request data.
    static let internalError = oauth("server_error", "The emulator failed to handle the request.", status: .internalServerError)

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

    /// Wrong username or password (AuthHubAuth0 docs, Auth0Errors: “Error body shapes” and “Helpers and canonical codes”: `isInvalidCredentials`).
    static let wrongCredentials = invalidGrant("Wrong email or password.")
    /// A refresh token that is unknown, revoked or already rotated (AuthHubAuth0 docs, Auth0Errors: “Helpers and canonical codes”: `isInvalidRefreshToken`).
    static let invalidRefreshToken = invalidGrant("Unknown or invalid refresh token.")
    /// An unknown or consumed MFA token (AuthHubAuth0 docs, Auth0Errors: “Helpers and canonical codes”: `isMultifactorTokenInvalid`).
    static let malformedMFAToken = invalidGrant("Malformed mfa_token")
    /// An expired MFA token (AuthHubAuth0 docs, Auth0Errors: “Helpers and canonical codes”: `isMultifactorTokenInvalid`).
    static let expiredMFAToken = oauth("expired_token", "mfa_token is expired", status: .forbidden)
    /// A wrong one-time code (AuthHubAuth0 docs, Auth0Errors: “Helpers and canonical codes”: `isMultifactorCodeInvalid`).
    static let invalidOTP = invalidGrant("Invalid otp_code.")
    /// Bot detection (Attack Protection) refusing a password grant (AuthHubAuth0 docs, Auth0Errors: “Helpers and canonical codes”:
    /// `isVerificationRequired`): `401 {"error":"requires_verification","error_description":
    /// "Suspicious request requires verification"}`. The status is the one Auth0's error tables for
    /// the password grant list (401 Unauthorized); the SDK reads only the code.
    static let requiresVerification = oauth("requires_verification", "Suspicious request requires verification", status: .unauthorized)

    /// A database-connection error (AuthHubAuth0 docs, Auth0Errors: “Error body shapes”): `{name, code, description, statusCode}`.
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

    // MARK: - My Account API (AuthHubAuth0 docs, Auth0Errors: “My Account errors”)

    /// A My Account API error: the RFC 7807 body `{type, status, title, detail,
    /// validation_errors?}` as `application/problem+json`. `type` is
    /// `https://auth0.com/api-errors/A0E-<status>-0001` (emulator choice: one problem type per status).
    static func problem(
        _ status: HTTPResponse.Status, title: String, detail: String, validationErrors: [(field: String, detail: String)] = []
    ) -> Auth0Failure {
        var body: [String: JSONValue] = [
            "type": .string("https://auth0.com/api-errors/A0E-\(status.code)-0001"),
            "status": .number(Double(status.code)),
            "title": .string(title),
            "detail": .string(detail),
        ]
        if !validationErrors.isEmpty {
            body["validation_errors"] = .array(validationErrors.map { ["detail": .string($0.detail), "field": .string($0.field)] })
        }
        var headers: HTTPFields = [:]
        if status == .unauthorized { headers[.wwwAuthenticate] = "Bearer error=\"invalid_token\"" }
        return Auth0Failure(status: status, body: .object(body), headers: headers, contentType: "application/problem+json")
    }

    /// `401 Unauthorized` of the My Account API.
    static func problemUnauthorized(_ detail: String) -> Auth0Failure {
        problem(.unauthorized, title: "Unauthorized", detail: detail)
    }

    /// `403 Forbidden` for a token without `scope`: detail `Insufficient scope; expected <scope>.`.
    static func insufficientScope(_ scope: String) -> Auth0Failure {
        problem(.forbidden, title: "Forbidden", detail: "Insufficient scope; expected \(scope).")
    }

    /// `400 Bad Request` with one validation error naming `field`.
    static func badRequest(field: String, _ detail: String) -> Auth0Failure {
        problem(.badRequest, title: "Bad Request", detail: "Invalid request payload input.", validationErrors: [(field, detail)])
    }

    /// `400 Bad Request` with only a detail.
    static func badRequest(_ detail: String) -> Auth0Failure {
        problem(.badRequest, title: "Bad Request", detail: detail)
    }

    /// `404 Not Found` for an unknown authentication method id.
    static let methodNotFound = problem(.notFound, title: "Not Found", detail: "The authentication method does not exist.")

    // MARK: - Management API (AuthHubAuth0 docs, Auth0Endpoints: “Management API users”)

    /// A Management API error: `{statusCode, error, message, errorCode}`, where `error` is the
    /// status's reason phrase.
    static func management(_ status: HTTPResponse.Status, _ message: String, errorCode: String) -> Auth0Failure {
        Auth0Failure(status: status, body: [
            "statusCode": .number(Double(status.code)),
            "error": .string(status.reasonPhrase),
            "message": .string(message),
            "errorCode": .string(errorCode),
        ])
    }
}
