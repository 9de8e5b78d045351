import Foundation

/// A provider whose browser session (single sign-on) can be ended from the app: Auth0
/// (`/v2/logout`) and OpenID providers with RP-Initiated Logout (`end_session_endpoint`).
///
/// Signing out of AuthHub removes the app's session; the provider's own browser session survives
/// it, so the next browser sign-in completes without asking for credentials. Opening the URL this
/// returns ends that too.
public protocol BrowserSignOutProvider: AuthProvider {
    /// The URL that ends the provider's browser session; open it in the user's browser.
    /// - Parameters:
    ///   - idToken: the signed-out session's ID token, for providers that want it as
    ///     `id_token_hint` (it ends up in a URL; providers that do not need it leave it out).
    ///   - returnTo: where the provider sends the browser afterwards (it must be registered there).
    ///   - federated: also end the upstream identity provider's session where the provider fronts
    ///     one (Auth0's `federated`, e.g. Google behind an Auth0 connection); an OpenID provider has
    ///     no such notion and ignores it.
    /// - Throws: ``AuthErrorCode/unsupported`` when the provider advertises no logout endpoint.
    func browserSignOutURL(idToken: Secret<String>?, returnTo: URL?, federated: Bool) async throws -> URL

    /// The URL that ends the provider's browser session, carrying `state` where the provider's
    /// logout endpoint takes one (OpenID RP-Initiated Logout does: the provider sends it back on
    /// the post-logout redirect, so whoever receives that redirect can tell it answers this
    /// logout). ``AuthHub/signOut(provider:account:browser:)`` calls this with a fresh random value.
    ///
    /// The default implementation is for endpoints without a `state` (Auth0's `/v2/logout`): it
    /// ignores `state` and returns ``browserSignOutURL(idToken:returnTo:federated:)``.
    func browserSignOutURL(idToken: Secret<String>?, returnTo: URL?, federated: Bool, state: String) async throws -> URL
}

extension BrowserSignOutProvider {
    /// Ignores `state` (the provider's logout endpoint takes none) and returns
    /// ``browserSignOutURL(idToken:returnTo:federated:)``.
    public func browserSignOutURL(idToken: Secret<String>?, returnTo: URL?, federated: Bool, state: String) async throws -> URL {
        try await browserSignOutURL(idToken: idToken, returnTo: returnTo, federated: federated)
    }
}

/// Asks ``AuthHub/signOut(provider:account:browser:)`` to end the provider's browser session too.
public struct BrowserSignOut: Sendable, Equatable {
    /// Where the provider sends the browser afterwards.
    public var returnTo: URL?
    /// Also end the upstream identity provider's session (Auth0 `federated`).
    public var federated: Bool

    public init(returnTo: URL? = nil, federated: Bool = false) {
        self.returnTo = returnTo
        self.federated = federated
    }
}

/// What ``AuthHub/signOut(provider:account:browser:)`` did.
public struct SignOutResult: Sendable {
    /// Whether a session was stored (and is now removed).
    public var hadSession: Bool
    /// Why the session was not revoked at the provider (it was removed locally all the same), or
    /// why it could not be read; nil when revoked or when there was nothing to revoke.
    public var revocationError: AuthError?
    /// The URL that ends the provider's browser session, to open in the browser.
    public var browserSignOutURL: URL?
    /// The fresh random `state` that ``browserSignOutURL`` carries, when the provider's logout
    /// endpoint takes one (OpenID RP-Initiated Logout); nil otherwise (Auth0's `/v2/logout`). The
    /// provider sends it back on the post-logout redirect; AuthHub does not receive that redirect
    /// (it goes to the app's `returnTo`), so the app that does should check that it matches,
    /// as it would a sign-in's `state`, and ignore a redirect that does not.
    public var browserSignOutState: String?

    /// Creates a result.
    public init(hadSession: Bool, revocationError: AuthError? = nil, browserSignOutURL: URL? = nil, browserSignOutState: String? = nil) {
        self.hadSession = hadSession
        self.revocationError = revocationError
        self.browserSignOutURL = browserSignOutURL
        self.browserSignOutState = browserSignOutState
    }
}
