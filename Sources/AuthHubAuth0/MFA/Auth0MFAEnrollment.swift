import AuthHub

/// The reply of `POST /mfa/associate`.
public struct Auth0MFAEnrollment: Sendable, Hashable, Decodable {
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

extension Auth0MFAEnrollment {
    enum CodingKeys: String, CodingKey {
        case authenticatorType = "authenticator_type", oobChannel = "oob_channel", oobCode = "oob_code"
        case bindingMethod = "binding_method", secret, barcodeURI = "barcode_uri", recoveryCodes = "recovery_codes"
    }

    /// Decodes an association reply: `authenticator_type` is required.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        authenticatorType = try container.decode(String.self, forKey: .authenticatorType)
        oobChannel = try container.decodeIfPresent(String.self, forKey: .oobChannel)
        oobCode = try container.decodeIfPresent(String.self, forKey: .oobCode).map(Secret.init)
        bindingMethod = try container.decodeIfPresent(String.self, forKey: .bindingMethod)
        secret = try container.decodeIfPresent(String.self, forKey: .secret).map(Secret.init)
        barcodeURI = try container.decodeIfPresent(String.self, forKey: .barcodeURI).map(Secret.init)
        recoveryCodes = try container.decodeIfPresent([String].self, forKey: .recoveryCodes)?.map(Secret.init) ?? []
    }
}
