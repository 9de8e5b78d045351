import AuthHub

/// The body of v1 `password/signup {email, password, name?}` and `password/login {email, password}`.
struct OpenfortLegacyPasswordRequest: Codable, Sendable {
    var email: String
    var password: String
    var name: String?
}
