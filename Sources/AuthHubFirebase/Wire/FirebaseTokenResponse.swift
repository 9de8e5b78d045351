import AuthHub
import Foundation

/// The token triple of a sign-up, password sign-in or credential change (<doc:FirebaseEndpoints>: “Endpoints”: `idToken`,
/// `refreshToken`, `expiresIn` as a string of seconds, `localId`).
package struct FirebaseTokenResponse: Sendable, Codable {
    /// The user's uid (`localId`).
    package var localID: String
    /// `email`, when the reply has one.
    package var email: String?
    /// `displayName`, when the reply has one.
    package var displayName: String?
    /// `profilePicture` (sign-in) or `photoUrl` (update).
    package var photoURL: String?
    /// `registered` (sign-in replies).
    package var registered: Bool?
    /// The Firebase ID token (a JWT).
    package var idToken: Secret<String>
    /// The opaque refresh token.
    package var refreshToken: Secret<String>
    /// `expiresIn`, in seconds (sent as a string, normally `"3600"`).
    package var expiresIn: TimeInterval

    /// Creates a response from values.
    package init(localID: String, email: String? = nil, displayName: String? = nil, photoURL: String? = nil,
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

    enum CodingKeys: String, CodingKey {
        case localID = "localId", email, displayName, photoURL = "profilePicture", photoUrl, registered, idToken, refreshToken, expiresIn
    }

    /// Reads a sign-up, sign-in or credential-change reply: `idToken`, `refreshToken`, `expiresIn`
    /// (a positive number of seconds, sent as a string) and `localId` are required, as in
    /// firebase-js-sdk's `IdTokenResponse`; the rest is informational and read tolerantly.
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        idToken = Secret(try c.requiredToken(.idToken))
        refreshToken = Secret(try c.requiredToken(.refreshToken))
        expiresIn = try c.requiredLifetime(.expiresIn)
        guard let uid = c.firebaseString(.localID), !uid.isEmpty else {
            if c.contains(.localID) { throw DecodingError.dataCorruptedError(forKey: .localID, in: c, debugDescription: "empty or not a string") }
            throw DecodingError.keyNotFound(CodingKeys.localID, .init(codingPath: c.codingPath, debugDescription: "missing"))
        }
        localID = uid
        email = c.looseString(.email)
        displayName = c.looseString(.displayName)
        photoURL = c.looseString(.photoURL) ?? c.looseString(.photoUrl)
        registered = c.firebaseBool(.registered)
    }

    /// Writes the reply's fields (the photo as `profilePicture`).
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(localID, forKey: .localID)
        try c.encodeIfPresent(email, forKey: .email)
        try c.encodeIfPresent(displayName, forKey: .displayName)
        try c.encodeIfPresent(photoURL, forKey: .photoURL)
        try c.encodeIfPresent(registered, forKey: .registered)
        try c.encode(idToken, forKey: .idToken)
        try c.encode(refreshToken, forKey: .refreshToken)
        try c.encode(FirebaseTokenResponse.wireSeconds(expiresIn), forKey: .expiresIn)
    }

    /// The lifetime assumed when a reply omits `expiresIn` (Firebase ID tokens live one hour).
    package static let defaultLifetime: TimeInterval = 3600

    /// A lifetime as Firebase writes it (a string of whole seconds), clamped to
    /// ``SessionTimeLimits/maxLifetime`` so that no value traps the conversion.
    static func wireSeconds(_ seconds: TimeInterval) -> String {
        String(Int64(min(max(seconds.isFinite ? seconds : 0, 0), SessionTimeLimits.maxLifetime).rounded()))
    }
}
