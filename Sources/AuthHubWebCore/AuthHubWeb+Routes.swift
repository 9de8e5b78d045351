import AuthHub
import AuthHubOIDC
import Foundation
import HTTPTypes

extension AuthHubWeb {
    /// `GET <prefix>/login?provider=ID&returnTo=/path`: starts a redirect sign-in (PKCE, `state`,
    /// `nonce`, kept on the server) and sends the browser to the provider with a pre-session cookie
    /// binding the sign-in to it. An unknown provider answers 404, a `returnTo` that is not a local
    /// path 400 (no open redirect).
    public func login(_ request: WebRequest) async -> WebResponse {
        do {
            return secured(try await startSignIn(request))
        } catch {
            return errorResponse(for: error)
        }
    }

    /// `GET <prefix>/callback`: finishes the sign-in the pre-session cookie names (once; refused
    /// after ``WebSignInConfiguration/preSessionLifetime``), stores the session under a fresh id, sets
    /// the session cookie and redirects to the return path. A declined sign-in answers 403, an
    /// unreachable provider 503, anything else 400; none of them sets a session cookie.
    public func callback(_ request: WebRequest) async -> WebResponse {
        do {
            return secured(try await finishSignIn(request))
        } catch {
            return errorResponse(for: error)
        }
    }

    /// `POST <prefix>/logout`: from this site's origin with the session's CSRF token only (else 403,
    /// the session kept); revokes and removes the session, clears the cookie and redirects (303) to
    /// ``WebSignInConfiguration/signedOutPath`` — or, with `browser=1` / `federated=1`, to the
    /// provider's own sign-out.
    public func logout(_ request: WebRequest) async -> WebResponse {
        do {
            return secured(try await signOut(request))
        } catch {
            return errorResponse(for: error)
        }
    }

    /// `response` with the configuration's ``SecurityHeaders``.
    func secured(_ response: WebResponse) -> WebResponse {
        var response = response
        configuration.securityHeaders.apply(to: &response.headerFields)
        return response
    }

    private func startSignIn(_ request: WebRequest) async throws -> WebResponse {
        let query = request.queryParameters
        guard let route = browserSignIn(query["provider"]) else {
            return .page(.notFound, "No provider of that name signs in through the browser.")
        }
        var returnPath = configuration.defaultReturnPath
        if let asked = query["returnTo"] {
            guard let path = ReturnPath.validated(asked) else { return .page(.badRequest, "The return address must be a page of this site.") }
            returnPath = path
        }
        // `maxAge=N` (a step-up): the provider must have had the user's credentials within N
        // seconds (`max_age`, and `prompt=login` for 0), and the ID token's `auth_time` is checked;
        // from a signed-in browser, only the same user may complete it. The sign-in form asks for
        // the password whatever N is.
        var options = BrowserSignInOptions()
        var stepUp: AuthHubIdentity?
        if let asked = query["maxAge"] {
            guard let maxAge = Int(asked), String(maxAge) == asked, (0...BrowserSignInOptions.maximumMaxAge).contains(maxAge) else {
                return .page(.badRequest, "maxAge is a number of seconds.")
            }
            options.maxAge = maxAge
            if maxAge == 0 { options.prompt = "login" }
            if let value = request.cookie(sessionCookieName), case .signedIn(let identity, _) = await resolveSession(cookie: value),
               identity.provider == route.id {
                stepUp = identity
            }
        }
        let preID = Base64URL.encode(hub.context.random.bytes(32))
        switch route {
        case .redirect(let provider):
            let transaction = try await provider.beginRedirectSignIn(redirectURI: configuration.callbackURL, options: options)
            await pending.put(PendingWebSignIns.Entry(provider: provider.id, transaction: transaction, returnPath: returnPath, createdAt: now,
                                                      stepUpUser: stepUp?.subject),
                              id: preID, lifetime: configuration.preSessionLifetime)
            var response = WebResponse.redirect(transaction.url.absoluteString)
            response.setCookie(preSessionCookie(preID))
            return response
        case .passkey(let provider):
            return try await passkeySignInPage(provider: provider, returnPath: returnPath, stepUpUser: stepUp?.subject, email: stepUp?.email,
                                               error: nil, status: .ok)
        case .form(let provider):
            return await signInForm(provider: provider.id, returnPath: returnPath, stepUpUser: stepUp?.subject, email: stepUp?.email,
                                    error: nil, status: .ok)
        }
    }

    private func finishSignIn(_ request: WebRequest) async throws -> WebResponse {
        var refused = WebResponse.page(.badRequest, "This sign-in expired or was already used. Please sign in again.")
        refused.setCookie(clearing(configuration.preSessionCookieName))
        guard let preID = request.cookie(configuration.preSessionCookieName), preID.utf8.count <= 128,
              let entry = await pending.take(preID) else { return refused }
        guard now.timeIntervalSince(entry.createdAt) <= configuration.preSessionLifetime.seconds,
              let transaction = entry.transaction, let provider = redirectProvider(entry.provider) else { return refused }
        var callbackURL = configuration.callbackURL
        if let query = request.query { callbackURL += "?" + query }
        guard let url = URL(string: callbackURL) else { return refused }
        let session: Session
        do {
            session = try await provider.finishRedirectSignIn(callbackURL: url, transaction: transaction)
        } catch let error as AuthError {
            hub.context.logger.notice("web sign-in refused", metadata: ["provider": "\(entry.provider)", "error": "\(error.code)"])
            switch error.code {
            case .accessDenied, .userCancelled: refused = .page(.forbidden, "The sign-in was declined.")
            case let code where code.isTransientByDefault: refused = .page(.serviceUnavailable, "The sign-in service did not answer. Please try again.")
            default: refused = .page(.badRequest, "The sign-in could not be completed. Please sign in again.")
            }
            refused.setCookie(clearing(configuration.preSessionCookieName))
            return refused
        }
        return try await establish(session, provider: entry.provider, returnPath: entry.returnPath, stepUpUser: entry.stepUpUser,
                                   request: request, clearing: configuration.preSessionCookieName, redirect: .found)
    }

    /// The end of every browser sign-in (the callback, the sign-in form, the provider's second
    /// step): a step-up by anyone but its user is refused (the new session revoked, the browser's
    /// kept); otherwise the session is stored under a fresh id — or waits for AuthHub's own second
    /// factor — the browser's previous session is retired, `clearing` (the cookie of the step that
    /// ends here) is cleared, the session cookie set, and the browser sent to `returnPath`.
    func establish(_ session: Session, provider providerID: String, returnPath: String, stepUpUser: String?, request: WebRequest,
                   clearing ended: String, redirect status: HTTPResponse.Status) async throws -> WebResponse {
        if let user = stepUpUser, session.userID != user {
            // A re-authentication as someone else: refused, the browser keeps its session; the new
            // session is not stored, and its tokens are revoked.
            hub.context.logger.notice("web re-authentication by another user refused", metadata: ["provider": "\(providerID)"])
            try? await hub.provider(providerID).signOut(session)
            var refused = WebResponse.page(.forbidden, "You signed in as someone else. Sign in again as yourself to continue.")
            refused.setCookie(clearing(ended))
            return refused
        }
        let id = WebSessionID.make(provider: providerID, now: now, random: hub.context.random)
        do {
            _ = try await startSession(session, id: id, userAgent: request.headerFields[.userAgent], peerAddress: request.peerAddress)
        } catch let error as AuthError where AuthHub.isHeldSecondStep(error) {
            // The provider accepted the user; AuthHub's own factor comes next, on its page.
            return beginSecondStep(error, id: id, request: request, returnPath: returnPath)
        }
        // Signing in while signed in replaces the browser's session (the hub's one rule): the old one
        // is removed from the store at once and revoked at its provider in the background
        // (`SessionManager.retire`), so the redirect does not wait for the provider.
        if let old = request.cookie(configuration.sessionCookieName).flatMap(WebSessionID.init(cookie:)), old != id,
           hub.providerIDs.contains(old.provider) {
            try? await hub.manager(provider: old.provider, account: old.account).retire(timeout: hub.signInPolicy.revocationTimeout)
            forget(old)
        }
        var response = WebResponse.redirect(returnPath, status: status)
        response.setCookie(clearing(ended))
        response.setCookie(sessionCookie(id))
        return response
    }

    private func signOut(_ request: WebRequest) async throws -> WebResponse {
        guard isSameOrigin(request.head) else { return .page(.forbidden, "Sign-out must come from this site.") }
        guard let value = request.cookie(configuration.sessionCookieName), let id = WebSessionID(cookie: value) else {
            var response = WebResponse.redirect(configuration.signedOutPath, status: .seeOther)
            response.setCookie(clearing(configuration.sessionCookieName))
            return response
        }
        let fields: [String: String]
        do {
            fields = try await request.formFields()
        } catch {
            return .page(.forbidden, "The sign-out form expired. Please try again.")
        }
        let query = request.queryParameters
        let token = request.headerFields[WebRequest.csrfHeader] ?? fields["csrf"]
        guard isValidCSRFToken(token, for: id) else { return .page(.forbidden, "The sign-out form expired. Please try again.") }
        let federated = fields["federated"] == "1" || query["federated"] == "1"
        // `browser=1`: end the provider's browser session only (Auth0's default, non-federated
        // /v2/logout; OpenID RP-Initiated Logout); `federated=1` also the upstream provider's.
        let endsBrowserSession = federated || fields["browser"] == "1" || query["browser"] == "1"
        var location = configuration.signedOutPath
        if endsBrowserSession, let returnTo = URL(string: configuration.origin + configuration.signedOutPath) {
            let result = try await hub.signOut(provider: id.provider, account: id.account,
                                               browser: BrowserSignOut(returnTo: returnTo, federated: federated))
            location = result.browserSignOutURL?.absoluteString ?? location
        } else {
            _ = try await hub.signOut(provider: id.provider, account: id.account)
        }
        forget(id)
        var response = WebResponse.redirect(location, status: .seeOther)
        response.setCookie(clearing(configuration.sessionCookieName))
        return response
    }
}
