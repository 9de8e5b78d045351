import Foundation

/// Signing out through the hub (and ending the provider's browser session: ``BrowserSignOutProvider``).
extension AuthHub {
    /// Signs out: asks the provider to revoke the session (when it can), then removes it locally
    /// whatever the provider answered, and publishes `signedOut`.
    /// - Returns: the revocation error, if the provider could not revoke (the local session is gone all the same) —
    ///   also the read error when the stored session could not be read, and was removed unrevoked.
    @discardableResult
    public func signOut(provider id: String? = nil, account: String = SessionKey.defaultAccount) async throws -> AuthError? {
        try await signOut(provider: id, account: account, browser: nil).revocationError
    }

    /// Signs out (``signOut(provider:account:)``) and, with `browser`, also builds the URL that ends
    /// the provider's browser session (``BrowserSignOutProvider``) — from the session's ID token
    /// before it is removed, with a fresh random `state` where the provider's logout takes one.
    /// Open ``SignOutResult/browserSignOutURL`` in the user's browser; whoever receives the
    /// post-logout redirect checks its `state` against ``SignOutResult/browserSignOutState``.
    /// - Throws: ``AuthErrorCode/unsupported`` (before anything is removed) when `browser` is given
    ///   and the provider has no browser sign-out; storage errors.
    public func signOut(provider id: String? = nil, account: String = SessionKey.defaultAccount,
                        browser: BrowserSignOut?) async throws -> SignOutResult {
        let p = try provider(id)
        return try await context.telemetry.observed(AuthTelemetry.SpanName.signOut, counter: AuthTelemetry.MetricName.signOuts,
                                                    provider: p.id) { span in
            let result = try await signOutUnobserved(provider: p, account: account, browser: browser)
            // Signed out locally either way; a failed revocation is recorded as its code.
            if let error = result.revocationError { span.attributes["authhub.revocation"] = error.code.rawValue }
            return result
        }
    }

    private func signOutUnobserved(provider p: any AuthProvider, account: String, browser: BrowserSignOut?) async throws -> SignOutResult {
        let m = try manager(provider: p.id, account: account)
        var browserProvider: (any BrowserSignOutProvider)?
        if browser != nil {
            guard let capable = p as? any BrowserSignOutProvider else {
                throw AuthError(.unsupported, message: "Provider '\(p.id)' cannot end its browser session.", provider: p.id)
            }
            browserProvider = capable
        }
        var revocationError: AuthError?
        // A stored session that cannot be read (damaged, out of range, not a regular file) cannot be
        // revoked, but signing out must still work: it is removed, and the read error says why it
        // was not revoked.
        let stored: Session?
        do {
            stored = try await m.current()
        } catch let error as AuthError where error.code == .storageFailure {
            context.logger.notice("the stored session cannot be read; removing it without revocation",
                                   metadata: ["provider": "\(p.id)"])
            stored = nil
            revocationError = error
        }
        var url: URL?
        var logoutState: String?
        if let browser, let browserProvider {
            // A fresh random state for each logout (RP-Initiated Logout's `state`); reported only
            // when the provider's URL carries it.
            let state = PKCE.randomToken(context.random)
            let built = try await mapped(p) {
                try await browserProvider.browserSignOutURL(idToken: stored?.idToken, returnTo: browser.returnTo, federated: browser.federated,
                                                            state: state)
            }
            url = built
            let items = URLComponents(url: built, resolvingAgainstBaseURL: false)?.queryItems ?? []
            if items.contains(where: { $0.name == "state" && $0.value == state }) { logoutState = state }
        }
        if let session = stored {
            do {
                try await p.signOut(session)
            } catch {
                let wrapped = AuthError.wrap(error, provider: p.id)
                revocationError = wrapped
                context.logger.notice("revocation failed; signed out locally",
                                       metadata: ["provider": "\(p.id)", "error": "\(wrapped.code)"])
            }
        }
        try await m.clear()
        return SignOutResult(hadSession: stored != nil || revocationError?.code == .storageFailure,
                             revocationError: revocationError, browserSignOutURL: url, browserSignOutState: logoutState)
    }
}
