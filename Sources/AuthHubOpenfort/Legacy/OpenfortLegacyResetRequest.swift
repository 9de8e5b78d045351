import AuthHub

/// The body of v1 `password/reset {email, password, state}`.
struct OpenfortLegacyResetRequest: Codable, Sendable {
    var email: String
    var password: String
    var state: String
}
