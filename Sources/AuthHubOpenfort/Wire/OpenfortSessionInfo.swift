import AuthHub
import Foundation

/// The reply of `GET /iam/v2/auth/get-session` (spec §2, §5): the server's session and its user.
public struct OpenfortSessionInfo: Sendable {
    /// The session id.
    public var id: String?
    /// The session token; may differ from the one sent (better-auth rotates on update).
    public var token: Secret<String>?
    /// The session's user id.
    public var userID: String?
    /// When the server will consider the session expired.
    public var expiresAt: Date?
    /// The user.
    public var user: OpenfortUser?

    /// Creates a value.
    public init(id: String? = nil, token: Secret<String>? = nil, userID: String? = nil, expiresAt: Date? = nil, user: OpenfortUser? = nil) {
        self.id = id
        self.token = token
        self.userID = userID
        self.expiresAt = expiresAt
        self.user = user
    }

    /// Reads a reply; `null` (no session) gives nil.
    /// - Throws: ``AuthErrorCode/invalidRequest`` for anything but an object or `null`.
    public static func read(_ json: JSONValue, provider: String) throws -> OpenfortSessionInfo? {
        if case .null = json { return nil }
        guard let object = json.objectValue else {
            throw AuthError(.invalidRequest, message: "The get-session reply from '\(provider)' is not a JSON object.", provider: provider)
        }
        let session = object["session"]?.objectValue ?? [:]
        if object["session"] == nil || object["session"] == .null, object["user"] == nil || object["user"] == .null { return nil }
        let user = try object["user"]?.objectValue.map { try OpenfortUser(json: $0, provider: provider) }
        return OpenfortSessionInfo(
            id: session["id"]?.stringValue,
            token: session["token"]?.stringValue.flatMap { $0.isEmpty ? nil : Secret($0) },
            userID: session["userId"]?.stringValue ?? user?.id,
            expiresAt: session["expiresAt"].flatMap(OpenfortDate.read),
            user: user)
    }
}
