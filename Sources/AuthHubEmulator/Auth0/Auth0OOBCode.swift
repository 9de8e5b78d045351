import Foundation

/// An `oob_code` handed out by `/mfa/associate` or `/mfa/challenge`, waiting for the `mfa-oob`
/// grant with its binding code.
struct Auth0OOBCode: Sendable {
    /// The digest of the MFA token the code belongs to.
    var mfaTokenDigest: String
    var userId: String
    var authenticatorId: String
    /// The 6-digit code "sent" to the phone or email (read with the emulator-only hook).
    var bindingCode: String
    /// Wrong binding codes so far; the code is dropped after ``Auth0Service/oobMaximumFailures``.
    var failures: Int
    var expiresAt: Date
}
