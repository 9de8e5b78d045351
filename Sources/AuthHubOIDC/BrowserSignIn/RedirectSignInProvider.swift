import AuthHub
import Foundation

/// A provider that signs users in through a browser redirect served by the application itself: the
/// server builds the authorization URL (PKCE, `state`, `nonce`), keeps the transaction, and finishes
/// the sign-in when the browser comes back to its own redirect URI.
///
/// This is what a web server needs (AuthHubHummingbird's sign-in routes); a command-line tool uses
/// `BrowserSignInProvider` with a loopback redirect instead. ``OIDCProvider`` and the Auth0
/// provider conform.
public protocol RedirectSignInProvider: AuthProvider {
    /// Starts a sign-in that returns to `redirectURI`: the transaction holds the authorization URL
    /// to send the browser to and the secrets (PKCE verifier, `state`, `nonce`) to keep server-side.
    /// - Throws: ``AuthErrorCode/invalidRequest`` or ``AuthErrorCode/unsupported`` for options the
    ///   provider refuses; configuration and discovery errors.
    func beginRedirectSignIn(redirectURI: String, options: BrowserSignInOptions) async throws -> OIDCAuthorizationTransaction

    /// Finishes a sign-in from the URL the browser was redirected to: checks `state`, exchanges the
    /// code with the PKCE verifier and validates the ID token (issuer, audience, nonce, `max_age`).
    /// - Throws: ``AuthErrorCode/stateMismatch`` for another sign-in's redirect; the provider's
    ///   error for a denied sign-in or a refused code; ``AuthErrorCode/invalidToken`` for an ID token
    ///   that does not validate.
    func finishRedirectSignIn(callbackURL: URL, transaction: OIDCAuthorizationTransaction) async throws -> Session
}

extension OIDCProvider: RedirectSignInProvider {
    public func beginRedirectSignIn(redirectURI: String, options: BrowserSignInOptions) async throws -> OIDCAuthorizationTransaction {
        try await makeTransaction(redirectURI: redirectURI, options: options)
    }

    public func finishRedirectSignIn(callbackURL: URL, transaction: OIDCAuthorizationTransaction) async throws -> Session {
        try await completeSignIn(callbackURL: callbackURL, transaction: transaction)
    }
}
