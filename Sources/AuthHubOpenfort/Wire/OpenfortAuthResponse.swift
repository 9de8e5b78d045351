import AuthHub
import Foundation

/// The reply of the v2 calls that sign a user in (`sign-in/*`, `sign-up/email`,
/// `email-otp/verify-email`, `phone-number/verify`): `{ "token": string|null, "user": User }`.
///
/// A `null` token on sign-up means the email must be verified before a session exists (the SDK's
/// `{ action: "verify_email" }`).
public struct OpenfortAuthResponse: Sendable {
    /// The session token, when the reply carries one.
    public var token: Secret<String>?
    /// The user, when the reply carries one.
    public var user: OpenfortUser?

    /// Creates a response.
    public init(token: Secret<String>?, user: OpenfortUser?) {
        self.token = token
        self.user = user
    }

    /// Reads a reply object.
    /// - Throws: ``AuthErrorCode/invalidRequest`` when the body is not an object or the user has no id.
    public init(json: JSONValue, provider: String) throws {
        guard let object = json.objectValue else {
            throw AuthError(.invalidRequest, message: "The reply from '\(provider)' is not a JSON object.", provider: provider)
        }
        if let token = object["token"]?.stringValue, !token.isEmpty { self.token = Secret(token) } else { token = nil }
        user = try object["user"]?.objectValue.map { try OpenfortUser(json: $0, provider: provider) }
    }
}
