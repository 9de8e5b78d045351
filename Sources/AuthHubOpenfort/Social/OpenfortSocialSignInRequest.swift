import AuthHub

/// The body of v2 `POST /sign-in/social`: a redirect flow (`callbackURL`, `disableRedirect: true`, …)
/// or an ID-token sign-in (`idToken`).
struct OpenfortSocialSignInRequest: Codable, Sendable {
    var provider: String
    var callbackURL: String?
    var disableRedirect: Bool?
    var scopes: [String]?
    var errorCallbackURL: String?
    var newUserCallbackURL: String?
    var loginHint: String?
    var idToken: OpenfortIDTokenCredential?
}
