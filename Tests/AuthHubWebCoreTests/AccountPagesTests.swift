import AuthHub
import AuthHubAuth0
import AuthHubFactors
import AuthHubTesting
import AuthHubWebCore
import AuthHubWebTestSupport
import Foundation
import HTTPTypes
import Testing

/// The account pages through the web core's own handlers, against the emulator's Auth0 tenant (My
/// Account API underneath): the overview, adding an authenticator app from the page's key, the
/// step-up before removing it, other sessions signed out, and the refusals (no session, no CSRF
/// token, another origin).
@Suite struct AccountPagesTests {
    typealias Browser = StepUpTests.Browser
    static let origin = "http://127.0.0.1:8080"

    func get(_ web: AuthHubWeb, _ browser: Browser, _ path: String) async -> WebResponse {
        let request = browser.request(path, cookies: [])
        let bare = String(path.prefix { $0 != "?" })
        switch bare {
        case "/account": return await web.accountPage(request)
        case "/account/enroll": return await web.accountEnrollPage(request)
        default: return await web.accountConfirmPage(request)
        }
    }

    func post(_ web: AuthHubWeb, _ browser: Browser, _ fields: [(String, String)], origin: String = Self.origin) async -> WebResponse {
        await web.accountAction(browser.form("/account", fields: fields, origin: origin))
    }

    static func html(_ response: WebResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    @Test func theOverviewAddingAnAuthenticatorAndRemovingItAfterAStepUp() async throws {
        let environment = try await EmulatorWebEnvironment.make()
        defer { Task { await environment.tearDown() } }
        let web = try AuthHubWeb(hub: environment.hub, configuration: WebSignInConfiguration(publicBaseURL: URL(string: Self.origin)!))
        var browser = Browser(web: web)
        // Signed out: sent to sign in and back.
        let anonymous = await get(web, browser, "/account")
        #expect(anonymous.status == .seeOther && anonymous.headerFields[.location] == "/auth/login?provider=auth0&returnTo=/account")
        _ = try await StepUpTests().signIn(&browser, query: "", approve: environment.approve)

        let overview = await get(web, browser, "/account")
        let html = Self.html(overview)
        #expect(overview.status == .ok, "\(html)")
        #expect(html.contains("Your account") && html.contains(EmulatorWebEnvironment.email) && html.contains("this device"))
        #expect(html.contains("Add an authenticator app") && overview.headerFields[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
        let cookie = try #require(browser.session)
        let csrf = try #require(await web.resolveSession(cookie: cookie).identity?.csrfToken)
        let account = try #require(web.account(ofSessionCookie: cookie))

        // Adding an authenticator app: QR code and key on the page, the app's code confirms it.
        let enroll = await get(web, browser, "/account/enroll?kind=totp")
        let enrollHTML = Self.html(enroll)
        #expect(enroll.status == .ok && enrollHTML.contains("<svg") && enrollHTML.contains("role=\"img\""), "\(enrollHTML.prefix(300))")
        let keyStart = try #require(enrollHTML.range(of: "class=\"ah-secret\""))
        let key = String(enrollHTML[keyStart.upperBound...].drop { $0 != ">" }.dropFirst().prefix { $0 != "<" }).replacingOccurrences(of: " ", with: "")
        let totp = try TOTP(secret: Secret(try Base32.decode(key)), skew: 0)
        let code = try totp.code(at: environment.clock.now).revealed()
        let wrong = await post(web, browser, [("csrf", csrf), ("action", "confirm-totp"), ("code", code == "000000" ? "111111" : "000000")])
        #expect(wrong.status == .unauthorized && Self.html(wrong).contains("role=\"alert\""))
        let added = await post(web, browser, [("csrf", csrf), ("action", "confirm-totp"), ("code", code)])
        #expect(added.status == .seeOther && added.headerFields[.location] == "/account?done=added.totp", "\(Self.html(added))")
        let after = Self.html(await get(web, browser, "/account?done=added.totp"))
        #expect(after.contains("Your authenticator app was added.") && after.contains("Authenticator app"))
        #expect(!Self.html(await get(web, browser, "/account?done=%3Cscript%3E")).contains("<script>"), "only known notices are shown")
        let methods = try await environment.hub.accountMethods(provider: "auth0", account: account)
        let totpMethod = try #require(methods.first { $0.kind == .totp })

        // Refused: another origin, no CSRF token.
        #expect(await post(web, browser, [("csrf", csrf), ("action", "remove-method"), ("id", totpMethod.id)], origin: "https://evil.example").status == .forbidden)
        #expect(await post(web, browser, [("action", "remove-method"), ("id", totpMethod.id)]).status == .forbidden)

        // Later: removing needs a recent sign-in — through the provider again, back to the confirmation.
        environment.clock.advance(by: 700)
        let confirmPath = "/account/confirm?action=remove-method&id=" + (totpMethod.id.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        let stale = await get(web, browser, confirmPath)
        #expect(stale.status == .seeOther && stale.headerFields[.location]?.contains("maxAge=0") == true, "\(stale.status)")
        let staleCSRF = try #require(await web.resolveSession(cookie: cookie).identity?.csrfToken)
        let stalePost = await post(web, browser, [("csrf", staleCSRF), ("action", "remove-method"), ("id", totpMethod.id)])
        // After a form's POST: a page of this site that goes on to the sign-in (a redirect straight to the
        // provider's origin would be blocked by the page's `form-action 'self'`).
        #expect(stalePost.status == .ok && stalePost.headerFields[.location] == nil, "\(stalePost.status)")
        let stalePage = Self.html(stalePost)
        let refresh = try #require(stalePage.firstMatch(of: /<meta http-equiv="refresh" content="0; url=([^"]+)">/)?.1, "\(stalePage.prefix(600))")
        #expect(refresh.hasPrefix("/auth/login?provider=auth0&amp;returnTo=%2Faccount%2Fconfirm%3Faction%3Dremove%2Dmethod%26id%3D")
                && refresh.hasSuffix("&amp;maxAge=0"), "\(refresh)")
        #expect(stalePage.contains("id=\"ah-continue\" href=\"\(refresh)\""), "the same way on as a link")
        #expect(stalePost.headerFields[.contentSecurityPolicy]?.contains("form-action 'self'") == true)
        #expect(try await environment.hub.accountMethods(provider: "auth0", account: account).contains { $0.id == totpMethod.id },
                "nothing removed without the step-up")
        _ = try await StepUpTests().signIn(&browser, query: "&maxAge=0", approve: environment.approve)
        let confirm = await get(web, browser, confirmPath)
        #expect(confirm.status == .ok && Self.html(confirm).contains("Remove this sign-in method?"))
        let freshCSRF = try #require(SecondFactorPageTests.field("csrf", in: Self.html(confirm)))
        let removed = await post(web, browser, [("csrf", freshCSRF), ("action", "remove-method"), ("id", totpMethod.id)])
        #expect(removed.status == .seeOther && removed.headerFields[.location] == "/account?done=removed")
        let newCookie = try #require(browser.session)
        let newAccount = try #require(web.account(ofSessionCookie: newCookie))
        #expect(!(try await environment.hub.accountMethods(provider: "auth0", account: newAccount).contains { $0.id == totpMethod.id }))
    }

    /// Adding a passkey: the page carries the creation options for its own script (and the script
    /// under the nonce); a registration that is not WebAuthn's JSON shows the page again.
    @Test func thePasskeyPageCarriesItsOptions() async throws {
        let environment = try await EmulatorWebEnvironment.make()
        defer { Task { await environment.tearDown() } }
        let web = try AuthHubWeb(hub: environment.hub, configuration: WebSignInConfiguration(publicBaseURL: URL(string: Self.origin)!))
        var browser = Browser(web: web)
        _ = try await StepUpTests().signIn(&browser, query: "", approve: environment.approve)
        #expect(Self.html(await get(web, browser, "/account")).contains("Add a passkey"))
        let page = await get(web, browser, "/account/enroll?kind=passkey")
        let html = Self.html(page)
        #expect(page.status == .ok && html.contains("data-ah-passkey=\"create\"") && html.contains("navigator.credentials.create"))
        let nonce = try #require(page.headerFields[.contentSecurityPolicy]?.split(separator: "'").first { $0.hasPrefix("nonce-") }?.dropFirst(6))
        #expect(html.contains("<script nonce=\"\(nonce)\">"))
        let options = try PasskeyRegistrationOptions(json: try JSONValue.parse(Data(try #require(PasskeyPagesTests.attribute("data-ah-options", in: html)).utf8)))
        #expect(options.challenge.count >= 16 && options.user.name == EmulatorWebEnvironment.email)
        let cookie = try #require(browser.session)
        let csrf = try #require(await web.resolveSession(cookie: cookie).identity?.csrfToken)
        let garbled = await post(web, browser, [("csrf", csrf), ("action", "confirm-passkey"), ("credential", "{}")])
        #expect(garbled.status == .badRequest && Self.html(garbled).contains("data-ah-passkey=\"create\""))
    }

    /// Codes by email through the pages (Auth0's My Account, the emulator's outbox standing in for
    /// the mailbox): the address form, a malformed address shown again, the code page naming where
    /// the code went, a wrong code refused, the right one confirming.
    @Test func codesByEmailAreAddedThroughTheAddressAndCodePages() async throws {
        let environment = try await EmulatorWebEnvironment.make()
        defer { Task { await environment.tearDown() } }
        let web = try AuthHubWeb(hub: environment.hub, configuration: WebSignInConfiguration(publicBaseURL: URL(string: Self.origin)!))
        var browser = Browser(web: web)
        _ = try await StepUpTests().signIn(&browser, query: "", approve: environment.approve)
        let overview = Self.html(await get(web, browser, "/account"))
        #expect(overview.contains("Get codes by email") && overview.contains("Get codes by text message"))
        let form = await get(web, browser, "/account/enroll?kind=email-code")
        let formHTML = Self.html(form)
        #expect(form.status == .ok && formHTML.contains("type=\"email\"") && formHTML.contains("value=\"\(EmulatorWebEnvironment.email)\""))
        let csrf = try #require(SecondFactorPageTests.field("csrf", in: formHTML))
        let malformed = await post(web, browser, [("csrf", csrf), ("action", "start-email-code"), ("value", "not an address")])
        #expect(malformed.status == .badRequest && Self.html(malformed).contains("role=\"alert\""), "\(malformed.status)")

        let address = "codes@example.com"
        let started = await post(web, browser, [("csrf", csrf), ("action", "start-email-code"), ("value", address)])
        #expect(started.status == .seeOther && started.headerFields[.location] == "/account/enroll?kind=code", "\(started.status)")
        let sent = await get(web, browser, "/account/enroll?kind=code")
        let sentHTML = Self.html(sent)
        #expect(sent.status == .ok && sentHTML.contains("Enter the code we sent to") && sentHTML.contains("autocomplete=\"one-time-code\""),
                "\(sent.status) \(sentHTML.prefix(400))")
        let auth0 = try environment.hub.provider("auth0", as: Auth0Provider.self)
        let outbox = try await URLSessionTransport(defaultTimeout: .seconds(5)).send(
            .get, try #require(URL(string: "__emulator/outbox?to=" + (address.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""),
                                   relativeTo: auth0.configuration.baseURL)))
        let code = try #require(try JSONValue.parse(outbox.body)["messages"]?.arrayValue?.last?["code"]?.stringValue, "no code was sent")
        let wrong = await post(web, browser, [("csrf", csrf), ("action", "confirm-code"), ("code", code == "000000" ? "111111" : "000000")])
        #expect(wrong.status == .unauthorized && Self.html(wrong).contains("role=\"alert\""), "\(wrong.status)")
        let added = await post(web, browser, [("csrf", csrf), ("action", "confirm-code"), ("code", code)])
        #expect(added.status == .seeOther && added.headerFields[.location] == "/account?done=added.emailCode", "\(added.status) \(Self.html(added).prefix(300))")
        let after = Self.html(await get(web, browser, "/account?done=added.emailCode"))
        #expect(after.contains("Codes by email are on.") && after.contains(address))
        #expect(await get(web, browser, "/account/enroll?kind=code").status == .seeOther, "no code page once it is confirmed")
    }

    /// The client's address is kept with a browser session only when the app opts in, and only when
    /// it reads as an address.
    @Test func theClientAddressOnlyWhenTheAppOptsIn() async throws {
        let environment = try await EmulatorWebEnvironment.make()
        defer { Task { await environment.tearDown() } }
        // One user signing in again and again: the list grows, and the page shows every kept address.
        for (round, (optIn, peer, expected)) in ([(false, "127.0.0.5", nil), (true, "127.0.0.5", "127.0.0.5"), (true, "::1", "::1"),
                                                  (true, "<script>", nil)] as [(Bool, String, String?)]).enumerated() {
            var configuration = WebSignInConfiguration(publicBaseURL: URL(string: Self.origin)!)
            configuration.recordsClientAddress = optIn
            let web = try AuthHubWeb(hub: environment.hub, configuration: configuration)
            var browser = Browser(web: web, peer: peer)
            _ = try await StepUpTests().signIn(&browser, query: "", approve: environment.approve)
            let identity = try #require(await web.resolveSession(cookie: try #require(browser.session)).identity)
            let mine = try #require(try await web.sessions(of: identity).first { $0.isCurrent })
            #expect(mine.address == expected, "opt-in \(optIn), peer \(peer)")
            let page = Self.html(await get(web, browser, "/account"))
            #expect(page.contains("127.0.0.5") == (round >= 1), "the page shows an address only once one was kept")
            #expect(!page.contains("<script>"), "a hostile address is never shown")
        }
    }

    @Test func anotherSessionIsSignedOutFromTheList() async throws {
        let environment = try await EmulatorWebEnvironment.make()
        defer { Task { await environment.tearDown() } }
        let web = try AuthHubWeb(hub: environment.hub, configuration: WebSignInConfiguration(publicBaseURL: URL(string: Self.origin)!))
        var laptop = Browser(web: web), phone = Browser(web: web)
        _ = try await StepUpTests().signIn(&laptop, query: "", approve: environment.approve)
        _ = try await StepUpTests().signIn(&phone, query: "", approve: environment.approve)
        let laptopCookie = try #require(laptop.session)
        let phoneCookie = try #require(phone.session)
        let identity = try #require(await web.resolveSession(cookie: laptopCookie).identity)
        let other = try #require(try await web.sessions(of: identity).first { !$0.isCurrent })
        let page = Self.html(await get(web, laptop, "/account"))
        #expect(page.contains("name=\"id\" value=\"\(other.id)\"") && page.contains("Sign out everywhere else"))
        let csrf = try #require(identity.csrfToken)
        // The confirmation a step-up comes back to: the other browser by its id; never this one.
        let escaped = { (id: String) in id.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "" }
        let confirmOne = await get(web, laptop, "/account/confirm?action=sign-out-session&id=" + escaped(other.id))
        #expect(confirmOne.status == .ok && Self.html(confirmOne).contains("Sign out that browser?")
                && Self.html(confirmOne).contains("name=\"id\" value=\"\(other.id)\""), "\(confirmOne.status)")
        let current = try #require(try await web.sessions(of: identity).first { $0.isCurrent })
        #expect(await get(web, laptop, "/account/confirm?action=sign-out-session&id=" + escaped(current.id)).status == .notFound)
        #expect(await get(web, laptop, "/account/confirm?action=sign-out-session&id=web.1.nobody").status == .notFound)
        let done = await post(web, laptop, [("csrf", csrf), ("action", "sign-out-session"), ("id", other.id)])
        #expect(done.status == .seeOther && done.headerFields[.location] == "/account?done=signedOutOne")
        #expect(await web.resolveSession(cookie: phoneCookie).identity == nil, "the phone is signed out")
        #expect(await web.resolveSession(cookie: laptopCookie).identity != nil, "this browser stays")
        let phonePage = await get(web, phone, "/account")
        #expect(phonePage.status == .seeOther, "the phone is sent to sign in again")

        // Signing out everywhere: after its confirmation, every session goes, this one too, revoked
        // at the provider; the browser's cookie is cleared.
        var tablet = Browser(web: web)
        _ = try await StepUpTests().signIn(&tablet, query: "", approve: environment.approve)
        let tabletCookie = try #require(tablet.session)
        #expect(Self.html(await get(web, laptop, "/account")).contains("Sign out everywhere</a>"))
        let confirm = await get(web, laptop, "/account/confirm?action=sign-out-everywhere")
        #expect(confirm.status == .ok && Self.html(confirm).contains("Sign out everywhere?"))
        let everywhere = await post(web, laptop, [("csrf", csrf), ("action", "sign-out-everywhere")])
        #expect(everywhere.status == .seeOther && everywhere.headerFields[.location] == web.configuration.signedOutPath)
        #expect(everywhere.headerFields[values: .setCookie].contains { $0.hasPrefix(web.configuration.sessionCookieName + "=;") })
        #expect(await web.resolveSession(cookie: laptopCookie).identity == nil)
        #expect(await web.resolveSession(cookie: tabletCookie).identity == nil)
    }
}
