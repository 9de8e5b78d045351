import AuthHub

/// The body of v1 `oauth/login_id_token {provider, token}`.
struct OpenfortLegacyIDTokenRequest: Codable, Sendable {
    var provider: String
    var token: String
}
