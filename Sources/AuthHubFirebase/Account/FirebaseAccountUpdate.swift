import AuthHub
import Foundation

/// The reply of `accounts:update` (<doc:FirebaseEndpoints>: “Account update”): the account after the change and, when the change
/// bumped `validSince` (password or email change), new tokens that replace the old ones.
package struct FirebaseAccountUpdate: Sendable, Codable {
    /// The uid (`localId`).
    package var uid: String?
    /// The email address (`email`).
    package var email: String?
    /// Whether the email address is verified (`emailVerified`).
    package var emailVerified: Bool?
    /// The display name (`displayName`).
    package var displayName: String?
    /// The profile photo URL (`photoUrl`).
    package var photoURL: String?
    /// `providerUserInfo[]`.
    package var providers: [FirebaseUserProviderInfo]
    /// New tokens, when the reply has them.
    package var tokens: FirebaseTokenResponse?

    /// Creates an update from values.
    package init(uid: String?, email: String? = nil, emailVerified: Bool? = nil, displayName: String? = nil, photoURL: String? = nil,
                providers: [FirebaseUserProviderInfo] = [], tokens: FirebaseTokenResponse? = nil) {
        self.uid = uid
        self.email = email
        self.emailVerified = emailVerified
        self.displayName = displayName
        self.photoURL = photoURL
        self.providers = providers
        self.tokens = tokens
    }

    enum CodingKeys: String, CodingKey {
        case uid = "localId", email, emailVerified, displayName, photoURL = "photoUrl", providers = "providerUserInfo", idToken
    }

    /// Reads an `accounts:update` reply: the account fields tolerantly; when it carries an
    /// `idToken`, the whole token triple (see ``FirebaseTokenResponse/init(from:)``) is required.
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let hasTokens = c.contains(.idToken) && (try? c.decodeNil(forKey: .idToken)) == false
        let tokens = hasTokens ? try FirebaseTokenResponse(from: decoder) : nil
        self.init(uid: c.firebaseString(.uid), email: c.looseString(.email), emailVerified: c.firebaseBool(.emailVerified),
                  displayName: c.looseString(.displayName), photoURL: c.looseString(.photoURL),
                  providers: ((try? c.decodeIfPresent([FirebaseUserProviderInfo].self, forKey: .providers)) ?? nil) ?? [],
                  tokens: tokens)
    }

    /// Writes the reply's fields, the tokens (when any) beside them.
    package func encode(to encoder: any Encoder) throws {
        try tokens?.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(uid, forKey: .uid)
        try c.encodeIfPresent(email, forKey: .email)
        try c.encodeIfPresent(emailVerified, forKey: .emailVerified)
        try c.encodeIfPresent(displayName, forKey: .displayName)
        try c.encodeIfPresent(photoURL, forKey: .photoURL)
        if !providers.isEmpty { try c.encode(providers, forKey: .providers) }
    }
}
