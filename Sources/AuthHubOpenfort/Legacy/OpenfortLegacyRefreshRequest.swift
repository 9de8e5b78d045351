import AuthHub

/// The body of v1 `sessions {refreshToken, forceRefresh?}` and `sessions/logout {refreshToken}`.
struct OpenfortLegacyRefreshRequest: Codable, Sendable {
    var refreshToken: String
    var forceRefresh: Bool?
}
