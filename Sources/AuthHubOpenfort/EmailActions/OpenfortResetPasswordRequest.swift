import AuthHub

/// The body of v2 `POST /reset-password`.
struct OpenfortResetPasswordRequest: Codable, Sendable {
    var newPassword: String
    var token: String
}
