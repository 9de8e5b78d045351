import enum AuthHub.JSONValue
import HTTPTypes
import Hummingbird

/// A refusal in the flat better-auth error shape of AuthHubOpenfort docs, OpenfortErrors (shape 1),
/// `{"code": "INVALID_EMAIL_OR_PASSWORD", "message": "Invalid email or password"}`, thrown by the
/// Openfort handlers and rendered by Hummingbird (``EmulatorFailure``).
struct OpenfortFailure: EmulatorFailure, Equatable {
    /// The HTTP status.
    var status: HTTPResponse.Status
    /// The better-auth code (`code`).
    var code: String
    /// The default message (`message`).
    var message: String

    /// `{"code","message"}`.
    var body: JSONValue { ["code": .string(code), "message": .string(message)] }


    static func bad(_ code: String, _ message: String) -> OpenfortFailure {
        OpenfortFailure(status: .badRequest, code: code, message: message)
    }

    /// `401 INVALID_PROJECT_KEY`: `x-project-key` missing or not `pk_test_<uuid>` / `pk_live_<uuid>`
    /// (emulator convention; the spec names no code for it).
    static let invalidProjectKey = OpenfortFailure(
        status: .unauthorized, code: "INVALID_PROJECT_KEY", message: "Missing or invalid publishable key (x-project-key)"
    )
    /// `401 UNAUTHORIZED`: a route that needs a session got no valid `Authorization: Bearer`.
    static let unauthorized = OpenfortFailure(status: .unauthorized, code: "UNAUTHORIZED", message: "Unauthorized")
    /// `401 INVALID_EMAIL_OR_PASSWORD`.
    static let invalidEmailOrPassword = OpenfortFailure(
        status: .unauthorized, code: "INVALID_EMAIL_OR_PASSWORD", message: "Invalid email or password"
    )
    /// `403 EMAIL_NOT_VERIFIED`.
    static let emailNotVerified = OpenfortFailure(status: .forbidden, code: "EMAIL_NOT_VERIFIED", message: "Email not verified")
    /// `422 USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL` (AuthHubOpenfort docs, OpenfortEndpoints: “Examples”).
    static let userAlreadyExists = OpenfortFailure(
        status: .unprocessableContent, code: "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL",
        message: "User already exists. Use another email."
    )
    static let invalidEmail = bad("INVALID_EMAIL", "Invalid email")
    static let passwordTooShort = bad("PASSWORD_TOO_SHORT", "Password too short")
    static let passwordTooLong = bad("PASSWORD_TOO_LONG", "Password too long")
    static let invalidToken = bad("INVALID_TOKEN", "Invalid token")
    static let tokenExpired = bad("TOKEN_EXPIRED", "Token expired")
    static let invalidOTP = bad("INVALID_OTP", "Invalid OTP")
    static let otpExpired = bad("OTP_EXPIRED", "OTP expired")
    /// `403 TOO_MANY_ATTEMPTS` after ``OpenfortService/otpAttempts`` wrong codes.
    static let tooManyAttempts = OpenfortFailure(status: .forbidden, code: "TOO_MANY_ATTEMPTS", message: "Too many attempts")
    static let userNotFound = bad("USER_NOT_FOUND", "User not found")
    static let emailAlreadyVerified = bad("EMAIL_ALREADY_VERIFIED", "Email is already verified")
    static let accountNotFound = bad("ACCOUNT_NOT_FOUND", "Account not found")
    static let emailCanNotBeUpdated = bad("EMAIL_CAN_NOT_BE_UPDATED", "Email can not be updated")
    static let failedToUnlinkLastAccount = bad("FAILED_TO_UNLINK_LAST_ACCOUNT", "You can't unlink your last account")
    static let socialAccountAlreadyLinked = bad("SOCIAL_ACCOUNT_ALREADY_LINKED", "Social account already linked")
    static let callbackURLRequired = bad("CALLBACK_URL_REQUIRED", "callbackURL is required")
    static let idTokenNotSupported = bad("ID_TOKEN_NOT_SUPPORTED", "id token not supported")
    static let failedToGetSession = bad("FAILED_TO_GET_SESSION", "Failed to get session")
    static let anonymousAgain = bad(
        "ANONYMOUS_USERS_CANNOT_SIGN_IN_AGAIN_ANONYMOUSLY", "Anonymous users cannot sign in again anonymously"
    )
    static let bodyMustBeAnObject = bad("BODY_MUST_BE_AN_OBJECT", "Body must be an object")

    /// `404 PROVIDER_NOT_FOUND`.
    static let providerNotFound = OpenfortFailure(status: .notFound, code: "PROVIDER_NOT_FOUND", message: "Provider not found")
    /// `404 NOT_FOUND` (emulator hooks with nothing to report).
    static func notFound(_ message: String) -> OpenfortFailure {
        OpenfortFailure(status: .notFound, code: "NOT_FOUND", message: message)
    }
    /// `400 VALIDATION_ERROR` naming the field.
    static func validation(_ field: String) -> OpenfortFailure {
        bad("VALIDATION_ERROR", "[body.\(field)] Invalid input")
    }
    /// `500 INTERNAL_SERVER_ERROR`, never carrying request data.
    static let internalError = OpenfortFailure(
        status: .internalServerError, code: "INTERNAL_SERVER_ERROR", message: "The emulator failed to handle the request."
    )
}
