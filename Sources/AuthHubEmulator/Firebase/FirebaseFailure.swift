import enum AuthHub.JSONValue
import HTTPTypes
import Hummingbird

/// A refusal in the Google API error envelope of AuthHubFirebase docs, FirebaseErrors: “Envelope”, thrown by the Firebase
/// handlers and rendered by Hummingbird (``EmulatorFailure``).
///
/// Plain Firebase errors are `400` with `message` = `CODE` or `CODE : detail`, one entry in
/// `errors` with `reason: "invalid"` and `domain: "global"`, and no `status` (the Auth Emulator's
/// form). Errors of the API layer carry a `status`: `403 PERMISSION_DENIED` for a missing API key,
/// `400 INVALID_ARGUMENT` with reason `parseError` for an unreadable body, `501 NOT_IMPLEMENTED`.
struct FirebaseFailure: EmulatorFailure, Equatable {
    /// The HTTP status.
    var status: HTTPResponse.Status
    /// `error.message` (and `errors[0].message`).
    var message: String
    /// `errors[0].reason`.
    var reason: String = "invalid"
    /// `error.status`, absent on plain 400s.
    var statusName: String? = nil

    /// The JSON body `{"error":{"code","message","errors":[{"message","reason","domain"}],"status"?}}`.
    var body: JSONValue {
        var error: [String: JSONValue] = [
            "code": .number(Double(status.code)),
            "message": .string(message),
            "errors": [["message": .string(message), "reason": .string(reason), "domain": "global"]],
        ]
        if let statusName { error["status"] = .string(statusName) }
        return ["error": .object(error)]
    }


    /// A plain Firebase error: `400`, message `CODE` or `CODE : detail`.
    static func code(_ code: String, _ detail: String? = nil) -> FirebaseFailure {
        FirebaseFailure(status: .badRequest, message: detail.map { "\(code) : \($0)" } ?? code)
    }

    /// `403 PERMISSION_DENIED` "The request is missing a valid API key." (AuthHubFirebase docs, FirebaseEndpoints: “Emulator”).
    static let missingAPIKey = FirebaseFailure(
        status: .forbidden, message: "The request is missing a valid API key.", reason: "forbidden",
        statusName: "PERMISSION_DENIED"
    )

    /// `400 INVALID_ARGUMENT` with reason `parseError`: a body that is not a JSON object.
    static func parseError(_ detail: String) -> FirebaseFailure {
        FirebaseFailure(
            status: .badRequest, message: "Invalid JSON payload received. \(detail)", reason: "parseError",
            statusName: "INVALID_ARGUMENT"
        )
    }

    /// `400 INVALID_ARGUMENT` for a field of the wrong JSON type or an invalid helper argument.
    static func invalidArgument(_ message: String) -> FirebaseFailure {
        FirebaseFailure(status: .badRequest, message: message, statusName: "INVALID_ARGUMENT")
    }

    /// `501 NOT_IMPLEMENTED` for an operation Firebase has and this emulator does not serve.
    static func notImplemented(_ operation: String) -> FirebaseFailure {
        FirebaseFailure(
            status: .notImplemented, message: "\(operation) is not implemented in the AuthHub emulator.",
            reason: "unimplemented", statusName: "NOT_IMPLEMENTED"
        )
    }

    /// `404 NOT_FOUND` with a message.
    static func notFound(_ message: String) -> FirebaseFailure {
        FirebaseFailure(status: .notFound, message: message, reason: "notFound", statusName: "NOT_FOUND")
    }

    /// `500 INTERNAL`, never carrying request data.
    static let internalError = FirebaseFailure(
        status: .internalServerError, message: "The emulator failed to handle the request.", reason: "backendError",
        statusName: "INTERNAL"
    )
}
