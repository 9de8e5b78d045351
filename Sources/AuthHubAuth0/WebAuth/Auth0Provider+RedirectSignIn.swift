import AuthHub
import AuthHubOIDC
import Foundation

extension Auth0Provider: RedirectSignInProvider {
    /// Starts Universal Login returning to `redirectURI` (``Auth0WebAuth/begin(redirectURI:options:)``:
    /// pushed first when the provider pushes its authorization requests).
    public func beginRedirectSignIn(redirectURI: String, options: BrowserSignInOptions) async throws -> OIDCAuthorizationTransaction {
        try await webAuth.begin(redirectURI: redirectURI, options: options)
    }

    /// Finishes Universal Login (``Auth0WebAuth/finish(callback:transaction:)``).
    public func finishRedirectSignIn(callbackURL: URL, transaction: OIDCAuthorizationTransaction) async throws -> Session {
        do {
            return try await webAuth.finish(callback: callbackURL, transaction: transaction)
        } catch {
            throw AuthError.wrap(error, provider: id)
        }
    }
}
