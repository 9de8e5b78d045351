import AuthHub
import Foundation

/// The reply of `accounts:update` (<doc:FirebaseEndpoints>: “Account update”): the account after the change and, when the change
/// bumped `validSince` (password or email change), new tokens that replace the old ones.
public struct FirebaseAccountUpdate: Sendable {
    /// The uid (`localId`).
    public var uid: String?
    /// The email address (`email`).
    public var email: String?
    /// Whether the email address is verified (`emailVerified`).
    public var emailVerified: Bool?
    /// The display name (`displayName`).
    public var displayName: String?
    /// The profile photo URL (`photoUrl`).
    public var photoURL: String?
    /// `providerUserInfo[]`.
    public var providers: [FirebaseUserProviderInfo]
    /// New tokens, when the reply has them.
    public var tokens: FirebaseTokenResponse?

    /// Creates an update from values.
    public init(uid: String?, email: String? = nil, emailVerified: Bool? = nil, displayName: String? = nil, photoURL: String? = nil,
                providers: [FirebaseUserProviderInfo] = [], tokens: FirebaseTokenResponse? = nil) {
        self.uid = uid
        self.email = email
        self.emailVerified = emailVerified
        self.displayName = displayName
        self.photoURL = photoURL
        self.providers = providers
        self.tokens = tokens
    }

    static func read(_ object: [String: JSONValue], provider: String) throws -> FirebaseAccountUpdate {
        FirebaseAccountUpdate(
            uid: object["localId"]?.firebaseString, email: object["email"]?.stringValue,
            emailVerified: object["emailVerified"]?.firebaseBool, displayName: object["displayName"]?.stringValue,
            photoURL: object["photoUrl"]?.stringValue,
            providers: object["providerUserInfo"]?.arrayValue?.map(FirebaseUserProviderInfo.init(json:)) ?? [],
            tokens: try FirebaseTokenResponse.read(object, provider: provider, what: "account update"))
    }
}
