import AuthHubFactors
import Foundation

/// A DB-connection OTP login opened by `/otp/challenge` (AuthHubAuth0 docs, Auth0Endpoints: “Passwordless”).
struct Auth0OTPSession: Sendable {
    var clientId: String
    var connection: String
    /// The lower-cased email, or the phone number.
    var identifier: String
    var isEmail: Bool
    var allowSignup: Bool
    var expiresAt: Date
}
