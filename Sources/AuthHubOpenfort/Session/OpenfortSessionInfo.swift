import AuthHub
import Foundation

/// The reply of `GET /iam/v2/auth/get-session` (<doc:OpenfortEndpoints>: “Object shapes” and “Sessions”): the server's session and its user.
package struct OpenfortSessionInfo: Sendable, Codable {
    /// The session id.
    package var id: String?
    /// The session token; may differ from the one sent (better-auth rotates on update).
    package var token: Secret<String>?
    /// The session's user id.
    package var userID: String?
    /// When the server will consider the session expired.
    package var expiresAt: Date?
    /// The user.
    package var user: OpenfortUser?

    /// Creates a value.
    package init(id: String? = nil, token: Secret<String>? = nil, userID: String? = nil, expiresAt: Date? = nil, user: OpenfortUser? = nil) {
        self.id = id
        self.token = token
        self.userID = userID
        self.expiresAt = expiresAt
        self.user = user
    }

    /// Whether the reply named neither a session nor a user (`{}`, or both `null`): no session.
    var isEmpty: Bool { id == nil && token == nil && userID == nil && expiresAt == nil && user == nil }

    enum CodingKeys: String, CodingKey { case session, user }
    enum SessionKeys: String, CodingKey { case id, token, userID = "userId", expiresAt }

    /// Reads a reply object (`null`, no session, is decoded as an Optional by the caller).
    /// Absent or null members are "not there"; present ones must have their type (a reply of the
    /// wrong shape is an error, never a session kept or ended by accident).
    /// - Throws: a decoding error naming `session` or `user` when either is not an object,
    ///   `session.token` when it is not a string, `session.expiresAt` when it is not a date between
    ///   1970 and 9999, `user.id` when the user has none.
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let user = try c.decodeIfPresent(OpenfortUser.self, forKey: .user)
        guard c.contains(.session), try !c.decodeNil(forKey: .session) else {
            self.init(userID: user?.id, user: user)
            return
        }
        let session = try c.nestedContainer(keyedBy: SessionKeys.self, forKey: .session)
        let token = try session.decodeIfPresent(String.self, forKey: .token).flatMap { $0.isEmpty ? nil : Secret($0) }
        var expiresAt: Date?
        if session.contains(.expiresAt), try !session.decodeNil(forKey: .expiresAt) {
            if let number = try? session.decode(Double.self, forKey: .expiresAt) {
                expiresAt = OpenfortDate.epoch(number)
            } else if let text = try? session.decode(String.self, forKey: .expiresAt) {
                expiresAt = OpenfortDate.read(text)
            }
            guard expiresAt != nil else {
                throw DecodingError.dataCorruptedError(forKey: .expiresAt, in: session,
                                                       debugDescription: "not a date between 1970 and 9999")
            }
        }
        self.init(id: session.looseString(.id), token: token, userID: session.looseString(.userID) ?? user?.id,
                  expiresAt: expiresAt, user: user)
    }

    /// Writes the reply as `{session: {id, token, userId, expiresAt}, user}`.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        var session = c.nestedContainer(keyedBy: SessionKeys.self, forKey: .session)
        try session.encodeIfPresent(id, forKey: .id)
        try session.encodeIfPresent(token, forKey: .token)
        try session.encodeIfPresent(userID, forKey: .userID)
        try session.encodeIfPresent(expiresAt.map(OpenfortDate.string), forKey: .expiresAt)
        try c.encodeIfPresent(user, forKey: .user)
    }
}
