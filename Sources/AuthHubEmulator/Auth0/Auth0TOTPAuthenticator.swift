import AuthHubFactors
import Foundation

/// A TOTP authenticator (`authenticator_type: otp`).
struct Auth0TOTPAuthenticator: Sendable {
    var id: String
    var totp: TOTP
    /// False between `/mfa/associate` and the first accepted code.
    var confirmed: Bool
    /// The time step of the last accepted code, so a code cannot be replayed.
    var lastStep: UInt64?
}
