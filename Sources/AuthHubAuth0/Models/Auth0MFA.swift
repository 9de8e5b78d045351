import AuthHub

/// An enrolled MFA authenticator (`GET /mfa/authenticators`, <doc:Auth0Endpoints>: “MFA”).
public struct Auth0Authenticator: Sendable, Hashable {
    /// The authenticator id (`authenticator_id` of a challenge).
    public var id: String
    /// `otp`, `oob`, `recovery-code`, …
    public var authenticatorType: String
    /// `sms`, `email`, `auth0` (push), … for `oob`.
    public var oobChannel: String?
    /// A name shown to the user.
    public var name: String?
    /// Whether it is active.
    public var active: Bool
    /// The factor type the caller filters on (`otp`, `sms`, …).
    public var type: String?

    /// Creates an authenticator.
    public init(id: String, authenticatorType: String, oobChannel: String? = nil, name: String? = nil, active: Bool,
                type: String? = nil) {
        self.id = id
        self.authenticatorType = authenticatorType
        self.oobChannel = oobChannel
        self.name = name
        self.active = active
        self.type = type
    }
}

/// The reply of `POST /mfa/challenge`.
public struct Auth0MFAChallenge: Sendable, Hashable {
    /// `oob` or `otp`.
    public var challengeType: String
    /// The out-of-band code to verify with, for `oob`.
    public var oobCode: Secret<String>?
    /// `prompt` when the user must type a binding code.
    public var bindingMethod: String?
}

/// A factor to enroll through `POST /mfa/associate`.
public enum Auth0MFAEnrollmentRequest: Sendable, Hashable {
    case sms(phoneNumber: String)
    case email(String)
    case otp
    case push
}

/// The reply of `POST /mfa/associate`.
public struct Auth0MFAEnrollment: Sendable, Hashable {
    /// `otp` or `oob`.
    public var authenticatorType: String
    /// `sms`, `email` or `auth0` for `oob`.
    public var oobChannel: String?
    /// The code to verify the enrollment with, for `oob`.
    public var oobCode: Secret<String>?
    /// `prompt` when a binding code is needed.
    public var bindingMethod: String?
    /// The TOTP secret (base32), for `otp`.
    public var secret: Secret<String>?
    /// The `otpauth://` (or Guardian) URI to show as a QR code; it contains the secret.
    public var barcodeURI: Secret<String>?
    /// Recovery codes issued with the first enrollment.
    public var recoveryCodes: [Secret<String>]
}

/// A passkey login challenge (`POST /passkey/challenge`, <doc:Auth0Endpoints>: “Passkeys”).
public struct Auth0PasskeyLoginChallenge: Sendable {
    /// `auth_session`, sent back with the assertion.
    public var authenticationSession: Secret<String>
    /// The options to hand the authenticator.
    public var options: PasskeyAssertionOptions
}

/// A passkey signup challenge (`POST /passkey/register`, <doc:Auth0Endpoints>: “Passkeys”).
public struct Auth0PasskeySignupChallenge: Sendable {
    /// `auth_session`, sent back with the attestation.
    public var authenticationSession: Secret<String>
    /// The options to hand the authenticator.
    public var options: PasskeyRegistrationOptions
}
