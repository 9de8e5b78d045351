import AuthHub
import Crypto
import Foundation
import HTTPTypes

/// The second step of a browser sign-in with AuthHub-held factors (`AuthHub.useHeldFactors`): after
/// the provider's callback, the browser gets a short-lived second-step cookie instead of a session
/// and is sent to `<prefix>/second-factor`, a page of AuthHub's own (``WebPages``) that asks for a
/// code from the user's authenticator app or a recovery code; the right answer stores the browser's
/// session and sets its cookie, as the callback would have.
extension AuthHubWeb {
    /// `GET <prefix>/second-factor`: the page (200), or — with no waiting sign-in for this browser —
    /// a page saying to sign in again (400).
    public func secondFactor(_ request: WebRequest) async -> WebResponse {
        guard let (_, entry) = waitingSecondStep(request), let step = hub.heldSecondStep(token: entry.token) else {
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
        guard let csrf = fields["csrf"], Self.constantTimeEqual(csrf, entry.csrf) else {
            return secured(.page(.forbidden, "This form expired. Please try again."))
        }
        let code = Secret(String((fields["code"] ?? "").prefix(64)))
        let response: HeldSecondStepResponse
        switch fields["kind"] {
        case "totp": response = .totp(code)
        case "recoveryCode": response = .recoveryCode(code)
        case "passkey":
            guard let text = fields["credential"], let json = try? JSONValue.parse(Data(text.utf8)),
                  let assertion = try? PasskeyAssertion(json: json) else {
                guard let step = hub.heldSecondStep(token: entry.token) else { return secured(expiredSecondStep()) }
                return secured(secondFactorPage(entry, step: step, error: pages.strings["passkeyFailed"], status: .badRequest))
            }
            response = .passkey(assertion)
        default: return secured(.page(.badRequest, "Choose a code from your app or a recovery code."))
        }
        do {
            _ = try await hub.completeHeldSecondStep(token: entry.token, response: response)
        } catch let error as AuthError where error.code == .invalidMFACode {
            guard let step = hub.heldSecondStep(token: entry.token) else { return secured(expiredSecondStep()) }
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

    /// The callback's answer when the hub asks for a held second step: the waiting sign-in is kept
    /// (under a new opaque cookie) and the browser goes to the second-step page.
    func beginSecondStep(_ error: AuthError, id: WebSessionID, request: WebRequest, returnPath: String) -> WebResponse {
        guard let token = error.mfa?.token else { return errorResponse(for: error) }
        let cookieID = Base64URL.encode(hub.context.random.bytes(32))
        secondSteps.put(PendingSecondSteps.Entry(token: token, id: id, returnPath: returnPath, csrf: Base64URL.encode(hub.context.random.bytes(32)),
                                                 createdAt: now, replacing: request.cookie(configuration.sessionCookieName)),
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

    private func secondFactorPage(_ entry: PendingSecondSteps.Entry, step: HeldSecondStep, error: String?, status: HTTPResponse.Status) -> WebResponse {
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

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
