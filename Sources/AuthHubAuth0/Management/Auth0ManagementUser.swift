import AuthHub
import Foundation

/// A user as the Management API v2 returns it (<doc:Auth0Endpoints>: “Management API users”, `GET /api/v2/users/{id}`), with
/// every member in ``json``.
///
/// Members are optional because a `fields` filter can leave any of them out, `user_id` included.
/// A member of an unexpected JSON type reads as absent rather than failing the whole user; it is
/// still in ``json``. `description` leaves out ``json`` and the metadata, which may hold anything.
public struct Auth0ManagementUser: Sendable, Hashable, Decodable, CustomStringConvertible {
    /// The Auth0 user id, `provider|id` (e.g. `auth0|64f…`, `google-oauth2|1234`).
    public var userID: String?
    /// The email address.
    public var email: String?
    /// Whether the email address is verified.
    public var emailVerified: Bool?
    /// The full name.
    public var name: String?
    /// The nickname.
    public var nickname: String?
    /// The picture URL.
    public var picture: String?
    /// The linked identities, the primary one first.
    public var identities: [Auth0UserIdentity]
    /// Metadata the user may read and update (`user_metadata`); empty when absent.
    public var userMetadata: [String: JSONValue]
    /// Metadata only the application may update (`app_metadata`); empty when absent.
    public var appMetadata: [String: JSONValue]
    /// When the user was created (`created_at`, ISO 8601).
    public var createdAt: Date?
    /// When the user was last updated (`updated_at`, ISO 8601).
    public var updatedAt: Date?
    /// The whole object as returned.
    public var json: JSONValue

    enum CodingKeys: String, CodingKey {
        case userID = "user_id", email, emailVerified = "email_verified", name, nickname, picture, identities
        case userMetadata = "user_metadata", appMetadata = "app_metadata", createdAt = "created_at", updatedAt = "updated_at"
    }

    /// Decodes a user object. The metadata and ``json`` are open by nature (the application's and
    /// the tenant's own data), so the object is also kept whole.
    /// - Throws: a `DecodingError` (named by the ``APIClient``) when the reply is not an object,
    ///   when `identities` is present but not an array, or when an identity is malformed.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func string(_ key: CodingKeys) -> String? { (try? container.decodeIfPresent(String.self, forKey: key)) ?? nil }
        func object(_ key: CodingKeys) -> [String: JSONValue] {
            ((try? container.decodeIfPresent([String: JSONValue].self, forKey: key)) ?? nil) ?? [:]
        }
        self.identities = try container.decodeIfPresent([Auth0UserIdentity].self, forKey: .identities) ?? []
        self.userID = string(.userID)
        self.email = string(.email)
        self.emailVerified = (try? container.decodeIfPresent(Bool.self, forKey: .emailVerified)) ?? nil
        self.name = string(.name)
        self.nickname = string(.nickname)
        self.picture = string(.picture)
        self.userMetadata = object(.userMetadata)
        self.appMetadata = object(.appMetadata)
        self.createdAt = string(.createdAt).flatMap(Self.date)
        self.updatedAt = string(.updatedAt).flatMap(Self.date)
        self.json = try decoder.singleValueContainer().decode(JSONValue.self)
    }

    /// An ISO 8601 timestamp with or without fractional seconds (Auth0 sends `2026-01-01T00:00:00.000Z`).
    static func date(_ text: String) -> Date? { RFC3339.date(text) }

    /// The user id and email, never the metadata.
    public var description: String {
        "Auth0ManagementUser(userID: \(userID ?? "nil"), email: \(email ?? "nil"), identities: \(identities.count))"
    }
}
