import AuthHub

/// The reply of `GET /userinfo`: a user profile whose `sub` is required (a string); `email`,
/// `email_verified` and `name` are read when they have their types.
///
/// The other claims are open by nature (standard, custom and namespaced claims a tenant adds), so
/// the whole object is kept as ``claims``.
struct Auth0UserInfoReply: Decodable, Sendable {
    /// `sub`.
    var sub: String
    /// Every member of the profile.
    var claims: [String: JSONValue]

    enum CodingKeys: String, CodingKey { case sub }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        sub = try container.decode(String.self, forKey: .sub)
        claims = try decoder.singleValueContainer().decode([String: JSONValue].self)
    }

    /// The core ``UserInfo`` of this profile.
    var userInfo: UserInfo {
        UserInfo(id: sub, email: claims["email"]?.stringValue, emailVerified: claims["email_verified"]?.boolValue,
                 name: claims["name"]?.stringValue, claims: claims)
    }
}
