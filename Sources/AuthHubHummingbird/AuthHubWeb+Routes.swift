import AuthHub
import AuthHubOIDC
import Foundation
import Hummingbird
import HummingbirdAuth

extension AuthHubWeb {
    /// The sign-in, callback and sign-out routes, to add with
    /// `router.addRoutes(web.routes(context: AppContext.self), atPath: web.configuration.routePrefix)`.
    public func routes<Context: AuthRequestContext>(context: Context.Type = Context.self) -> RouteCollection<Context>
    where Context.Identity == AuthHubIdentity {
        let routes = RouteCollection(context: Context.self)
        routes.get("login") { request, _ in self.secured(try await self.login(request)) }
        routes.get("callback") { request, _ in self.secured(try await self.callback(request)) }
        routes.post("logout") { request, context in self.secured(try await self.logout(request, context: context)) }
        return routes
    }

    /// `response` with the configuration's ``SecurityHeaders``.
    func secured(_ response: Response) -> Response {
        var response = response
        configuration.securityHeaders.apply(to: &response.headers)
        return response
    }

    /// A plain-text error page (the routes answer browsers; no detail that could help an attacker).
    static func page(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: text + "\n")))
    }

    static func redirect(_ location: String, status: HTTPResponse.Status = .found) -> Response {
        Response(status: status, headers: [.location: location, .cacheControl: "no-store"])
    }

    func login(_ request: Request) async throws -> Response {
        let query = request.uri.queryParameters
        guard let provider = redirectProvider(query["provider"].map(String.init)) else {
            return Self.page(.notFound, "No provider of that name signs in through the browser.")
        }
        var returnPath = configuration.defaultReturnPath
        if let asked = query["returnTo"].map(String.init) {
            guard let path = ReturnPath.validated(asked) else {
                return Self.page(.badRequest, "The return address must be a page of this site.")
            }
            returnPath = path
        }
        let transaction = try await provider.beginRedirectSignIn(redirectURI: configuration.callbackURL, options: BrowserSignInOptions())
        let preID = Base64URL.encode(hub.context.random.bytes(32))
        await pending.put(PendingWebSignIns.Entry(provider: provider.id, transaction: transaction, returnPath: returnPath, createdAt: now),
                          id: preID, lifetime: configuration.preSessionLifetime)
        var response = Self.redirect(transaction.url.absoluteString)
        response.setCookie(cookie(configuration.preSessionCookieName, preID,
                                  maxAge: Int(configuration.preSessionLifetime.seconds.rounded(.down))))
        return response
    }

    func callback(_ request: Request) async throws -> Response {
        var refused = Self.page(.badRequest, "This sign-in expired or was already used. Please sign in again.")
        refused.setCookie(clearing(configuration.preSessionCookieName))
        guard let preID = request.cookies[configuration.preSessionCookieName]?.value, preID.utf8.count <= 128,
              let entry = await pending.take(preID) else { return refused }
        guard now.timeIntervalSince(entry.createdAt) <= configuration.preSessionLifetime.seconds,
              let provider = redirectProvider(entry.provider) else { return refused }
        var callbackURL = configuration.callbackURL
        if let query = request.uri.query { callbackURL += "?" + query }
        guard let url = URL(string: callbackURL) else { return refused }
        let session: Session
        do {
            session = try await provider.finishRedirectSignIn(callbackURL: url, transaction: entry.transaction)
        } catch let error as AuthError {
            hub.context.logger.notice("web sign-in refused", metadata: ["provider": "\(entry.provider)", "error": "\(error.code)"])
            switch error.code {
            case .accessDenied, .userCancelled: refused = Self.page(.forbidden, "The sign-in was declined.")
            case .network, .timeout, .providerUnavailable, .rateLimited:
                refused = Self.page(.serviceUnavailable, "The sign-in service did not answer. Please try again.")
            default: refused = Self.page(.badRequest, "The sign-in could not be completed. Please sign in again.")
            }
            refused.setCookie(clearing(configuration.preSessionCookieName))
            return refused
        }
        let id = try await startSession(session, provider: entry.provider)
        // Signing in while signed in replaces the browser's session (the hub's one rule): the old one
        // is removed from the store at once and revoked at its provider in the background
        // (`SessionManager.retire`), so the redirect does not wait for the provider.
        if let old = request.cookies[configuration.sessionCookieName].flatMap({ WebSessionID(cookie: $0.value) }), old != id,
           hub.providerIDs.contains(old.provider) {
            try? await hub.manager(provider: old.provider, account: old.account).retire(timeout: hub.signInPolicy.revocationTimeout)
            forget(old)
        }
        var response = Self.redirect(entry.returnPath)
        response.setCookie(clearing(configuration.preSessionCookieName))
        response.setCookie(sessionCookie(id))
        return response
    }

    func logout<Context: AuthRequestContext>(_ request: Request, context: Context) async throws -> Response
    where Context.Identity == AuthHubIdentity {
        guard isSameOrigin(request) else { return Self.page(.forbidden, "Sign-out must come from this site.") }
        guard let value = request.cookies[configuration.sessionCookieName]?.value, let id = WebSessionID(cookie: value) else {
            var response = Self.redirect(configuration.signedOutPath, status: .seeOther)
            response.setCookie(clearing(configuration.sessionCookieName))
            return response
        }
        let fields = try await Self.formFields(request)
        let token = request.headers[HTTPField.Name.constant("X-CSRF-Token")] ?? fields["csrf"]
        guard isValidCSRFToken(token, for: id) else { return Self.page(.forbidden, "The sign-out form expired. Please try again.") }
        let federated = fields["federated"] == "1" || request.uri.queryParameters["federated"] == "1"
        // `browser=1`: end the provider's browser session only (Auth0's default, non-federated
        // /v2/logout; OpenID RP-Initiated Logout); `federated=1` also the upstream provider's.
        let endsBrowserSession = federated || fields["browser"] == "1" || request.uri.queryParameters["browser"] == "1"
        var location = configuration.signedOutPath
        if endsBrowserSession, let returnTo = URL(string: configuration.origin + configuration.signedOutPath) {
            let result = try await hub.signOut(provider: id.provider, account: id.account,
                                               browser: BrowserSignOut(returnTo: returnTo, federated: federated))
            location = result.browserSignOutURL?.absoluteString ?? location
        } else {
            _ = try await hub.signOut(provider: id.provider, account: id.account)
        }
        forget(id)
        var response = Self.redirect(location, status: .seeOther)
        response.setCookie(clearing(configuration.sessionCookieName))
        return response
    }
}
