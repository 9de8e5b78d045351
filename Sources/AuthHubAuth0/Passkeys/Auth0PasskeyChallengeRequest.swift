import AuthHub

/// The JSON body of `POST /passkey/challenge` (login) and `POST /passkey/register` (signup, with
/// `user_profile` and optional `user_metadata`, both open by nature: the new user's attributes).
struct Auth0PasskeyChallengeRequest: Encodable, Sendable {
    var userProfile: [String: JSONValue]?
    var realm: String?
    var organization: String?
    var userMetadata: [String: JSONValue]?

    enum CodingKeys: String, CodingKey { case userProfile = "user_profile", realm, organization, userMetadata = "user_metadata" }
}
