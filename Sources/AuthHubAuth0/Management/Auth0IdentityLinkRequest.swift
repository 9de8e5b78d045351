/// The body of `POST /api/v2/users/{id}/identities`: either `link_with` (the secondary account's
/// token) or `provider` and `user_id` with an optional `connection_id` (server side).
struct Auth0IdentityLinkRequest: Encodable, Sendable {
    var linkWith: String?
    var provider: String?
    var userID: String?
    var connectionID: String?

    enum CodingKeys: String, CodingKey {
        case linkWith = "link_with", provider, userID = "user_id", connectionID = "connection_id"
    }
}
