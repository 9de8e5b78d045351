import AuthHub

/// An empty JSON object body (`{}`: v2 `sign-out`, v1 `guest`).
struct OpenfortEmptyBody: Codable, Sendable {}
