import AuthHub

/// Reads an Auth0 user profile (<doc:Auth0Endpoints>: “Models” "UserProfile") from `/userinfo` JSON or ID-token
/// claims into the core ``UserInfo``; `sub` is required.
public enum Auth0UserProfile {
    /// The profile's `UserInfo`: `sub` as the id, `email`, `email_verified`, `name`, and every claim.
    /// - Throws: ``AuthErrorCode/invalidRequest`` when the object has no string `sub`.
    public static func userInfo(from json: JSONValue, provider: String? = nil) throws -> UserInfo {
        guard let claims = json.objectValue, let sub = claims["sub"]?.stringValue else {
            throw AuthError(.invalidRequest, message: "The user profile has no sub.", provider: provider)
        }
        return UserInfo(id: sub, email: claims["email"]?.stringValue, emailVerified: claims["email_verified"]?.boolValue,
                        name: claims["name"]?.stringValue, claims: claims)
    }
}
