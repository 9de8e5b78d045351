import AuthHub
import Foundation

/// A user as the Management API v2 returns it (<doc:Auth0Endpoints>: “Management API users”, `GET /api/v2/users/{id}`), with
/// every member in ``json``.
///
/// Members are optional because a `fields` filter can leave any of them out, `user_id` included.
/// A member of an unexpected JSON type reads as absent rather than failing the whole user; it is
/// still in ``json``. `description` leaves out ``json`` and the metadata, which may hold anything.
public struct Auth0ManagementUser: Sendable, Hashable, CustomStringConvertible {
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

    /// Reads a user object.
    /// - Throws: ``AuthError`` with ``AuthErrorCode/invalidRequest`` when `json` is not an object,
    ///   when `identities` is present but not an array, or when an identity is malformed.
    public init(json: JSONValue) throws {
        guard json.objectValue != nil else {
            throw AuthError(.invalidRequest, message: "The Management API user is not a JSON object.")
        }
        var identities: [Auth0UserIdentity] = []
        if let value = json["identities"], value != .null {
            guard let array = value.arrayValue else {
                throw AuthError(.invalidRequest, message: "The Management API user's identities are not an array.")
            }
            identities = try array.map(Auth0UserIdentity.init(json:))
        }
        self.userID = json["user_id"]?.stringValue
        self.email = json["email"]?.stringValue
        self.emailVerified = json["email_verified"]?.boolValue
        self.name = json["name"]?.stringValue
        self.nickname = json["nickname"]?.stringValue
        self.picture = json["picture"]?.stringValue
        self.identities = identities
        self.userMetadata = json["user_metadata"]?.objectValue ?? [:]
        self.appMetadata = json["app_metadata"]?.objectValue ?? [:]
        self.createdAt = json["created_at"]?.stringValue.flatMap(Self.date)
        self.updatedAt = json["updated_at"]?.stringValue.flatMap(Self.date)
        self.json = json
    }

    /// An ISO 8601 timestamp with or without fractional seconds (Auth0 sends `2026-01-01T00:00:00.000Z`).
    static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }

    /// The user id and email, never the metadata.
    public var description: String {
        "Auth0ManagementUser(userID: \(userID ?? "nil"), email: \(email ?? "nil"), identities: \(identities.count))"
    }
}
