import AuthHub
import Foundation

/// What to enroll (<doc:Auth0Endpoints>: “Starting an enrollment”).
public enum Auth0EnrollmentRequest: Sendable, Hashable {
    case passkey(identityUserID: String? = nil, connection: String? = nil)
    case totp
    case pushNotification
    case email(String)
    case phone(String, preferredMethod: String? = nil)
    case recoveryCode
    case password(identityUserID: String? = nil, connection: String? = nil)
}

/// A started enrollment (<doc:Auth0Endpoints>: “Starting an enrollment”): the method id (from the `Location` header), the
/// `auth_session` to confirm with, and what the user must see or do.
public struct Auth0EnrollmentChallenge: Sendable {
    /// What the enrollment shows the user.
    public enum Prompt: Sendable {
        /// Create a passkey with these options.
        case passkey(PasskeyRegistrationOptions)
        /// Scan this `otpauth://` (or Guardian) URI, or type the manual code; both contain the secret.
        case qrCode(uri: Secret<String>, manualInputCode: Secret<String>?)
        /// A code was sent (email, phone); type it.
        case codeSent
        /// Save this recovery code; it is shown once.
        case recoveryCode(Secret<String>)
        /// Choose a password meeting this policy.
        case password(policy: JSONValue?)
    }

    /// The authentication method id, percent-decoded from the last path component of `Location`.
    public var methodID: String
    /// `auth_session`, sent back with the confirmation.
    public var authSession: Secret<String>
    /// What to show.
    public var prompt: Prompt
}

/// The user's answer to an enrollment challenge (<doc:Auth0Endpoints>: “Confirming an enrollment”).
public enum Auth0EnrollmentResponse: Sendable {
    /// The code from the authenticator app, email or SMS.
    case code(Secret<String>)
    /// The new passkey.
    case passkey(PasskeyRegistration)
    /// The new password.
    case password(Secret<String>)
    /// Nothing to type (push notification approved, recovery code saved).
    case none
}
