import Foundation

/// Browser sign-in through the hub (``BrowserSignInProvider``).
extension AuthHub {
    /// Signs in through the user's browser (``BrowserSignInProvider``: Auth0 Web Auth, generic
    /// OpenID Connect) with an RFC 8252 loopback redirect, and stores the session.
    /// - Parameters:
    ///   - options: per-sign-in choices (audience, scope, organization, prompt, `max_age`, …).
    ///   - timeout: how long to wait for the browser's redirect.
    ///   - open: shows the sign-in URL (opens a browser, or prints it); it must return at once.
    /// - Throws: ``AuthErrorCode/unsupported`` for a provider without browser sign-in or an option
    ///   it cannot honour; every error of the flow.
    @discardableResult
    public func signInWithBrowser(provider id: String? = nil, account: String = SessionKey.defaultAccount,
                                  options: BrowserSignInOptions = BrowserSignInOptions(), timeout: Duration = .seconds(300),
                                  open: @Sendable (URL) async throws -> Void) async throws -> Session {
        let p = try provider(id)
        guard let browser = p as? any BrowserSignInProvider else {
            throw AuthError(.unsupported, message: "Browser sign-in is not available for provider '\(p.id)'.", provider: p.id)
        }
        return try await manager(provider: p.id, account: account).signIn(method: "browser", policy: signInPolicy) { _ in
            try await browser.signInWithBrowser(timeout: timeout, options: options, open: open)
        }
    }
}
