import AuthHub

/// The body of `POST /me/v1/authentication-methods/{id}/verify`: the `auth_session` and the user's
/// answer (`otp_code`, `authn_response` from the core passkey types, or `new_password`).
struct Auth0EnrollmentVerifyRequest: Encodable, Sendable {
    var authSession: String
    var otpCode: String?
    var authnResponse: JSONValue?
    var newPassword: String?

    enum CodingKeys: String, CodingKey {
        case authSession = "auth_session", otpCode = "otp_code", authnResponse = "authn_response", newPassword = "new_password"
    }
}
