import AuthHub
import Foundation

/// The reply of the v2 calls that sign a user in (`sign-in/*`, `sign-up/email`,
/// `email-otp/verify-email`, `phone-number/verify`): `{ "token": string|null, "user": User }`.
///
/// A `null` token on sign-up means the email must be verified before a session exists (the SDK's
/// `{ action: "verify_email" }`).
package struct OpenfortAuthResponse: Sendable, Codable {
    /// The session token, when the reply carries one.
    package var token: Secret<String>?
    /// The user, when the reply carries one.
    package var user: OpenfortUser?

    /// Creates a response.
    package init(token: Secret<String>?, user: OpenfortUser?) {
        self.token = token
        self.user = user
    }

    enum CodingKeys: String, CodingKey { case token, user }

    /// Reads a reply object. Every such reply carries the user (openfort-js reads `user.id` from each);
    /// `token` is a string or `null` (an empty string reads as no token).
    /// - Throws: a decoding error naming `token` when it is neither a string nor `null`, or `user`
    ///   (or `user.id`) when the user is missing, not an object, or has no id.
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        token = try c.decodeIfPresent(String.self, forKey: .token).flatMap { $0.isEmpty ? nil : Secret($0) }
        user = try c.decode(OpenfortUser.self, forKey: .user)
    }

    /// Writes the reply (`token: null` when there is none).
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        if let token { try c.encode(token, forKey: .token) } else { try c.encodeNil(forKey: .token) }
        try c.encodeIfPresent(user, forKey: .user)
    }
}
