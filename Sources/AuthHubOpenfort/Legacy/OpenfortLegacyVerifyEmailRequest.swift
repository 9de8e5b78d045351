import AuthHub

/// The body of v1 `password/verify_email {email, token}`.
struct OpenfortLegacyVerifyEmailRequest: Codable, Sendable {
    var email: String
    var token: String
}
