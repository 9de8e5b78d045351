import AuthHub

/// The body of v2 `POST /unlink-account`.
struct OpenfortUnlinkAccountRequest: Codable, Sendable {
    var providerId: String
    var accountId: String?
}
