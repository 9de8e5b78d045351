import AuthHub

/// A body that is only the ID token (`accounts:lookup`, `accounts:delete`).
struct FirebaseIDTokenRequest: Codable, Sendable {
    var idToken: String
}
