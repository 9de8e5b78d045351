import AuthHub
import Foundation

/// The reply of `mfaSignIn:finalize`, `mfaEnrollment:finalize` and `mfaEnrollment:withdraw`
/// (firebase-js-sdk `FinalizeMfaResponse`): `{idToken, refreshToken}`. No `localId` or
/// `expiresIn` are part of it: the uid comes from the verified ID token, and the lifetime is
/// `expiresIn` when a reply carries one, else Firebase's one hour.
public struct FirebaseMFATokens: Sendable {
    /// The new ID token.
    public var idToken: Secret<String>
    /// The new refresh token.
    public var refreshToken: Secret<String>
    /// `expiresIn` when present, else ``FirebaseTokenResponse/defaultLifetime``.
    public var expiresIn: TimeInterval

    /// Creates a value.
    public init(idToken: Secret<String>, refreshToken: Secret<String>, expiresIn: TimeInterval = FirebaseTokenResponse.defaultLifetime) {
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
    }

    /// Reads a reply.
    /// - Throws: ``AuthErrorCode/invalidRequest`` when `idToken` or `refreshToken` is missing.
    static func read(_ reply: [String: JSONValue], provider: String, what: String) throws -> FirebaseMFATokens {
        FirebaseMFATokens(idToken: Secret(try FirebaseReply.string("idToken", in: reply, provider: provider, what: what)),
                          refreshToken: Secret(try FirebaseReply.string("refreshToken", in: reply, provider: provider, what: what)),
                          expiresIn: reply["expiresIn"]?.firebaseNumber ?? FirebaseTokenResponse.defaultLifetime)
    }
}
