import Foundation

/// A passkey sign-in in two steps, for a client that is not in this process — a browser on a page
/// the server renders: ``PasskeyChallengeSignInProvider/beginPasskeySignIn(identifier:)`` makes the
/// options the browser's `navigator.credentials.get` signs, and
/// ``PasskeyChallengeSignInProvider/finishPasskeySignIn(_:assertion:)`` turns its assertion into a
/// session.
///
/// ``state`` is the provider's own (for Turnkey: the exact request body the assertion signs and the
/// new session key); keep it on the server, never in the page, and use a challenge once.
public struct PasskeySignInChallenge: Sendable {
    /// What the browser signs (`PublicKeyCredentialRequestOptionsJSON` through ``PasskeyAssertionOptions/json``).
    public var options: PasskeyAssertionOptions
    /// The provider's state between the two steps (secret).
    public var state: Secret<String>
    /// When it was made.
    public var createdAt: Date

    public init(options: PasskeyAssertionOptions, state: Secret<String>, createdAt: Date) {
        self.options = options
        self.state = state
        self.createdAt = createdAt
    }
}

/// A provider whose passkey sign-in can be split across two requests (see ``PasskeySignInChallenge``):
/// Turnkey, whose passkey stamps the `stamp_login` request itself. The web core's login route uses
/// it for a provider without a redirect that signs in with passkeys.
public protocol PasskeyChallengeSignInProvider: AuthProvider {
    /// Starts a passkey sign-in; `identifier` (an email), when given, narrows it to that account.
    /// - Throws: ``AuthErrorCode/userNotFound`` for an unknown identifier; the provider's errors.
    func beginPasskeySignIn(identifier: String?) async throws -> PasskeySignInChallenge

    /// Finishes the sign-in with the browser's assertion over `challenge`'s options.
    /// - Throws: ``AuthErrorCode/invalidCredentials`` when the passkey is not the account's; the
    ///   provider's errors.
    func finishPasskeySignIn(_ challenge: PasskeySignInChallenge, assertion: PasskeyAssertion) async throws -> Session
}
