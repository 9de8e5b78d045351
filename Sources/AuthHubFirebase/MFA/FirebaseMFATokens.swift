import AuthHub
import Foundation

/// The reply of `mfaSignIn:finalize` and `mfaEnrollment:finalize` (firebase-js-sdk
/// `FinalizeMfaResponse`), and of `mfaEnrollment:withdraw` when that one carries tokens (they are
/// optional there: see ``FirebaseAPI/withdrawMFA(idToken:enrollmentID:)``): `{idToken, refreshToken}`. No `localId` or
/// `expiresIn` are part of it: the uid comes from the verified ID token, and the lifetime is
/// `expiresIn` when a reply carries one, else Firebase's one hour.
package struct FirebaseMFATokens: Sendable, Codable {
    /// The new ID token.
    package var idToken: Secret<String>
    /// The new refresh token.
    package var refreshToken: Secret<String>
    /// `expiresIn` when present, else ``FirebaseTokenResponse/defaultLifetime``.
    package var expiresIn: TimeInterval

    /// Creates a value.
    package init(idToken: Secret<String>, refreshToken: Secret<String>, expiresIn: TimeInterval = FirebaseTokenResponse.defaultLifetime) {
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
    }

    enum CodingKeys: String, CodingKey { case idToken, refreshToken, expiresIn }

    /// Reads a reply.
    /// - Throws: a decoding error naming `idToken` or `refreshToken` when either is missing or
    ///   empty, or `expiresIn` when it is present but not a positive number of seconds.
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        idToken = Secret(try c.requiredToken(.idToken))
        refreshToken = Secret(try c.requiredToken(.refreshToken))
        if c.contains(.expiresIn), try !c.decodeNil(forKey: .expiresIn) {
            expiresIn = try c.requiredLifetime(.expiresIn)
        } else {
            expiresIn = FirebaseTokenResponse.defaultLifetime
        }
    }

    /// Writes the reply's fields.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(idToken, forKey: .idToken)
        try c.encode(refreshToken, forKey: .refreshToken)
        try c.encode(FirebaseTokenResponse.wireSeconds(expiresIn), forKey: .expiresIn)
    }
}
