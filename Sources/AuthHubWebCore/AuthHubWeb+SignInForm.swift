import AuthHub
import AuthHubOIDC
import Foundation
import HTTPTypes

/// Browser sign-in for providers without a redirect (Firebase and Openfort email and password): the
/// login route shows a sign-in form of AuthHub's own (``WebPages``, template `sign-in`) instead of
/// sending the browser away, and `POST <prefix>/login` checks the password with the provider.
///
/// The form is bound to the browser by the pre-session cookie (an opaque id naming a server-side
/// entry with the form's CSRF token, the return path and, for a step-up, the user who must sign
/// in), taken once; it must come from this site's origin. A wrong password shows the form again
/// (401) under a new pre-session; a provider asking for its own second factor (`mfaRequired`) sends
/// the browser to the second-step page; AuthHub-held factors ask for theirs as after a redirect.
/// The time of the password check is kept with the session, so a step-up works for providers whose
/// tokens carry no `auth_time`.
extension AuthHubWeb {
    /// How a provider signs in from a browser through the web core.
    enum BrowserSignInRoute {
        /// A redirect to the provider (OpenID Connect, Auth0).
        case redirect(any RedirectSignInProvider)
        /// The web core's own form (email and password).
        case form(any AuthProvider)
        /// The web core's own passkey page (the provider's two-step passkey sign-in: Turnkey).
        case passkey(any PasskeyChallengeSignInProvider)

        var id: String {
            switch self {
            case .redirect(let provider): provider.id
            case .form(let provider): provider.id
            case .passkey(let provider): provider.id
            }
        }
    }

    /// How provider `id` (the default provider for nil) signs in from a browser, or nil when it
    /// cannot (no redirect and no password sign-in, or an id that cannot stand in a cookie).
    func browserSignIn(_ id: String?) -> BrowserSignInRoute? {
        guard let provider = try? hub.provider(id), WebSessionID.isUsable(providerID: provider.id) else { return nil }
        if let redirect = provider as? any RedirectSignInProvider { return .redirect(redirect) }
        if provider.capabilities.contains(.passwordSignIn) { return .form(provider) }
        if let passkey = provider as? any PasskeyChallengeSignInProvider { return .passkey(passkey) }
        return nil
    }

    /// The providers a browser can sign in with here (`<prefix>/login?provider=ID`): through a
    /// redirect, or through the sign-in form.
    public var signInProviderIDs: [String] { hub.providerIDs.filter { browserSignIn($0) != nil } }

    /// The cookie naming a pre-session (a redirect's, the form's or the passkey page's), for its lifetime.
    func preSessionCookie(_ id: String) -> WebCookie {
        cookie(configuration.preSessionCookieName, id, maxAge: Int(configuration.preSessionLifetime.seconds.rounded(.down)))
    }

    /// The sign-in form under a fresh pre-session (cookie and server-side entry).
    func signInForm(provider: String, returnPath: String, stepUpUser: String?, email: String?, error: String?,
                    status: HTTPResponse.Status) async -> WebResponse {
        let preID = Base64URL.encode(hub.context.random.bytes(32))
        let csrf = Base64URL.encode(hub.context.random.bytes(32))
        await pending.put(PendingWebSignIns.Entry(provider: provider, transaction: nil, returnPath: returnPath, createdAt: now,
                                                  stepUpUser: stepUpUser, csrf: csrf),
                          id: preID, lifetime: configuration.preSessionLifetime)
        var context: [String: Any] = ["action": configuration.routePrefix + "/login", "csrf": csrf, "provider": provider,
                                      "back": stepUpUser == nil ? configuration.signedOutPath : returnPath]
        if stepUpUser != nil { context["stepUp"] = true }
        if let email, !email.isEmpty { context["email"] = email }
        if let error { context["error"] = error }
        var response = pages.render("sign-in", title: pages.strings[stepUpUser == nil ? "signInTitle" : "stepUpTitle"] ?? "Sign in",
                                    context: context, status: status, random: hub.context.random)
        response.setCookie(preSessionCookie(preID))
        return response
    }

    /// The passkey page: the provider's challenge kept under a fresh pre-session, its options in the
    /// page for the pages' own WebAuthn script. A step-up names the user's email, so the provider
    /// asks for that account's passkey.
    func passkeySignInPage(provider: any PasskeyChallengeSignInProvider, returnPath: String, stepUpUser: String?, email: String?,
                           error: String?, status: HTTPResponse.Status) async throws -> WebResponse {
        let challenge = try await provider.beginPasskeySignIn(identifier: stepUpUser == nil ? nil : email)
        let preID = Base64URL.encode(hub.context.random.bytes(32))
        let csrf = Base64URL.encode(hub.context.random.bytes(32))
        await pending.put(PendingWebSignIns.Entry(provider: provider.id, transaction: nil, returnPath: returnPath, createdAt: now,
                                                  stepUpUser: stepUpUser, csrf: csrf, passkey: challenge),
                          id: preID, lifetime: configuration.preSessionLifetime)
        var context: [String: Any] = ["action": configuration.routePrefix + "/login", "csrf": csrf, "provider": provider.id,
                                      "options": String(decoding: try challenge.options.json.serialized(), as: UTF8.self),
                                      "back": stepUpUser == nil ? configuration.signedOutPath : returnPath]
        if stepUpUser != nil { context["stepUp"] = true }
        if let error { context["error"] = error }
        var response = pages.render("sign-in-passkey", title: pages.strings[stepUpUser == nil ? "signInTitle" : "stepUpTitle"] ?? "Sign in",
                                    context: context, status: status, random: hub.context.random)
        response.setCookie(preSessionCookie(preID))
        return response
    }

    /// `POST <prefix>/login` (form fields `csrf`, `email`, `password`): the sign-in form's answer.
    /// From this site's origin with the form's CSRF token, within the pre-session's lifetime, once
    /// (else 403 or 400). The right password stores the session and redirects (303) to the return
    /// path — or to the second-step page; a wrong one shows the form again (401); an unreachable
    /// provider answers 503.
    public func submitLogin(_ request: WebRequest) async -> WebResponse {
        guard isSameOrigin(request.head) else { return secured(.page(.forbidden, "This form must come from this site.")) }
        var expired = WebResponse.page(.badRequest, "This sign-in expired or was already used. Please sign in again.")
        expired.setCookie(clearing(configuration.preSessionCookieName))
        guard let preID = request.cookie(configuration.preSessionCookieName), preID.utf8.count <= 128,
              let entry = await pending.take(preID), let csrf = entry.csrf, entry.transaction == nil,
              now.timeIntervalSince(entry.createdAt) <= configuration.preSessionLifetime.seconds,
              let route = browserSignIn(entry.provider) else { return secured(expired) }
        let fields: [String: String]
        do {
            fields = try await request.formFields(limit: Self.formLimit)
        } catch {
            return secured(.page(.forbidden, "This form expired. Please try again."))
        }
        guard let sent = fields["csrf"], constantTimeEquals(sent, csrf) else {
            return secured(.page(.forbidden, "This form expired. Please try again."))
        }
        let provider: any AuthProvider
        switch route {
        case .redirect: return secured(expired)
        case .passkey(let passkey):
            guard let challenge = entry.passkey else { return secured(expired) }
            return secured(await submitPasskey(request, provider: passkey, challenge: challenge, entry: entry, credential: fields["credential"]))
        case .form(let form):
            guard entry.passkey == nil else { return secured(expired) }
            provider = form
        }
        let email = (fields["email"] ?? "").trimmingCharacters(in: .whitespaces)
        let password = fields["password"] ?? ""
        let stepUp = entry.stepUpUser
        func again(_ key: String, _ status: HTTPResponse.Status) async -> WebResponse {
            // A new pre-session for the next try, the same return path and step-up user.
            await signInForm(provider: entry.provider, returnPath: entry.returnPath, stepUpUser: stepUp, email: email,
                             error: pages.strings[key], status: status)
        }
        guard (3...320).contains(email.utf8.count), email.contains("@"), (1...1024).contains(password.utf8.count) else {
            return secured(await again("signInMissing", .badRequest))
        }
        var session: Session
        do {
            session = try await provider.signIn(.password(identifier: email, password: Secret(password)))
        } catch let error as AuthError {
            switch error.code {
            case .invalidCredentials, .userNotFound, .invalidEmail:
                hub.context.logger.notice("web sign-in form: wrong email or password", metadata: ["provider": "\(entry.provider)"])
                return secured(await again("signInWrong", .unauthorized))
            case .mfaRequired:
                guard let requirement = error.mfa else { return errorResponse(for: error) }
                let id = WebSessionID.make(provider: entry.provider, now: now, random: hub.context.random)
                return secured(beginSecondStep(error, id: id, request: request, returnPath: entry.returnPath,
                                               providerRequirement: requirement, stepUpUser: stepUp))
            case .rateLimited:
                return secured(await again("signInTooMany", .tooManyRequests))
            default:
                hub.context.logger.notice("web sign-in form refused", metadata: ["provider": "\(entry.provider)", "error": "\(error.code)"])
                return errorResponse(for: error)
            }
        } catch {
            return errorResponse(for: error)
        }
        session.extras[Self.authenticatedAtExtra] = .number(now.timeIntervalSince1970)
        do {
            return secured(try await establish(session, provider: entry.provider, returnPath: entry.returnPath, stepUpUser: stepUp,
                                               request: request, clearing: configuration.preSessionCookieName, redirect: .seeOther))
        } catch {
            return errorResponse(for: error)
        }
    }

    /// The passkey page's answer: the browser's assertion finishes the provider's sign-in; one that
    /// does not parse or that the provider refuses shows a new page (400 or 401).
    private func submitPasskey(_ request: WebRequest, provider: any PasskeyChallengeSignInProvider, challenge: PasskeySignInChallenge,
                               entry: PendingWebSignIns.Entry, credential: String?) async -> WebResponse {
        func again(_ status: HTTPResponse.Status) async -> WebResponse {
            do {
                return try await passkeySignInPage(provider: provider, returnPath: entry.returnPath, stepUpUser: entry.stepUpUser,
                                                   email: nil, error: pages.strings["passkeyFailed"], status: status)
            } catch {
                return errorResponse(for: error)
            }
        }
        guard let credential, let json = try? JSONValue.parse(Data(credential.utf8)), let assertion = try? PasskeyAssertion(json: json) else {
            return await again(.badRequest)
        }
        var session: Session
        do {
            session = try await provider.finishPasskeySignIn(challenge, assertion: assertion)
        } catch let error as AuthError where !error.code.isTransientByDefault {
            hub.context.logger.notice("web passkey sign-in refused", metadata: ["provider": "\(entry.provider)", "error": "\(error.code)"])
            return await again(.unauthorized)
        } catch {
            return errorResponse(for: error)
        }
        session.extras[Self.authenticatedAtExtra] = .number(now.timeIntervalSince1970)
        do {
            return try await establish(session, provider: entry.provider, returnPath: entry.returnPath, stepUpUser: entry.stepUpUser,
                                       request: request, clearing: configuration.preSessionCookieName, redirect: .seeOther)
        } catch {
            return errorResponse(for: error)
        }
    }
}
