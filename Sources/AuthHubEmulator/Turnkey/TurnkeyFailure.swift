import enum AuthHub.JSONValue
import HTTPTypes
import Hummingbird

/// A refusal in Turnkey's gRPC-status shape (AuthHubTurnkey docs, TurnkeyErrors),
/// `{"code": 16, "message": "…", "details": []}`, with the spec's HTTP mapping; thrown by the
/// Turnkey handlers and rendered by Hummingbird (``EmulatorFailure``).
struct TurnkeyFailure: EmulatorFailure, Equatable {
    /// The HTTP status.
    var status: HTTPResponse.Status
    /// The gRPC status code (`code`).
    var code: Int
    /// The message (`message`).
    var message: String
    /// The `details` array.
    var details: [JSONValue] = []

    /// `{"code","message","details"}`.
    var body: JSONValue {
        ["code": .number(Double(code)), "message": .string(message), "details": .array(details)]
    }


    /// `400` code 3 (`INVALID_ARGUMENT`) with a `google.rpc.BadRequest` naming `field`.
    static func invalid(_ field: String, _ description: String) -> TurnkeyFailure {
        TurnkeyFailure(
            status: .badRequest, code: 3, message: "invalid request: \(field): \(description)",
            details: [[
                "@type": "type.googleapis.com/google.rpc.BadRequest",
                "fieldViolations": [["field": .string(field), "description": .string(description)]],
            ]]
        )
    }

    /// `401` code 16: no stamp header at all.
    static let notAuthenticated = TurnkeyFailure(
        status: .unauthorized, code: 16,
        message: "request not authenticated: missing X-Stamp or X-Stamp-WebAuthn header"
    )
    /// `401` code 16: the stamp's key or passkey is not registered in the organization.
    static let publicKeyNotFound = TurnkeyFailure(
        status: .unauthorized, code: 16, message: "could not find public key in organization or its parent organization"
    )
    /// `401` code 17 (AuthHubTurnkey docs, TurnkeyErrors): the stamp's key is registered but expired.
    static let expiredAPIKey = TurnkeyFailure(
        status: .unauthorized, code: 17, message: "Unauthenticated desc = expired api key publicKey"
    )
    /// `401` code 16: the stamp does not verify over the request body.
    static func invalidStamp(_ reason: String) -> TurnkeyFailure {
        TurnkeyFailure(status: .unauthorized, code: 16, message: "invalid stamp signature: \(reason)")
    }
    /// `404` code 5.
    static func notFound(_ message: String) -> TurnkeyFailure {
        TurnkeyFailure(status: .notFound, code: 5, message: message)
    }
    /// `409` code 6 (`ALREADY_EXISTS`).
    static func alreadyExists(_ message: String) -> TurnkeyFailure {
        TurnkeyFailure(status: .conflict, code: 6, message: message)
    }
    /// `400` code 9 (`FAILED_PRECONDITION`).
    static func failedPrecondition(_ message: String) -> TurnkeyFailure {
        TurnkeyFailure(status: .badRequest, code: 9, message: message)
    }
    /// `403` code 7 (`PERMISSION_DENIED`).
    static func permissionDenied(_ message: String) -> TurnkeyFailure {
        TurnkeyFailure(status: .forbidden, code: 7, message: message)
    }
    /// `500` code 13, never carrying request data.
    static let internalError = TurnkeyFailure(
        status: .internalServerError, code: 13, message: "The emulator failed to handle the request."
    )
}
