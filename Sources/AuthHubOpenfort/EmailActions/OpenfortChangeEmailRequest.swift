import AuthHub

/// The body of v2 `POST /change-email`.
struct OpenfortChangeEmailRequest: Codable, Sendable {
    var newEmail: String
    var callbackURL: String?
}
