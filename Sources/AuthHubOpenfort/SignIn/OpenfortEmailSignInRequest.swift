import AuthHub

/// The body of v2 `POST /sign-in/email`.
struct OpenfortEmailSignInRequest: Codable, Sendable {
    var email: String
    var password: String
    var callbackURL: String?
}
