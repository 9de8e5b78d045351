import AuthHub

/// The reply of v2 `GET /verify-email`: `{status, user?}`.
struct OpenfortVerifyEmailReply: Codable, Sendable {
    var user: OpenfortUser?
}
