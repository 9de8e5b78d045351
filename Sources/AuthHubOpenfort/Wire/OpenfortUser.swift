import AuthHub
import Foundation

/// A user as the v2 auth endpoints return them (<doc:OpenfortEndpoints>: “Object shapes”, the better-auth user): sign-in, sign-up
/// and get-session replies.
///
/// Read tolerantly: only `id` is required; unknown members are kept in ``raw``.
public struct OpenfortUser: Sendable, Hashable, Codable {
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

    enum CodingKeys: String, CodingKey { case id, email, name, image, emailVerified, isAnonymous, phoneNumber }

    /// Reads a `user` object.
    /// - Throws: a decoding error naming `id` when it is missing, not a string or empty.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.requiredString(.id)
        email = c.looseString(.email)
        name = c.looseString(.name)
        image = c.looseString(.image)
        emailVerified = c.looseBool(.emailVerified) ?? false
        isAnonymous = c.looseBool(.isAnonymous) ?? false
        phoneNumber = c.looseString(.phoneNumber)
        // Open by nature: better-auth plugins add members to the user, kept as claims.
        raw = try KeyedDecodingContainer<CodingKeys>.openObject(decoder)
    }

    /// Writes the user as it was read (``raw``).
    public func encode(to encoder: any Encoder) throws {
        var raw = raw
        raw["id"] = .string(id)
        try raw.encode(to: encoder)
    }

    /// The user as a core ``UserInfo`` (every member as a claim).
    public var userInfo: UserInfo {
        UserInfo(id: id, email: email, emailVerified: emailVerified, name: name, claims: raw)
    }
}
