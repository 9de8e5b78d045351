import AuthHub

/// The body of the v2 email-OTP calls: `send-verification-otp {email, type}`, `sign-in/email-otp`
/// and `verify-email {email, otp}`, `check-verification-otp {email, type, otp}`,
/// `email-otp/reset-password {email, otp, password}`.
struct OpenfortEmailOTPRequest: Codable, Sendable {
    var email: String
    var type: String?
    var otp: String?
    var password: String?
}
