import AuthHub

/// A factor to enroll through `POST /mfa/associate`.
public enum Auth0MFAEnrollmentRequest: Sendable, Hashable {
    case sms(phoneNumber: String)
    case email(String)
    case otp
    case push
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
