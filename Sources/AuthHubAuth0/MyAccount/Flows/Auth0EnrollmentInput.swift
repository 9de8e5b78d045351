import AuthHub
import Foundation

/// Input checks run before any My Account request, so a typo fails at once with a specific error
/// instead of a round trip: email addresses, E.164 phone numbers, 6-digit codes, passwords against
/// the enrollment's policy.
enum Auth0EnrollmentInput {
    static let badConnection = AuthError(.invalidRequest, message: "A connection name is 1 to 128 letters, digits or hyphens.",
                                         details: ["field": "connection"])

    /// `nil` when `address` looks like an email address (``ContactInput/emailProblem(_:)``).
    static func checkEmail(_ address: String) -> AuthError? { ContactInput.emailProblem(address) }

    /// Removes the separators people type in phone numbers (spaces, dashes, dots, parentheses).
    static func normalisePhone(_ number: String) -> String {
        String(number.filter { !" -.()\u{00A0}".contains($0) })
    }

    /// `nil` for an E.164 number (``ContactInput/phoneProblem(_:)``).
    static func checkPhone(_ number: String) -> AuthError? { ContactInput.phoneProblem(number) }

    /// `nil` for no preference, `sms` or `voice`.
    static func checkPreferredMethod(_ method: String?) -> AuthError? {
        guard let method, method != "sms", method != "voice" else { return nil }
        return AuthError(.invalidRequest, message: "The preferred method is sms or voice.", details: ["field": "preferred_authentication_method"])
    }

    /// The code with spaces removed, when it is exactly six ASCII digits.
    /// - Throws: ``AuthErrorCode/invalidMFACode`` otherwise.
    static func sixDigitCode(_ code: Secret<String>) throws -> Secret<String> {
        let compact = code.revealed().filter { !$0.isWhitespace }
        guard compact.count == 6, compact.allSatisfy(\.isASCIIDigit) else {
            throw AuthError(.invalidMFACode, message: "Enter the 6-digit code.", details: ["field": "otp_code"])
        }
        return Secret(compact)
    }

    /// Checks a new password against the policy's `complexity.min_length` (<doc:Auth0Endpoints>: “Response models”), and that it is not empty.
    /// - Throws: ``AuthErrorCode/weakPassword``.
    static func checkPassword(_ password: Secret<String>, policy: JSONValue?) throws {
        let minimum = policy?["complexity"]?["min_length"]?.intValue ?? 1
        guard password.revealed().count >= max(1, minimum) else {
            throw AuthError(.weakPassword, message: "The password must have at least \(max(1, minimum)) characters.",
                            details: ["field": "new_password", "minLength": String(max(1, minimum))])
        }
    }
}
