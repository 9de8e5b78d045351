import AuthHub
import AuthHubFactors
import Foundation
import HTTPTypes

/// The account pages (issue: what Auth0's UI Components give an iOS app, for every web app on
/// AuthHub), served by the web core so every framework adapter mounts the same ones: the overview
/// (profile, sign-in methods, sessions), adding an authenticator app (QR code as inline SVG and the
/// key) or recovery codes (shown once, with a download), and confirmation pages for removing a
/// method or signing other sessions out, and forms to change the password or the profile. They
/// are one client of the headless API
/// (`AuthHub.accountMethods`, `startMethodEnrollment`, …, ``sessions(of:)``).
///
/// Every page needs a signed-in browser (else it is sent to sign in and back); every change is a
/// form POST from this origin with the session's CSRF token; adding or removing a method and signing
/// other sessions out need a sign-in within ``WebSignInConfiguration/accountStepUpMaxAge`` (else the
/// browser goes through the provider again — `prompt=login`, `max_age=0` — and back to the page).
/// Everything works without JavaScript.
extension AuthHubWeb {
    /// `GET <accountPath>`: the overview.
    public func accountPage(_ request: WebRequest) async -> WebResponse {
        await withSignedIn(request) { identity, id in
            let methods = try await listedMethods(identity, id)
            let capabilities = try hub.accountCapabilities(provider: identity.provider)
            let sessions = try await self.sessions(of: identity)
            let csrf = identity.csrfToken ?? ""
            let base = configuration.accountPath
            var context: [String: Any] = [
                "provider": identity.provider,
                "hasMethods": !methods.isEmpty,
                "methods": methods.map { method -> [String: Any] in
                    // The kind in words first; the name or what it points at beneath.
                    let kindText = pages.strings["kind.\(method.kind.rawValue)"] ?? method.kind.rawValue
                    let detail = [method.name, method.detail].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " · ")
                    var row: [String: Any] = [
                        "label": kindText,
                        "held": method.source == .authHub,
                        "created": method.createdAt.map(Self.day) ?? "—", "lastUsed": method.lastUsedAt.map(Self.day) ?? "—",
                        "removable": method.isDeletable && capabilities.contains(.deleteMethod),
                        "removeLink": base + "/confirm?action=remove-method&id=" + Self.queryEscaped(method.id),
                    ]
                    if !detail.isEmpty { row["detail"] = detail }
                    return row
                },
                "canEnrollTOTP": capabilities.contains(.enrollTOTP), "enrollTOTP": base + "/enroll?kind=totp",
                "canEnrollRecoveryCodes": capabilities.contains(.enrollRecoveryCodes), "enrollRecoveryCodes": base + "/enroll?kind=recovery-codes",
                "canEnrollPasskey": capabilities.contains(.enrollPasskey), "enrollPasskey": base + "/enroll?kind=passkey",
                "canEnrollEmailCode": capabilities.contains(.enrollEmailCode), "enrollEmailCode": base + "/enroll?kind=email-code",
                "canEnrollPhoneCode": capabilities.contains(.enrollPhoneCode), "enrollPhoneCode": base + "/enroll?kind=phone-code",
                "sessions": sessions.map { session -> [String: Any] in
                    var row: [String: Any] = ["device": session.device ?? (pages.strings["unknownDevice"] ?? "A browser"),
                                              "created": Self.day(session.createdAt), "current": session.isCurrent, "id": session.id,
                                              "seen": session.isCurrent ? (pages.strings["now"] ?? "now") : session.lastSeenAt.map(Self.moment) ?? "—",
                                              "csrf": csrf, "action": base]
                    if let address = session.address { row["address"] = address }
                    return row
                },
                "hasOthers": sessions.contains { !$0.isCurrent }, "signOutOthersLink": base + "/confirm?action=sign-out-others",
                "signOutEverywhereLink": base + "/confirm?action=sign-out-everywhere",
                "canChangePassword": capabilities.contains(.changePassword), "changePasswordLink": base + "/edit?what=password",
                "canChangeProfile": !capabilities.isDisjoint(with: [.changeName, .changeEmail]), "changeProfileLink": base + "/edit?what=profile",
                "canEditProfile": !capabilities.isDisjoint(with: [.changePassword, .changeName, .changeEmail]),
                "canDeleteAccount": try hub.provider(identity.provider).capabilities.contains(.accountDeletion),
                "deleteAccountLink": base + "/confirm?action=delete-account",
            ]
            if let name = identity.claims["name"]?.stringValue, !name.isEmpty, name != identity.email { context["name"] = name }
            if let email = identity.email, !email.isEmpty { context["email"] = email }
            if let done = request.queryParameters["done"], let notice = pages.strings[done], Self.notices.contains(done) { context["notice"] = notice }
            return pages.render("account", title: pages.strings["accountTitle"] ?? "Your account", context: context, random: hub.context.random)
        }
    }

    /// `GET <accountPath>/enroll?kind=totp|passkey|recovery-codes|email-code|phone-code`: starts
    /// adding the method (a recent sign-in first) and shows what to do — for codes by email or text
    /// message, first a form for the address or number.
    public func accountEnrollPage(_ request: WebRequest) async -> WebResponse {
        await withSignedIn(request) { identity, id in
            let kind = request.queryParameters["kind"]
            let enrollment: MethodEnrollmentRequest
            switch kind {
            case "totp": enrollment = .totp
            case "passkey": enrollment = .passkey
            case "recovery-codes": enrollment = .recoveryCodes
            case "email-code", "phone-code":
                // The address first (its own form), then the code sent to it.
                if let stepUp = requireRecentAuthentication(identity, maxAge: configuration.accountStepUpMaxAge,
                                                            returnTo: configuration.accountPath + "/enroll?kind=" + (kind ?? "")) {
                    return stepUp
                }
                return contactPage(email: kind == "email-code", identity: identity, value: nil, error: nil, status: .ok)
            case "code":
                // The code page of the enrollment started from the address form (kept, not taken).
                guard let challenge = keptEnrollment(for: id), case .codeSent = challenge.prompt else {
                    return .redirect(configuration.accountPath, status: .seeOther)
                }
                return enrollmentPage(challenge, identity: identity, error: nil)
            default: return .page(.notFound, "There is no such sign-in method to add.")
            }
            if let stepUp = requireRecentAuthentication(identity, maxAge: configuration.accountStepUpMaxAge,
                                                        returnTo: configuration.accountPath + "/enroll?kind=" + (kind ?? "")) {
                return stepUp
            }
            let challenge = try await hub.startMethodEnrollment(enrollment, options: enrollmentOptions(identity), provider: identity.provider,
                                                                account: id.account)
            keepEnrollment(challenge, for: id)
            return enrollmentPage(challenge, identity: identity, error: nil)
        }
    }

    /// `GET <accountPath>/edit?what=password|profile`: the form to change the password (current,
    /// new, repeated) or the profile (name and/or email, as the provider allows); a recent sign-in
    /// first, as for every change.
    public func accountEditPage(_ request: WebRequest) async -> WebResponse {
        await withSignedIn(request) { identity, _ in
            let what = request.queryParameters["what"]
            guard what == "password" || what == "profile" else { return .page(.notFound, "There is no such page.") }
            let back = configuration.accountPath + "/edit?what=" + (what ?? "")
            if let redirect = requireRecentAuthentication(identity, maxAge: configuration.accountStepUpMaxAge, returnTo: back) { return redirect }
            return try editPage(what ?? "", identity: identity, error: nil, status: .ok)
        }
    }

    /// `GET <accountPath>/confirm?action=remove-method&id=…|sign-out-session&id=…|sign-out-others|sign-out-everywhere|delete-account`: asks before a
    /// destructive action (a recent sign-in first), whose form posts to ``accountAction(_:)``.
    public func accountConfirmPage(_ request: WebRequest) async -> WebResponse {
        await withSignedIn(request) { identity, id in
            let query = request.queryParameters
            let heading: String, text: String, confirm: String, methodID: String?
            switch query["action"] {
            case "remove-method":
                guard let asked = query["id"], let method = try await listedMethods(identity, id).first(where: { $0.id == asked }) else {
                    return .page(.notFound, "There is no such sign-in method.")
                }
                let what = [pages.strings["kind.\(method.kind.rawValue)"] ?? method.kind.rawValue, method.name ?? method.detail]
                    .compactMap { $0 }.joined(separator: " · ")
                (heading, text, confirm, methodID) = (pages.strings["confirmRemoveTitle"] ?? "", what + " — " + (pages.strings["confirmRemoveText"] ?? ""),
                                                      pages.strings["remove"] ?? "Remove", method.id)
            case "sign-out-session":
                // The way back after a step-up asked for by the list's own sign-out button.
                guard let asked = query["id"], let session = try await sessions(of: identity).first(where: { $0.id == asked && !$0.isCurrent }) else {
                    return .page(.notFound, "There is no such session of yours.")
                }
                let device = session.device ?? pages.strings["unknownDevice"] ?? "A browser"
                (heading, text, confirm, methodID) = (pages.strings["confirmSignOutOneTitle"] ?? "", device + " — " + (pages.strings["confirmSignOutOneText"] ?? ""),
                                                      pages.strings["signOut"] ?? "Sign out", session.id)
            case "sign-out-others":
                (heading, text, confirm, methodID) = (pages.strings["confirmSignOutOthersTitle"] ?? "", pages.strings["confirmSignOutOthersText"] ?? "",
                                                      pages.strings["signOutOthers"] ?? "Sign out", nil)
            case "sign-out-everywhere":
                (heading, text, confirm, methodID) = (pages.strings["confirmSignOutEverywhereTitle"] ?? "",
                                                      pages.strings["confirmSignOutEverywhereText"] ?? "", pages.strings["signOutEverywhere"] ?? "Sign out", nil)
            case "delete-account":
                guard try hub.provider(identity.provider).capabilities.contains(.accountDeletion) else {
                    return .page(.notFound, "That is not available for your account.")
                }
                (heading, text, confirm, methodID) = (pages.strings["confirmDeleteTitle"] ?? "", pages.strings["confirmDeleteText"] ?? "",
                                                      pages.strings["deleteAccount"] ?? "Delete", nil)
            default:
                return .page(.notFound, "There is no such action.")
            }
            let here = configuration.accountPath + "/confirm?action=" + Self.queryEscaped(query["action"] ?? "")
                + (methodID.map { "&id=" + Self.queryEscaped($0) } ?? "")
            if let stepUp = requireRecentAuthentication(identity, maxAge: configuration.accountStepUpMaxAge, returnTo: here) { return stepUp }
            var context: [String: Any] = ["heading": heading, "text": text, "confirmText": confirm, "csrf": identity.csrfToken ?? "",
                                          "action": configuration.accountPath, "actionName": query["action"] ?? "", "back": configuration.accountPath]
            if let methodID { context["id"] = methodID }
            return pages.render("confirm", title: heading, context: context, random: hub.context.random)
        }
    }

    /// `POST <accountPath>` with `action` = `remove-method` (`id`), `sign-out-session` (`id`),
    /// `sign-out-others`, `sign-out-everywhere`, `delete-account`, `change-password`, `change-profile`,
    /// `start-email-code`/`start-phone-code` (`value`), `confirm-code`, `confirm-totp` (`code`) or `confirm-recovery-codes`, and
    /// `csrf`: does it and redirects (303) to the overview with a notice (after a deletion: to
    /// ``WebSignInConfiguration/signedOutPath``, the cookie cleared); a wrong code shows the page
    /// again (401).
    public func accountAction(_ request: WebRequest) async -> WebResponse {
        await withSignedIn(request) { identity, id in
            guard isSameOrigin(request.head) else { return .page(.forbidden, "This form must come from this site.") }
            let fields: [String: String]
            do {
                fields = try await request.formFields(limit: Self.formLimit)
            } catch {
                return .page(.forbidden, "This form expired. Please try again.")
            }
            guard isValidCSRFToken(request.headerFields[WebRequest.csrfHeader] ?? fields["csrf"], for: id) else {
                return .page(.forbidden, "This form expired. Please try again.")
            }
            let back = configuration.accountPath
            func done(_ notice: String) -> WebResponse { .redirect(back + "?done=" + notice, status: .seeOther) }
            func stepUp(_ returnTo: String) -> WebResponse? {
                requireRecentAuthentication(identity, maxAge: configuration.accountStepUpMaxAge, returnTo: returnTo, afterForm: true)
            }
            switch fields["action"] {
            case "remove-method":
                guard let methodID = fields["id"] else { return .page(.badRequest, "Which method?") }
                if let redirect = stepUp(back + "/confirm?action=remove-method&id=" + Self.queryEscaped(methodID)) { return redirect }
                try await hub.deleteMethod(id: methodID, provider: identity.provider, account: id.account)
                return done("removed")
            case "sign-out-session":
                guard let sessionID = fields["id"] else { return .page(.badRequest, "Which session?") }
                if let redirect = stepUp(back + "/confirm?action=sign-out-session&id=" + Self.queryEscaped(sessionID)) { return redirect }
                try await signOutSession(id: sessionID, of: identity)
                return done("signedOutOne")
            case "sign-out-others":
                if let redirect = stepUp(back + "/confirm?action=sign-out-others") { return redirect }
                _ = try await signOutOtherSessions(of: identity)
                return done("signedOutOthers")
            case "sign-out-everywhere":
                if let redirect = stepUp(back + "/confirm?action=sign-out-everywhere") { return redirect }
                _ = try await signOutEverywhere(of: identity)
                forget(id)
                var gone = WebResponse.redirect(configuration.signedOutPath, status: .seeOther)
                gone.setCookie(clearing(configuration.sessionCookieName))
                return gone
            case "delete-account":
                if let redirect = stepUp(back + "/confirm?action=delete-account") { return redirect }
                do {
                    try await hub.deleteAccount(provider: identity.provider, account: id.account)
                } catch let error as AuthError where error.code == .requiresRecentLogin {
                    return reauthenticate(identity, returnTo: back + "/confirm?action=delete-account")
                }
                forget(id)
                var gone = WebResponse.redirect(configuration.signedOutPath, status: .seeOther)
                gone.setCookie(clearing(configuration.sessionCookieName))
                return gone
            case "change-password":
                if let redirect = stepUp(back + "/edit?what=password") { return redirect }
                let new = fields["new"] ?? ""
                guard (1...1024).contains(new.utf8.count) else {
                    return try editPage("password", identity: identity, error: pages.strings["passwordMissing"], status: .badRequest)
                }
                guard new == fields["repeat"] else {
                    return try editPage("password", identity: identity, error: pages.strings["passwordsDiffer"], status: .badRequest)
                }
                // The recent sign-in is the check of who is asking (no current password here).
                do {
                    try await hub.changePassword(new: Secret(new), provider: identity.provider, account: id.account)
                } catch let error as AuthError where error.code == .weakPassword || error.code == .passwordLeaked {
                    return try editPage("password", identity: identity, error: pages.strings["passwordWeak"], status: .badRequest)
                } catch let error as AuthError where error.code == .requiresRecentLogin {
                    return reauthenticate(identity, returnTo: back + "/edit?what=password")
                }
                return done("passwordChanged")
            case "change-profile":
                if let redirect = stepUp(back + "/edit?what=profile") { return redirect }
                let capabilities = try hub.accountCapabilities(provider: identity.provider)
                var notice = "profileUnchanged"
                do {
                    if capabilities.contains(.changeName), let name = fields["name"]?.trimmingCharacters(in: .whitespaces), !name.isEmpty,
                       name != identity.claims["name"]?.stringValue {
                        try await hub.changeProfile(.name(name), provider: identity.provider, account: id.account)
                        notice = "profileChanged"
                    }
                    if capabilities.contains(.changeEmail), let email = fields["email"]?.trimmingCharacters(in: .whitespaces), !email.isEmpty,
                       email.lowercased() != identity.email?.lowercased() {
                        switch try await hub.changeProfile(.email(email), provider: identity.provider, account: id.account) {
                        case .changed: notice = "profileChanged"
                        case .verificationSent: notice = "emailVerificationSent"
                        }
                    }
                } catch let error as AuthError where error.code == .requiresRecentLogin {
                    return reauthenticate(identity, returnTo: back + "/edit?what=profile")
                } catch let error as AuthError where [.invalidRequest, .invalidEmail, .emailAlreadyInUse].contains(error.code) {
                    let key = error.code == .emailAlreadyInUse ? "emailInUse" : "profileInvalid"
                    return try editPage("profile", identity: identity, error: pages.strings[key], status: .badRequest)
                }
                return done(notice)
            case "start-email-code", "start-phone-code":
                let email = fields["action"] == "start-email-code"
                if let redirect = stepUp(back + "/enroll?kind=" + (email ? "email-code" : "phone-code")) { return redirect }
                let value = String((fields["value"] ?? "").trimmingCharacters(in: .whitespaces).prefix(320))
                let request: MethodEnrollmentRequest = email ? .emailCode(email: value) : .phoneCode(phoneNumber: value)
                let challenge: MethodEnrollmentChallenge
                do {
                    challenge = try await hub.startMethodEnrollment(request, options: enrollmentOptions(identity), provider: identity.provider,
                                                                    account: id.account)
                } catch let error as AuthError where [.invalidRequest, .invalidEmail].contains(error.code) {
                    return contactPage(email: email, identity: identity, value: value,
                                       error: pages.strings[email ? "emailInvalid" : "phoneInvalid"], status: .badRequest)
                }
                keepEnrollment(challenge, for: id)
                // The code page at its own address (a reload shows it again, sends nothing again).
                return .redirect(back + "/enroll?kind=code", status: .seeOther)
            case "confirm-totp", "confirm-recovery-codes", "confirm-passkey", "confirm-code":
                guard let challenge = takeEnrollment(for: id) else {
                    return .redirect(back, status: .seeOther)
                }
                let response: MethodEnrollmentResponse
                switch fields["action"] {
                case "confirm-totp", "confirm-code": response = .code(Secret(String((fields["code"] ?? "").prefix(16))))
                case "confirm-passkey":
                    guard let text = fields["credential"], let json = try? JSONValue.parse(Data(text.utf8)),
                          let registration = try? PasskeyRegistration(json: json) else {
                        keepEnrollment(challenge, for: id)
                        return enrollmentPage(challenge, identity: identity, error: pages.strings["passkeyFailed"], status: .badRequest)
                    }
                    response = .passkey(registration)
                default: response = .acknowledged
                }
                do {
                    try await hub.confirmMethodEnrollment(challenge, response: response, provider: identity.provider, account: id.account)
                } catch let error as AuthError where error.code == .invalidMFACode {
                    keepEnrollment(challenge, for: id)
                    return enrollmentPage(challenge, identity: identity, error: pages.strings["wrongCode"], status: .unauthorized)
                } catch let error as AuthError where challenge.kind == .passkey && error.code != .sessionExpired && !error.code.isTransientByDefault {
                    // The browser's registration did not verify (another challenge, origin, RP): start again.
                    hub.context.logger.notice("a passkey registration was refused", metadata: ["error": "\(error.code)"])
                    let again = try await hub.startMethodEnrollment(.passkey, options: enrollmentOptions(identity), provider: identity.provider,
                                                                    account: id.account)
                    keepEnrollment(again, for: id)
                    return enrollmentPage(again, identity: identity, error: pages.strings["passkeyFailed"], status: .badRequest)
                }
                return done("added." + challenge.kind.rawValue)
            default:
                return .page(.badRequest, "There is no such action.")
            }
        }
    }

    /// An app's own page in the account pages' look (``WebPages``: the layout, the stylesheet under
    /// a fresh CSP nonce): `bodyHTML` is the app's markup, placed as it is (escape what came from
    /// outside; ``escapeHTML(_:)``); no script runs on it but one carrying the nonce, which
    /// `bodyHTML` receives.
    public func page(title: String, status: HTTPResponse.Status = .ok, bodyHTML: (_ nonce: String) -> String) -> WebResponse {
        secured(pages.renderBody(title: title, status: status, random: hub.context.random, body: bodyHTML))
    }

    /// Text for HTML: `&`, `<`, `>`, `"` and `'` escaped.
    public static func escapeHTML(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    // MARK: Helpers

    static let notices: Set<String> = ["added.totp", "added.recoveryCode", "added.passkey", "added.emailCode", "added.smsCode", "removed", "signedOutOne", "signedOutOthers",
                                       "passwordChanged", "profileChanged", "profileUnchanged", "emailVerificationSent"]

    /// Through the provider's sign-in again and back to `returnTo`: the provider wanted a more recent
    /// sign-in than the pages' step-up window gave (Firebase's `CREDENTIAL_TOO_OLD_LOGIN_AGAIN`).
    /// Answers a form's POST, so a page of this site rather than a redirect to another origin (see
    /// ``requireRecentAuthentication(_:maxAge:returnTo:afterForm:)``).
    private func reauthenticate(_ identity: AuthHubIdentity, returnTo: String) -> WebResponse {
        reauthenticationPage(for: identity, returnTo: returnTo)
    }

    /// The password or profile form (``accountEditPage(_:)``), with an error when one is given.
    private func editPage(_ what: String, identity: AuthHubIdentity, error: String?, status: HTTPResponse.Status) throws -> WebResponse {
        let capabilities = try hub.accountCapabilities(provider: identity.provider)
        var context: [String: Any] = ["csrf": identity.csrfToken ?? "", "action": configuration.accountPath, "back": configuration.accountPath]
        if let error { context["error"] = error }
        if what == "password" {
            guard capabilities.contains(.changePassword) else { return .page(.notFound, "That is not available for your account.") }
            return pages.render("change-password", title: pages.strings["changePassword"] ?? "", context: context, status: status,
                                random: hub.context.random)
        }
        guard !capabilities.isDisjoint(with: [.changeName, .changeEmail]) else { return .page(.notFound, "That is not available for your account.") }
        if capabilities.contains(.changeName) { context["canChangeName"] = true; context["name"] = identity.claims["name"]?.stringValue ?? "" }
        if capabilities.contains(.changeEmail) { context["canChangeEmail"] = true; context["email"] = identity.email ?? "" }
        return pages.render("profile", title: pages.strings["editProfile"] ?? "", context: context, status: status, random: hub.context.random)
    }

    /// The largest form the account and second-step pages read (a passkey's registration is ~1–2 KiB).
    static let formLimit = 16 * 1024

    /// Runs `body` for a signed-in browser, adding a renewed session cookie to its response; sends
    /// a signed-out browser to sign in and back; maps errors to pages.
    private func withSignedIn(_ request: WebRequest, _ body: (AuthHubIdentity, WebSessionID) async throws -> WebResponse) async -> WebResponse {
        let value = request.cookie(configuration.sessionCookieName)
        switch await resolveSession(cookie: value) {
        case .signedIn(let identity, let renewed):
            guard let value, let id = WebSessionID(cookie: value) else { return secured(.page(.unauthorized, "Please sign in.")) }
            var response: WebResponse
            do {
                response = try await body(identity, id)
            } catch let error as AuthError where error.code == .unsupported {
                response = .page(.notFound, "That is not available for your account.")
            } catch {
                response = errorResponse(for: error)
            }
            if let renewed { response.setCookie(renewed) }
            return secured(response)
        case .failed(let response):
            return secured(response)
        case .anonymous, .ended:
            guard let provider = browserSignIn(nil) else { return secured(.page(.unauthorized, "Please sign in.")) }
            var components = URLComponents()
            components.path = configuration.routePrefix + "/login"
            components.queryItems = [URLQueryItem(name: "provider", value: provider.id), URLQueryItem(name: "returnTo", value: configuration.accountPath)]
            var response = WebResponse.redirect(components.string ?? configuration.routePrefix + "/login", status: .seeOther)
            if value != nil { response.setCookie(clearing(configuration.sessionCookieName)) }
            return secured(response)
        }
    }

    /// The account's confirmed methods (an enrollment still waiting for its code is no way to sign
    /// in), or none when neither the provider nor held factors list them.
    private func listedMethods(_ identity: AuthHubIdentity, _ id: WebSessionID) async throws -> [AccountMethod] {
        guard try hub.accountCapabilities(provider: identity.provider).contains(.listMethods) else { return [] }
        return try await hub.accountMethods(provider: identity.provider, account: id.account).filter(\.isConfirmed)
    }

    private func enrollmentPage(_ challenge: MethodEnrollmentChallenge, identity: AuthHubIdentity, error: String?,
                                status: HTTPResponse.Status = .ok) -> WebResponse {
        var context: [String: Any] = ["csrf": identity.csrfToken ?? "", "action": configuration.accountPath, "back": configuration.accountPath]
        if let error { context["error"] = error }
        switch challenge.prompt {
        case .totp(let uri, let secret):
            context["qr"] = (try? QRCode(encoding: uri.revealed()).svg(label: pages.strings["totpStepScan"] ?? "QR code")) ?? ""
            context["secret"] = Self.grouped(secret.revealed())
            return pages.render("enroll-totp", title: pages.strings["addTOTP"] ?? "", context: context, status: status, random: hub.context.random)
        case .recoveryCodes(let codes):
            let text = codes.map { $0.revealed() }.joined(separator: "\n") + "\n"
            context["codes"] = codes.map { $0.revealed() }
            context["download"] = "data:text/plain;charset=utf-8," + Self.queryEscaped(text)
            return pages.render("recovery-codes", title: pages.strings["recoveryCodesTitle"] ?? "", context: context, status: status,
                                random: hub.context.random)
        case .passkey(let creation):
            context["options"] = (try? creation.json.serialized()).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
            return pages.render("enroll-passkey", title: pages.strings["addPasskey"] ?? "", context: context, status: status, random: hub.context.random)
        case .codeSent(let destination):
            context["destination"] = destination
            context["title"] = pages.strings[challenge.kind == .emailCode ? "addEmailCode" : "addPhoneCode"] ?? ""
            return pages.render("enroll-code", title: context["title"] as? String ?? "", context: context, status: status, random: hub.context.random)
        }
    }

    /// The form asking for the email address or phone number to send codes to.
    private func contactPage(email: Bool, identity: AuthHubIdentity, value: String?, error: String?, status: HTTPResponse.Status) -> WebResponse {
        var context: [String: Any] = ["csrf": identity.csrfToken ?? "", "action": configuration.accountPath, "back": configuration.accountPath,
                                      "actionName": email ? "start-email-code" : "start-phone-code",
                                      "label": pages.strings[email ? "emailToUse" : "phoneToUse"] ?? "",
                                      "type": email ? "email" : "tel", "autocomplete": email ? "email" : "tel",
                                      "hint": pages.strings[email ? "emailCodeLead" : "phoneCodeLead"] ?? ""]
        context["value"] = value ?? (email ? identity.email ?? "" : "")
        if let error { context["error"] = error }
        return pages.render("enroll-contact", title: pages.strings[email ? "addEmailCode" : "addPhoneCode"] ?? "", context: context, status: status,
                            random: hub.context.random)
    }

    /// How the pages present a new method: the product's name, the user's email, this site's origin.
    private func enrollmentOptions(_ identity: AuthHubIdentity) -> MethodEnrollmentOptions {
        MethodEnrollmentOptions(issuer: configuration.pages.productName, accountName: identity.email, origin: configuration.origin)
    }

    private func keepEnrollment(_ challenge: MethodEnrollmentChallenge, for id: WebSessionID) {
        let now = self.now
        enrollments.withLock { table in
            if table.count >= 10_000 { table = table.filter { now.timeIntervalSince($0.value.startedAt) < 900 } }
            table[id.value] = (challenge, now)
        }
    }

    /// The enrollment this browser started (within 15 minutes), left kept or taken (`removing`).
    private func keptEnrollment(for id: WebSessionID, removing: Bool = false) -> MethodEnrollmentChallenge? {
        let now = self.now
        return enrollments.withLock { table in
            guard let kept = table[id.value] else { return nil }
            if removing || now.timeIntervalSince(kept.startedAt) >= 900 { table[id.value] = nil }
            return now.timeIntervalSince(kept.startedAt) < 900 ? kept.challenge : nil
        }
    }

    private func takeEnrollment(for id: WebSessionID) -> MethodEnrollmentChallenge? { keptEnrollment(for: id, removing: true) }

    /// A day, UTC ("28 Nov 2026").
    static func day(_ date: Date) -> String { utc(date, "d MMM yyyy") }

    /// A day and a time, UTC ("28 Nov 2026, 14:05 UTC").
    static func moment(_ date: Date) -> String { utc(date, "d MMM yyyy, HH:mm 'UTC'") }

    private static func utc(_ date: Date, _ format: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = format
        return formatter.string(from: date)
    }

    static func queryEscaped(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    /// A base32 key in groups of four, easier to type.
    static func grouped(_ key: String) -> String {
        stride(from: 0, to: key.count, by: 4).map { start -> String in
            let from = key.index(key.startIndex, offsetBy: start)
            return String(key[from..<(key.index(from, offsetBy: 4, limitedBy: key.endIndex) ?? key.endIndex)])
        }.joined(separator: " ")
    }
}
