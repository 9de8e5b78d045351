import Foundation

/// A provider whose accounts are created with a passkey rather than a password (Turnkey): the
/// context's ``PasskeyAuthenticator`` makes the credential, the provider registers it and signs in.
public protocol PasskeySignUpProvider: AuthProvider {
    /// Creates an account for `email` whose credential is a new passkey, and signs in with it.
    /// - Throws: ``AuthErrorCode/invalidEmail`` before any request for a malformed address;
    ///   ``AuthErrorCode/emailAlreadyInUse``; ``AuthErrorCode/invalidConfiguration`` without a
    ///   passkey authenticator; the authenticator's and the provider's errors.
    func signUpWithPasskey(email: String, displayName: String?) async throws -> Session
}
