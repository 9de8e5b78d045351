import AuthHub
import Foundation

/// The current user as `GET /iam/v2/me` returns them (<doc:OpenfortEndpoints>: “Object shapes”, `AuthUserResponse`).
public struct OpenfortAuthUser: Sendable, Hashable {
    /// The user id.
    public var id: String
    /// The email address, if any.
    public var email: String?
    /// The display name.
    public var name: String?
    /// Whether the email address is verified.
    public var emailVerified: Bool
    /// The phone number, if any.
    public var phoneNumber: String?
    /// Whether the phone number is verified.
    public var phoneNumberVerified: Bool
    /// Whether this is a guest user.
    public var isAnonymous: Bool
    /// When the user was created (epoch number, tolerant of strings).
    public var createdAt: Date?
    /// The linked sign-in methods.
    public var linkedAccounts: [OpenfortLinkedAccount]
    /// Every member, as sent.
    public var raw: [String: JSONValue]

    /// Reads the reply.
    /// - Throws: ``AuthErrorCode/invalidRequest`` when it is not an object with an `id`.
    public init(json: JSONValue, provider: String) throws {
        guard let object = json.objectValue, let id = object["id"]?.stringValue, !id.isEmpty else {
            throw AuthError(.invalidRequest, message: "The /iam/v2/me reply from '\(provider)' has no user id.", provider: provider)
        }
        self.id = id
        email = object["email"]?.stringValue
        name = object["name"]?.stringValue
        emailVerified = object["emailVerified"]?.boolValue ?? false
        phoneNumber = object["phoneNumber"]?.stringValue
        phoneNumberVerified = object["phoneNumberVerified"]?.boolValue ?? false
        isAnonymous = object["isAnonymous"]?.boolValue ?? false
        createdAt = object["createdAt"].flatMap(OpenfortDate.read)
        linkedAccounts = (object["linkedAccounts"]?.arrayValue ?? []).compactMap(\.objectValue).map(OpenfortLinkedAccount.init(json:))
        raw = object
    }

    /// The user as a core ``UserInfo``.
    public var userInfo: UserInfo {
        UserInfo(id: id, email: email, emailVerified: emailVerified, name: name, claims: raw)
    }
}
