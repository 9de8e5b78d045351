/// The user a database-connection signup created (<doc:Auth0Endpoints>: “Sign-up”).
public struct Auth0DatabaseUser: Sendable, Hashable {
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
