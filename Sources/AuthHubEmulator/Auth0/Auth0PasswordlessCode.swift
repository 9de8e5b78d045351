import Foundation

/// A passwordless one-time code waiting to be used.
struct Auth0PasswordlessCode: Sendable {
    var code: String
    var connection: String
    var expiresAt: Date
}
