import AuthHub
import Crypto
import Foundation
import HTTPTypes

/// The second step of a browser sign-in — AuthHub-held factors (`AuthHub.useHeldFactors`), or the
/// provider's own second factors after the sign-in form (Firebase's TOTP: `mfaRequired`): the
/// browser gets a short-lived second-step cookie instead of a session and is sent to
/// `<prefix>/second-factor`, a page of AuthHub's own (``WebPages``) that asks for a code from the
/// user's authenticator app, a recovery code or a passkey; the right answer stores the browser's
/// session and sets its cookie, as the callback would have.
extension AuthHubWeb {
    /// `GET <prefix>/second-factor`: the page (200), or — with no waiting sign-in for this browser —
    /// a page saying to sign in again (400).
    public func secondFactor(_ request: WebRequest) async -> WebResponse {
        guard let (_, entry) = waitingSecondStep(request), let step = secondStepKinds(entry) else {
            return secured(expiredSecondStep())
        }
        return secured(secondFactorPage(entry, step: step, error: nil, status: .ok))
    }

    /// `POST <prefix>/second-factor` (form fields `csrf`, `kind` = `totp` or `recoveryCode`, `code`):
    /// from this site's origin with the page's CSRF token (else 403). The right code stores the
    /// session, sets its cookie, retires the session it replaces and redirects (303) to the return
    /// path; a wrong one shows the page again (401); after five wrong ones, or five minutes, the
    /// user signs in again (400).
    public func submitSecondFactor(_ request: WebRequest) async -> WebResponse {
        guard isSameOrigin(request.head) else { return secured(.page(.forbidden, "This form must come from this site.")) }
        guard let (cookieID, entry) = waitingSecondStep(request) else { return secured(expiredSecondStep()) }
        let fields: [String: String]
        do {
            fields = try await request.formFields(limit: Self.formLimit)
        } catch {
            return secured(.page(.forbidden, "This form expired. Please try again."))
        }
        guard let csrf = fields["csrf"], constantTimeEquals(csrf, entry.csrf) else {
            return secured(.page(.forbidden, "This form expired. Please try again."))
        }
        let code = Secret(String((fields["code"] ?? "").prefix(64)))
        if let requirement = entry.requirement {
            return secured(await submitProviderSecondStep(request, cookieID: cookieID, entry: entry, requirement: requirement,
                                                          kind: fields["kind"], code: code))
        }
        let response: HeldSecondStepResponse
        switch fields["kind"] {
        case "totp": response = .totp(code)
        case "recoveryCode": response = .recoveryCode(code)
        case "passkey":
            guard let text = fields["credential"], let json = try? JSONValue.parse(Data(text.utf8)),
                  let assertion = try? PasskeyAssertion(json: json) else {
                guard let step = secondStepKinds(entry) else { return secured(expiredSecondStep()) }
                return secured(secondFactorPage(entry, step: step, error: pages.strings["passkeyFailed"], status: .badRequest))
            }
            response = .passkey(assertion)
        default: return secured(.page(.badRequest, "Choose a code from your app or a recovery code."))
        }
        do {
            _ = try await hub.completeHeldSecondStep(token: entry.token, response: response)
        } catch let error as AuthError where error.code == .invalidMFACode {
            guard let step = secondStepKinds(entry) else { return secured(expiredSecondStep()) }
            return secured(secondFactorPage(entry, step: step, error: pages.strings["wrongCode"], status: .unauthorized))
        } catch let error as AuthError where error.code == .sessionExpired {
            secondSteps.remove(cookieID)
            return secured(expiredSecondStep())
        } catch {
            return secured(errorResponse(for: error))
        }
        secondSteps.remove(cookieID)
        sessionStarted(entry.id)
        if let old = entry.replacing.flatMap(WebSessionID.init(cookie:)), old != entry.id, hub.providerIDs.contains(old.provider) {
            try? await hub.manager(provider: old.provider, account: old.account).retire(timeout: hub.signInPolicy.revocationTimeout)
            forget(old)
        }
        var done = WebResponse.redirect(entry.returnPath, status: .seeOther)
        done.setCookie(clearing(configuration.secondStepCookieName))
        done.setCookie(sessionCookie(entry.id))
        return secured(done)
    }

    /// The provider's own second step (after the sign-in form): the answer goes to the provider
    /// (`SignInRequest.mfa`); a wrong one shows the page again (401) until the fifth, after which
    /// the user signs in again; the right one ends as every sign-in does (``establish``).
    private func submitProviderSecondStep(_ request: WebRequest, cookieID: String, entry: PendingSecondSteps.Entry,
                                          requirement: MFARequirement, kind: String?, code: Secret<String>) async -> WebResponse {
        let answer: MFAResponse
        switch kind {
        case "totp": answer = .otp(code)
        case "recoveryCode": answer = .recoveryCode(code)
        default: return .page(.badRequest, "Choose a code from your app or a recovery code.")
        }
        var session: Session
        do {
            session = try await hub.provider(entry.id.provider).signIn(.mfa(requirement: requirement, response: answer))
        } catch let error as AuthError where error.code == .invalidMFACode || error.code == .invalidCredentials {
            guard secondSteps.recordFailure(cookieID), let current = secondSteps.get(cookieID, now: now), let step = secondStepKinds(current) else {
                return expiredSecondStep()
            }
            return secondFactorPage(current, step: step, error: pages.strings["wrongCode"], status: .unauthorized)
        } catch let error as AuthError where [.sessionExpired, .invalidToken, .invalidRequest].contains(error.code) {
            secondSteps.remove(cookieID)
            return expiredSecondStep()
        } catch {
            return errorResponse(for: error)
        }
        secondSteps.remove(cookieID)
        session.extras[Self.authenticatedAtExtra] = .number(now.timeIntervalSince1970)
        do {
            return try await establish(session, provider: entry.id.provider, returnPath: entry.returnPath, stepUpUser: entry.stepUpUser,
                                       request: request, clearing: configuration.secondStepCookieName, redirect: .seeOther)
        } catch {
            return errorResponse(for: error)
        }
    }

    /// The answer when a sign-in needs its second step — the hub's held one (`requirement` nil:
    /// the error's token names the waiting sign-in) or the provider's own (`requirement`): the
    /// waiting sign-in is kept (under a new opaque cookie) and the browser goes to the second-step page.
    func beginSecondStep(_ error: AuthError, id: WebSessionID, request: WebRequest, returnPath: String,
                         providerRequirement requirement: MFARequirement? = nil, stepUpUser: String? = nil) -> WebResponse {
        guard let token = error.mfa?.token else { return errorResponse(for: error) }
        let cookieID = Base64URL.encode(hub.context.random.bytes(32))
        secondSteps.put(PendingSecondSteps.Entry(token: token, id: id, returnPath: returnPath, csrf: Base64URL.encode(hub.context.random.bytes(32)),
                                                 createdAt: now, replacing: request.cookie(configuration.sessionCookieName),
                                                 requirement: requirement, stepUpUser: stepUpUser),
                        id: cookieID)
        var response = WebResponse.redirect(configuration.secondFactorPath, status: .seeOther)
        response.setCookie(clearing(configuration.preSessionCookieName))
        response.setCookie(cookie(configuration.secondStepCookieName, cookieID, maxAge: Int(PendingSecondSteps.lifetime)))
        return response
    }

    private func waitingSecondStep(_ request: WebRequest) -> (String, PendingSecondSteps.Entry)? {
        guard let cookieID = request.cookie(configuration.secondStepCookieName), cookieID.utf8.count <= 128,
              let entry = secondSteps.get(cookieID, now: now) else { return nil }
        return (cookieID, entry)
    }

    /// What the waiting sign-in can be finished with: the hub's held step (its kinds and passkey
    /// options), or the provider's (a code from an app where it lists TOTP, a recovery code where it
    /// offers them); nil when the held one is over.
    private func secondStepKinds(_ entry: PendingSecondSteps.Entry) -> (kinds: Set<FactorKind>, passkey: PasskeyAssertionOptions?)? {
        guard let requirement = entry.requirement else {
            return hub.heldSecondStep(token: entry.token).map { (Set($0.kinds), $0.passkey) }
        }
        let offered = Set(requirement.challengeTypes + requirement.enrolledFactors.map(\.kind))
        var kinds: Set<FactorKind> = []
        if !offered.isDisjoint(with: ["totp", "otp"]) || offered.isEmpty { kinds.insert(.totp) }
        if offered.contains("recovery-code") { kinds.insert(.recoveryCode) }
        return (kinds, nil)
    }

    private func secondFactorPage(_ entry: PendingSecondSteps.Entry, step: (kinds: Set<FactorKind>, passkey: PasskeyAssertionOptions?),
                                  error: String?, status: HTTPResponse.Status) -> WebResponse {
        var restart = URLComponents()
        restart.path = configuration.routePrefix + "/login"
        restart.queryItems = [URLQueryItem(name: "provider", value: entry.id.provider), URLQueryItem(name: "returnTo", value: entry.returnPath)]
        var context: [String: Any] = [
            "action": configuration.secondFactorPath, "csrf": entry.csrf, "restart": restart.string ?? configuration.routePrefix + "/login",
            "hasTOTP": step.kinds.contains(.totp), "hasRecoveryCode": step.kinds.contains(.recoveryCode),
        ]
        if step.kinds.contains(.passkey), let options = step.passkey, let json = try? options.json.serialized() {
            context["hasPasskey"] = true
            context["passkeyOptions"] = String(decoding: json, as: UTF8.self)
        }
        if let error { context["error"] = error }
        return pages.render("second-factor", title: pages.strings["secondFactorTitle"] ?? "Two-step verification", context: context,
                            status: status, random: hub.context.random)
    }

    private func expiredSecondStep() -> WebResponse {
        var response = pages.render("message", title: pages.strings["expiredTitle"] ?? "Sign in again",
                                    context: ["heading": pages.strings["expiredTitle"] ?? "", "text": pages.strings["expiredText"] ?? "",
                                              "link": configuration.defaultReturnPath, "linkText": pages.strings["startOver"] ?? ""],
                                    status: .badRequest, random: hub.context.random)
        response.setCookie(clearing(configuration.secondStepCookieName))
        return response
    }

}
