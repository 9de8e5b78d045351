/// The user a database-connection signup created (<doc:Auth0Endpoints>: “Sign-up”), decoded from the
/// `/dbconnections/signup` reply: `email` is required, the rest optional.
public struct Auth0DatabaseUser: Sendable, Hashable, Decodable {
    /// The email address.
    public var email: String
    /// The username, when the connection uses usernames.
    public var username: String?
    /// `email_verified` (false when absent).
    public var verified: Bool
    /// The user's id (`_id`, `id` or `user_id`), when the reply carries one.
    public var id: String?

    /// Creates a user.
    public init(email: String, username: String? = nil, verified: Bool = false, id: String? = nil) {
        self.email = email
        self.username = username
        self.verified = verified
        self.id = id
    }
}

extension Auth0DatabaseUser {
    enum CodingKeys: String, CodingKey {
        case email, username, emailVerified = "email_verified", underscoreID = "_id", id, userID = "user_id"
    }

    /// Decodes a signup reply; the id is `_id`, `id` or `user_id`, whichever comes first.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(email: try container.decode(String.self, forKey: .email),
                  username: try container.decodeIfPresent(String.self, forKey: .username),
                  verified: try container.decodeIfPresent(Bool.self, forKey: .emailVerified) ?? false,
                  id: try container.decodeIfPresent(String.self, forKey: .underscoreID)
                      ?? container.decodeIfPresent(String.self, forKey: .id)
                      ?? container.decodeIfPresent(String.self, forKey: .userID))
    }
}
