import AuthHub

/// `idToken` of v2 `sign-in/social` and `link-social`: `{token, nonce?, accessToken?}`.
struct OpenfortIDTokenCredential: Codable, Sendable {
    var token: String
    var nonce: String?
    var accessToken: String?
}
