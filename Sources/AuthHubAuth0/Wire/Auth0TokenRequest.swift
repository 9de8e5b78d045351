import AuthHub

/// The JSON body of `POST /oauth/token` for every grant AuthHub sends (password, password-realm,
/// passwordless OTP, authorization code, refresh, MFA OTP/OOB/recovery code, WebAuthn, token
/// exchange); members a grant does not use stay nil and are left out. `client_id` is added when
/// the request is sent.
struct Auth0TokenRequest: Encodable, Sendable {
    var grantType: String
    var username: String?
    var password: String?
    var realm: String?
    var audience: String?
    var scope: String?
    var code: String?
    var codeVerifier: String?
    var redirectURI: String?
    var refreshToken: String?
    var otp: String?
    var mfaToken: String?
    var oobCode: String?
    var bindingCode: String?
    var recoveryCode: String?
    var authSession: String?
    /// `authn_response`: the authenticator's WebAuthn response, built by the core passkey types.
    var authnResponse: JSONValue?
    var organization: String?
    var subjectToken: String?
    var subjectTokenType: String?
    var actorToken: String?
    var actorTokenType: String?

    enum CodingKeys: String, CodingKey {
        case grantType = "grant_type", username, password, realm, audience, scope, code, codeVerifier = "code_verifier"
        case redirectURI = "redirect_uri", refreshToken = "refresh_token", otp, mfaToken = "mfa_token", oobCode = "oob_code"
        case bindingCode = "binding_code", recoveryCode = "recovery_code", authSession = "auth_session"
        case authnResponse = "authn_response", organization, subjectToken = "subject_token"
        case subjectTokenType = "subject_token_type", actorToken = "actor_token", actorTokenType = "actor_token_type"
    }
}
