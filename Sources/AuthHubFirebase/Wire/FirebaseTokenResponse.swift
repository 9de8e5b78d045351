import AuthHub
import Foundation

/// The token triple of a sign-up, password sign-in or credential change (<doc:FirebaseEndpoints>: “Endpoints”: `idToken`,
/// `refreshToken`, `expiresIn` as a string of seconds, `localId`).
public struct FirebaseTokenResponse: Sendable {
    /// The user's uid (`localId`).
    public var localID: String
    /// `email`, when the reply has one.
    public var email: String?
    /// `displayName`, when the reply has one.
    public var displayName: String?
    /// `profilePicture` (sign-in) or `photoUrl` (update).
    public var photoURL: String?
    /// `registered` (sign-in replies).
    public var registered: Bool?
    /// The Firebase ID token (a JWT).
    public var idToken: Secret<String>
    /// The opaque refresh token.
    public var refreshToken: Secret<String>
    /// `expiresIn`, in seconds (sent as a string, normally `"3600"`).
    public var expiresIn: TimeInterval

    /// Creates a response from values.
    public init(localID: String, email: String? = nil, displayName: String? = nil, photoURL: String? = nil,
                registered: Bool? = nil, idToken: Secret<String>, refreshToken: Secret<String>, expiresIn: TimeInterval) {
        self.localID = localID
        self.email = email
        self.displayName = displayName
        self.photoURL = photoURL
        self.registered = registered
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
    }

    /// Reads a reply object; nil when it carries no `idToken` (a profile-only update).
    /// - Throws: ``AuthErrorCode/invalidRequest`` when `idToken` is present but `localId` is not.
    static func read(_ object: [String: JSONValue], provider: String, what: String) throws -> FirebaseTokenResponse? {
        guard let idToken = object["idToken"]?.stringValue, !idToken.isEmpty else { return nil }
        return FirebaseTokenResponse(
            localID: try FirebaseReply.string("localId", in: object, provider: provider, what: what),
            email: object["email"]?.stringValue, displayName: object["displayName"]?.stringValue,
            photoURL: object["profilePicture"]?.stringValue ?? object["photoUrl"]?.stringValue,
            registered: object["registered"]?.firebaseBool, idToken: Secret(idToken),
            refreshToken: Secret(object["refreshToken"]?.stringValue ?? ""),
            expiresIn: object["expiresIn"]?.firebaseNumber ?? FirebaseTokenResponse.defaultLifetime)
    }

    /// The lifetime assumed when a reply omits `expiresIn` (Firebase ID tokens live one hour).
    public static let defaultLifetime: TimeInterval = 3600
}
