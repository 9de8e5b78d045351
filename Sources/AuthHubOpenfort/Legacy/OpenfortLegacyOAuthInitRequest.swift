import AuthHub

/// The body of v1 `oauth/init` and `oauth/init_link`: `{provider, options: {redirectTo}}`.
struct OpenfortLegacyOAuthInitRequest: Codable, Sendable {
    struct Options: Codable, Sendable {
        var redirectTo: String
    }

    var provider: String
    var options: Options
}
