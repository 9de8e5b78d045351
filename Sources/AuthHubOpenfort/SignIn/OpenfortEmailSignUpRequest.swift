import AuthHub

/// The body of v2 `POST /sign-up/email`.
struct OpenfortEmailSignUpRequest: Codable, Sendable {
    var email: String
    var password: String
    var name: String
    var callbackURL: String?
    var image: String?
}
