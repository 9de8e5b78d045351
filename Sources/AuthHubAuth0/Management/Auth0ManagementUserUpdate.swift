import AuthHub

/// The body of `PATCH /api/v2/users/{id}` as AuthHub sends it: `user_metadata` only (open by
/// nature: the application's own data; a member set to `null` is removed by Auth0).
struct Auth0ManagementUserUpdate: Encodable, Sendable {
    var userMetadata: [String: JSONValue]

    enum CodingKeys: String, CodingKey { case userMetadata = "user_metadata" }
}
