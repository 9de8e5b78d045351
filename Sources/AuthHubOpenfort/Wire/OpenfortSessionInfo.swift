import AuthHub
import Foundation

/// The reply of `GET /iam/v2/auth/get-session` (<doc:OpenfortEndpoints>: “Object shapes” and “Sessions”): the server's session and its user.
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
        func malformed(_ what: String) -> AuthError {
            AuthError(.invalidRequest, message: "The get-session reply from '\(provider)' \(what).", provider: provider)
        }
        // Absent or null members are "not there"; present ones must have their type (a reply of the
        // wrong shape is an error, never a session kept or ended by accident).
        func member(_ name: String, in object: [String: JSONValue]) throws -> [String: JSONValue]? {
            switch object[name] {
            case nil, .null?: return nil
            case .object(let members)?: return members
            default: throw malformed("has a \(name) that is not an object")
            }
        }
        let session = try member("session", in: object)
        let userObject = try member("user", in: object)
        if session == nil, userObject == nil { return nil }
        let user = try userObject.map { try OpenfortUser(json: $0, provider: provider) }
        let fields = session ?? [:]
        var token: Secret<String>?
        switch fields["token"] {
        case nil, .null?: token = nil
        case .string(let text)?: token = text.isEmpty ? nil : Secret(text)
        default: throw malformed("has a session token that is not a string")
        }
        var expiresAt: Date?
        if let raw = fields["expiresAt"], raw != .null {
            guard let date = OpenfortDate.read(raw) else { throw malformed("has a session expiry that is not a date between 1970 and 9999") }
            expiresAt = date
        }
        return OpenfortSessionInfo(
            id: fields["id"]?.stringValue,
            token: token,
            userID: fields["userId"]?.stringValue ?? user?.id,
            expiresAt: expiresAt,
            user: user)
    }
}
