import enum AuthHub.JSONValue
import Foundation

/// A better-auth session: an opaque token used as `Authorization: Bearer`.
struct OpenfortSession: Sendable {
    var id: String
    var token: String
    var userId: String
    var expiresAt: Date
    var createdAt: Date
    var updatedAt: Date

    /// The Session of AuthHubOpenfort docs, OpenfortEndpoints: “Object shapes”.
    var json: JSONValue {
        [
            "id": .string(id), "token": .string(token), "userId": .string(userId),
            "expiresAt": .string(OpenfortUser.iso(expiresAt)), "createdAt": .string(OpenfortUser.iso(createdAt)),
            "updatedAt": .string(OpenfortUser.iso(updatedAt)), "ipAddress": "127.0.0.1", "userAgent": "",
        ]
    }
}
