import AuthHub
@_spi(Internals) @testable import AuthHubOpenfort
import AuthHubTesting
import Foundation
import Testing

/// Every §6 body shape and code.
@Suite struct OpenfortErrorMapperTests {
    static func map(_ status: Int, _ body: String, sessionCall: Bool = false, headerFields headers: HTTPFields = [:]) -> AuthError {
        OpenfortErrorMapper(sessionCall: sessionCall).map(HTTPReply(status: status, headerFields: headers, body: Data(body.utf8)), provider: "openfort")
    }

    struct Shape: Sendable, CustomTestStringConvertible {
        var name: String
        var status: Int
        var body: String
        var code: AuthErrorCode
        var providerCode: String
        var message: String?
        var testDescription: String { name }
    }

    static let shapes: [Shape] = [
        Shape(name: "flat", status: 401, body: #"{"code":"INVALID_EMAIL_OR_PASSWORD","message":"Invalid email or password"}"#,
              code: .invalidCredentials, providerCode: "INVALID_EMAIL_OR_PASSWORD", message: "Invalid email or password"),
        Shape(name: "nested", status: 400, body: #"{"error":{"code":"INVALID_OTP","message":"Invalid OTP","status":400}}"#,
              code: .invalidMFACode, providerCode: "INVALID_OTP", message: "Invalid OTP"),
        Shape(name: "nested beats flat", status: 400, body: #"{"code":"USER_NOT_FOUND","error":{"code":"OTP_EXPIRED","message":"OTP expired"},"message":"outer"}"#,
              code: .invalidMFACode, providerCode: "OTP_EXPIRED", message: "OTP expired"),
        Shape(name: "string error", status: 400, body: #"{"error":"invalid_request","error_description":"Missing email"}"#,
              code: .invalidRequest, providerCode: "invalid_request", message: "Missing email"),
        Shape(name: "string error with code", status: 400, body: #"{"error":"invalid_request","code":"PASSWORD_TOO_SHORT","error_description":"short"}"#,
              code: .weakPassword, providerCode: "PASSWORD_TOO_SHORT", message: "short"),
        Shape(name: "Openfort API", status: 404, body: #"{"message":"Not found","statusCode":404,"correlationId":"c-1"}"#,
              code: .invalidRequest, providerCode: "REQUEST_ERROR", message: "Not found"),
        Shape(name: "Openfort API with error", status: 403, body: #"{"message":"Forbidden","error":"Forbidden","statusCode":403}"#,
              code: .accessDenied, providerCode: "Forbidden", message: "Forbidden"),
        Shape(name: "legacy v1", status: 409, body: #"{"error":{"type":"invalid_request_error","message":"User already exists"}}"#,
              code: .invalidRequest, providerCode: "invalid_request_error", message: "User already exists"),
        Shape(name: "message only", status: 401, body: #"{"message":"Unauthorized"}"#,
              code: .invalidCredentials, providerCode: "REQUEST_ERROR", message: "Unauthorized"),
        Shape(name: "not JSON", status: 502, body: "<html>Bad gateway</html>", code: .providerUnavailable, providerCode: "REQUEST_ERROR"),
        Shape(name: "empty", status: 500, body: "", code: .providerUnavailable, providerCode: "REQUEST_ERROR"),
        Shape(name: "JSON null", status: 401, body: "null", code: .invalidCredentials, providerCode: "REQUEST_ERROR"),
        Shape(name: "array", status: 400, body: "[1,2]", code: .invalidRequest, providerCode: "REQUEST_ERROR"),
        Shape(name: "bare 403", status: 403, body: "", code: .accessDenied, providerCode: "USER_NOT_AUTHORIZED"),
        Shape(name: "bare 422", status: 422, body: "{}", code: .invalidRequest, providerCode: "REQUEST_ERROR"),
        Shape(name: "bare 429", status: 429, body: "", code: .rateLimited, providerCode: "REQUEST_ERROR"),
        Shape(name: "unknown code falls back to status", status: 429, body: #"{"code":"SLOW_DOWN","message":"Slow down"}"#,
              code: .rateLimited, providerCode: "SLOW_DOWN", message: "Slow down"),
    ]

    @Test(arguments: shapes)
    func shape(_ shape: Shape) {
        let error = Self.map(shape.status, shape.body)
        #expect(error.code == shape.code)
        #expect(error.providerCode == shape.providerCode)
        #expect(error.statusCode == shape.status)
        #expect(error.provider == "openfort")
        if let message = shape.message { #expect(error.message == message) }
    }

    /// Every code of §6 with its canonical mapping, sent at a status that would map differently.
    static let codes: [(String, AuthErrorCode)] = [
        ("INVALID_EMAIL_OR_PASSWORD", .invalidCredentials), ("INVALID_EMAIL", .invalidEmail), ("INVALID_PASSWORD", .invalidCredentials),
        ("PASSWORD_TOO_SHORT", .weakPassword), ("PASSWORD_TOO_LONG", .weakPassword),
        ("USER_ALREADY_EXISTS", .emailAlreadyInUse), ("USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL", .emailAlreadyInUse),
        ("EMAIL_NOT_VERIFIED", .emailNotVerified), ("FAILED_TO_CREATE_USER", .invalidRequest),
        ("FAILED_TO_CREATE_SESSION", .providerUnavailable), ("FAILED_TO_GET_SESSION", .providerUnavailable),
        ("FAILED_TO_UPDATE_USER", .invalidRequest), ("INVALID_TOKEN", .invalidToken), ("TOKEN_EXPIRED", .invalidToken),
        ("SESSION_EXPIRED", .requiresRecentLogin), ("USER_NOT_FOUND", .userNotFound), ("USER_EMAIL_NOT_FOUND", .userNotFound),
        ("ACCOUNT_NOT_FOUND", .userNotFound), ("CREDENTIAL_ACCOUNT_NOT_FOUND", .invalidCredentials),
        ("PROVIDER_NOT_FOUND", .invalidRequest), ("ID_TOKEN_NOT_SUPPORTED", .invalidToken), ("FAILED_TO_GET_USER_INFO", .invalidToken),
        ("SOCIAL_ACCOUNT_ALREADY_LINKED", .conflict), ("LINKED_ACCOUNT_ALREADY_EXISTS", .conflict),
        ("FAILED_TO_UNLINK_LAST_ACCOUNT", .invalidRequest), ("EMAIL_CAN_NOT_BE_UPDATED", .invalidRequest),
        ("CHANGE_EMAIL_DISABLED", .unsupported), ("EMAIL_ALREADY_VERIFIED", .invalidRequest), ("USER_ALREADY_HAS_PASSWORD", .invalidRequest),
        ("INVALID_CALLBACK_URL", .invalidConfiguration), ("INVALID_REDIRECT_URL", .invalidConfiguration),
        ("INVALID_ERROR_CALLBACK_URL", .invalidConfiguration), ("INVALID_ORIGIN", .invalidConfiguration),
        ("MISSING_OR_NULL_ORIGIN", .invalidConfiguration), ("CALLBACK_URL_REQUIRED", .invalidConfiguration),
        ("EMAIL_PASSWORD_DISABLED", .invalidConfiguration), ("OTP_EXPIRED", .invalidMFACode), ("INVALID_OTP", .invalidMFACode),
        ("TOO_MANY_ATTEMPTS", .rateLimited), ("ANONYMOUS_USERS_CANNOT_SIGN_IN_AGAIN_ANONYMOUSLY", .conflict),
        ("COULD_NOT_CREATE_SESSION", .providerUnavailable), ("VALIDATION_ERROR", .invalidRequest), ("MISSING_FIELD", .invalidRequest),
        ("BODY_MUST_BE_AN_OBJECT", .invalidRequest),
        // openfort-js client codes
        ("NOT_LOGGED_IN", .noSession), ("ALREADY_LOGGED_IN", .conflict), ("REFRESH_TOKEN_ERROR", .refreshTokenInvalid),
        ("INVALID_CONFIGURATION", .invalidConfiguration), ("USER_NOT_AUTHORIZED", .accessDenied), ("PROVIDER_DISABLED", .invalidConfiguration),
        ("OTP_SEND_FAILED", .providerUnavailable), ("OTP_REQUIRED", .invalidRequest), ("INTERNAL_ERROR", .providerUnavailable),
    ]

    @Test func everyCodeMapsByCodeFirst() {
        for (vendor, expected) in Self.codes {
            for status in [400, 418] {
                let error = Self.map(status, #"{"code":"\#(vendor)","message":"m"}"#)
                #expect(error.code == expected, "\(vendor) at \(status)")
                #expect(error.providerCode == vendor)
            }
            let nested = Self.map(500, #"{"error":{"code":"\#(vendor)","message":"m"}}"#)
            #expect(nested.code == expected, "nested \(vendor)")
        }
    }

    @Test func aSessionCall401IsAnExpiredSession() {
        #expect(Self.map(401, "", sessionCall: true).code == .sessionExpired)
        #expect(Self.map(401, "", sessionCall: false).code == .invalidCredentials)
        #expect(Self.map(401, #"{"code":"INVALID_EMAIL_OR_PASSWORD"}"#, sessionCall: true).code == .invalidCredentials, "the code wins")
    }

    @Test func retryAfterAndRetryability() {
        let limited = Self.map(429, #"{"code":"TOO_MANY_ATTEMPTS"}"#, headerFields: [.retryAfter: "7"])
        #expect(limited.retryAfter == .seconds(7) && limited.isRetryable)
        #expect(Self.map(503, "").isRetryable)
        #expect(!Self.map(401, #"{"code":"INVALID_EMAIL_OR_PASSWORD"}"#).isRetryable)
    }

    @Test func mappedThroughTheClient() async throws {
        let transport = StubTransport()
        transport.on(.post, OF.path("sign-in/email")) { _ in .json(403, ["code": "EMAIL_NOT_VERIFIED", "message": "Email not verified"]) }
        transport.on(.post, OF.path("sign-up/email")) { _ in
            .json(422, ["code": "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL", "message": "User already exists. Use another email."])
        }
        let provider = OF.provider(transport)
        await #expect(throws: AuthError(.emailNotVerified)) {
            _ = try await provider.signIn(.password(identifier: "jane@example.com", password: Secret("pw")))
        }
        do {
            _ = try await provider.signUp(SignUpRequest(email: "jane@example.com", password: Secret("secret-pw")))
            Issue.record("expected an error")
        } catch let error as AuthError {
            #expect(error.code == .emailAlreadyInUse && error.statusCode == 422 && error.provider == "openfort")
            #expect(!error.description.contains("secret-pw"))
        }
    }
}
