import AuthHub

/// The body of the v2 calls that email a link or code to an address: `send-verification-email
/// {email, callbackURL?}`, `request-password-reset {email, redirectTo?}`, `forget-password/email-otp {email}`.
struct OpenfortEmailLinkRequest: Codable, Sendable {
    var email: String
    var callbackURL: String?
    var redirectTo: String?
}
