import AuthHubFactors
import Foundation

/// A My Account enrollment between `POST /me/v1/authentication-methods` and its `/verify`
/// (AuthHubAuth0 docs, Auth0Endpoints: “Starting an enrollment” and “Confirming an enrollment”), kept in the tenant under the digest of its `auth_session`.
///
/// Nothing is added to the user until the verification succeeds, so a pending enrollment is
/// neither listed by the My Account API nor by `/mfa/authenticators`.
struct Auth0Enrollment: Sendable {
    /// What is being enrolled, with what the verification checks against.
    enum Kind: Sendable {
        /// A TOTP authenticator with its new secret; `otp_code` must be a current code.
        case totp(TOTP)
        /// A push authenticator; verified once the emulator-only hook accepted it "on the device".
        case push(accepted: Bool)
        /// An email authenticator; `otp_code` must be the code sent to `address`.
        case email(address: String, code: String)
        /// A phone authenticator (`sms` or `voice`); `otp_code` must be the code sent to `number`.
        case phone(number: String, method: String, code: String)
        /// A recovery code, already shown; the digest of the code (see
        /// ``Auth0RecoveryAuthenticator/codeDigests``) is stored on verification.
        case recoveryCode(digest: String)
        /// A password; `new_password` is set on verification.
        case password
        /// A passkey registration with its WebAuthn challenge and the user handle offered.
        case passkey(challenge: [UInt8], userHandle: [UInt8])

        /// The My Account `type` of the method.
        var type: String {
            switch self {
            case .totp: "totp"
            case .push: "push-notification"
            case .email: "email"
            case .phone: "phone"
            case .recoveryCode: "recovery-code"
            case .password: "password"
            case .passkey: "passkey"
            }
        }
    }

    /// The authentication method id the `Location` header names (`totp|dev_…`, `phone|dev_…`, …).
    var methodId: String
    var userId: String
    var kind: Kind
    /// Wrong codes so far; the enrollment is dropped after ``Auth0Service/enrollmentMaximumFailures``.
    var failures: Int = 0
    var expiresAt: Date
}
