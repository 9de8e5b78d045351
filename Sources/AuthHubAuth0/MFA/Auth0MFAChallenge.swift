import AuthHub

/// The reply of `POST /mfa/challenge`.
public struct Auth0MFAChallenge: Sendable, Hashable, Decodable {
    /// `oob` or `otp`.
    public var challengeType: String
    /// The out-of-band code to verify with, for `oob`.
    public var oobCode: Secret<String>?
    /// `prompt` when the user must type a binding code.
    public var bindingMethod: String?
}

extension Auth0MFAChallenge {
    enum CodingKeys: String, CodingKey { case challengeType = "challenge_type", oobCode = "oob_code", bindingMethod = "binding_method" }

    /// Decodes a challenge reply: `challenge_type` is required.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        challengeType = try container.decode(String.self, forKey: .challengeType)
        oobCode = try container.decodeIfPresent(String.self, forKey: .oobCode).map(Secret.init)
        bindingMethod = try container.decodeIfPresent(String.self, forKey: .bindingMethod)
    }
}
