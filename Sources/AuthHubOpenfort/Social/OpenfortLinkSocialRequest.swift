import AuthHub

/// The body of v2 `POST /link-social`.
struct OpenfortLinkSocialRequest: Codable, Sendable {
    var provider: String
    var callbackURL: String
    var disableRedirect = true
    var scopes: [String]?
    var errorCallbackURL: String?
    var idToken: OpenfortIDTokenCredential?
}
