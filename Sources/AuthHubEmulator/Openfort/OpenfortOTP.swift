import Foundation

/// A pending email OTP of the email-otp plugin (AuthHubOpenfort docs, OpenfortEndpoints: “Endpoints”): six digits for one email and purpose.
struct OpenfortOTP: Sendable {
    /// `sign-in`, `email-verification` or `forget-password`.
    static let types: Set<String> = ["sign-in", "email-verification", "forget-password"]

    var email: String
    var otp: String
    var type: String
    var expiresAt: Date
    /// Wrong codes tried so far.
    var attempts = 0
}
