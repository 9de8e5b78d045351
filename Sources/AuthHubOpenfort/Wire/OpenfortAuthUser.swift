import AuthHub
import Foundation

/// The current user as `GET /iam/v2/me` returns them (<doc:OpenfortEndpoints>: “Object shapes”, `AuthUserResponse`).
public struct OpenfortAuthUser: Sendable, Hashable, Codable {
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

    enum CodingKeys: String, CodingKey {
        case id, email, name, emailVerified, phoneNumber, phoneNumberVerified, isAnonymous, createdAt, linkedAccounts
    }

    /// Reads the reply.
    /// - Throws: a decoding error naming `id` when it is missing, not a string or empty.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.requiredString(.id)
        email = c.looseString(.email)
        name = c.looseString(.name)
        emailVerified = c.looseBool(.emailVerified) ?? false
        phoneNumber = c.looseString(.phoneNumber)
        phoneNumberVerified = c.looseBool(.phoneNumberVerified) ?? false
        isAnonymous = c.looseBool(.isAnonymous) ?? false
        createdAt = c.looseDate(.createdAt)
        // Entries that are not objects are skipped, as before typed decoding.
        linkedAccounts = ((try? c.decodeIfPresent([OpenfortLossy<OpenfortLinkedAccount>].self, forKey: .linkedAccounts)) ?? nil)?
            .compactMap(\.value) ?? []
        // Open by nature: the user object grows with Openfort's API; every member is kept as a claim.
        raw = try KeyedDecodingContainer<CodingKeys>.openObject(decoder)
    }

    /// Writes the user as it was read (``raw``).
    public func encode(to encoder: any Encoder) throws {
        var raw = raw
        raw["id"] = .string(id)
        try raw.encode(to: encoder)
    }

    /// The user as a core ``UserInfo``.
    public var userInfo: UserInfo {
        UserInfo(id: id, email: email, emailVerified: emailVerified, name: name, claims: raw)
    }
}
