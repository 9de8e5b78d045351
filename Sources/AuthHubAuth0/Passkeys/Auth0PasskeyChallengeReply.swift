import AuthHub

/// The reply of `POST /passkey/challenge` and `POST /passkey/register`: `auth_session` and
/// `authn_params_public_key`, both required.
struct Auth0PasskeyChallengeReply: Decodable, Sendable {
    /// `auth_session`, sent back with the authenticator's response.
    var authSession: String
    /// `authn_params_public_key`: WebAuthn options, kept open here and read by the core's
    /// ``PasskeyAssertionOptions`` / ``PasskeyRegistrationOptions`` (which check every member).
    var publicKeyOptions: JSONValue

    enum CodingKeys: String, CodingKey { case authSession = "auth_session", publicKeyOptions = "authn_params_public_key" }
}
