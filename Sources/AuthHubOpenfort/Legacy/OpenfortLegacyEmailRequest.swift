import AuthHub

/// The body of v1 `password/request_email_verification` and `password/request_reset`: `{email, redirectUrl?}`.
struct OpenfortLegacyEmailRequest: Codable, Sendable {
    var email: String
    var redirectUrl: String?
}
