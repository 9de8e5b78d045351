import enum AuthHub.JSONValue
import Foundation

/// A passkey ceremony opened by `/passkey/challenge` (login) or `/passkey/register` (signup).
struct Auth0PasskeySession: Sendable {
    enum Kind: Sendable {
        case login
        /// Signup: the user to create once the attestation verifies.
        case signup(userId: String, userHandle: [UInt8], email: String, attributes: [String: JSONValue])
    }

    var kind: Kind
    var challenge: [UInt8]
    var clientId: String
    var connection: String
    var expiresAt: Date
}
