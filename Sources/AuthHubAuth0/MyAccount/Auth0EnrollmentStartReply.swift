import AuthHub

/// The JSON reply of `POST /me/v1/authentication-methods`: `auth_session` is required; what else
/// must be there depends on the method type and is checked by the caller.
struct Auth0EnrollmentStartReply: Decodable, Sendable {
    var authSession: String
    /// WebAuthn creation options, read by the core's ``PasskeyRegistrationOptions``.
    var publicKeyOptions: JSONValue?
    var barcodeURI: String?
    var manualInputCode: String?
    var recoveryCode: String?
    /// The password policy, open by nature (the tenant's rules), checked by the enrollment flow.
    var policy: JSONValue?

    enum CodingKeys: String, CodingKey {
        case authSession = "auth_session", publicKeyOptions = "authn_params_public_key", barcodeURI = "barcode_uri"
        case manualInputCode = "manual_input_code", recoveryCode = "recovery_code", policy
    }
}
