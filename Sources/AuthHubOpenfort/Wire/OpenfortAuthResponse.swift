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

    /// Reads a reply object. Every such reply carries the user (openfort-js reads `user.id` from each);
    /// `token` is a string or `null`.
    /// - Throws: ``AuthErrorCode/invalidRequest`` when the body is not an object, `token` is neither a
    ///   string nor `null`, or `user` is missing, not an object, or has no id.
    public init(json: JSONValue, provider: String) throws {
        func malformed(_ what: String) -> AuthError {
            AuthError(.invalidRequest, message: "The reply from '\(provider)' \(what).", provider: provider)
        }
        guard let object = json.objectValue else { throw malformed("is not a JSON object") }
        switch object["token"] {
        case nil, .null?: token = nil
        case .string(let text)?: token = text.isEmpty ? nil : Secret(text)
        default: throw malformed("has a token that is not a string")
        }
        guard let user = object["user"]?.objectValue else { throw malformed("has no user object") }
        self.user = try OpenfortUser(json: user, provider: provider)
    }
}
