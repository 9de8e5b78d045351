import AuthHub
import Foundation

/// A user as the v2 auth endpoints return them (<doc:OpenfortEndpoints>: “Object shapes”, the better-auth user): sign-in, sign-up
/// and get-session replies.
///
/// Read tolerantly: only `id` is required; unknown members are kept in ``raw``.
public struct OpenfortUser: Sendable, Hashable {
    /// The user id.
    public var id: String
    /// The email address (anonymous users get a generated one; see ``isAnonymous``).
    public var email: String?
    /// The display name.
    public var name: String?
    /// The profile image URL.
    public var image: String?
    /// Whether the email address is verified.
    public var emailVerified: Bool
    /// Whether this is a guest (anonymous) user; authoritative over the email.
    public var isAnonymous: Bool
    /// The phone number, if any.
    public var phoneNumber: String?
    /// Every member of the reply, as sent.
    public var raw: [String: JSONValue]

    /// Reads a `user` object.
    /// - Throws: ``AuthErrorCode/invalidRequest`` when it has no `id`.
    public init(json: [String: JSONValue], provider: String) throws {
        guard let id = json["id"]?.stringValue, !id.isEmpty else {
            throw AuthError(.invalidRequest, message: "The reply from '\(provider)' has a user without an id.", provider: provider)
        }
        self.id = id
        email = json["email"]?.stringValue
        name = json["name"]?.stringValue
        image = json["image"]?.stringValue
        emailVerified = json["emailVerified"]?.boolValue ?? false
        isAnonymous = json["isAnonymous"]?.boolValue ?? false
        phoneNumber = json["phoneNumber"]?.stringValue
        raw = json
    }

    /// The user as a core ``UserInfo`` (every member as a claim).
    public var userInfo: UserInfo {
        UserInfo(id: id, email: email, emailVerified: emailVerified, name: name, claims: raw)
    }
}
