import AuthHub
import AuthHubFactors
import AuthHubTesting
import AuthHubWebCore
import AuthHubWebTestSupport
import Foundation
import HTTPTypes
import Testing

/// The web core's sign-in form for providers without a redirect, against the emulator's Firebase
/// and Openfort projects over HTTP: the form bound to its pre-session (CSRF, origin, once), a wrong
/// password shown again, Firebase's own TOTP as the second step, AuthHub-held factors after
/// Openfort's password, a step-up through the form (same user only), and the password and profile
/// pages.
@Suite struct SignInFormTests {
    typealias Browser = StepUpTests.Browser
    static let origin = "http://127.0.0.1:8080"
    static let email = PasswordWebEnvironment.email
    static let password = PasswordWebEnvironment.password

    static func html(_ response: WebResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    func environment(origin: String = Self.origin) async throws -> (PasswordWebEnvironment, AuthHubWeb) {
        let environment = try await PasswordWebEnvironment.make(base: URL(string: origin)!)
        do {
            return (environment, try AuthHubWeb(hub: environment.hub, configuration: WebSignInConfiguration(publicBaseURL: URL(string: origin)!)))
        } catch {
            await environment.tearDown()
            throw error
        }
    }

    /// The form (GET login) and its pre-session cookie and CSRF token.
    func form(_ web: AuthHubWeb, _ browser: Browser, provider: String, query: String = "") async throws -> (WebResponse, pre: String, csrf: String) {
        let page = await web.login(browser.request("/auth/login?provider=\(provider)&returnTo=%2Fme" + query, cookies: []))
        let pre = try #require(Browser.cookie(web.configuration.preSessionCookieName, in: page), "\(page.status) \(Self.html(page).prefix(300))")
        let csrf = try #require(SecondFactorPageTests.field("csrf", in: Self.html(page)))
        return (page, pre, csrf)
    }

    func submit(_ web: AuthHubWeb, _ browser: Browser, pre: String, csrf: String, password: String = Self.password,
                email: String = Self.email, origin: String = Self.origin) async -> WebResponse {
        await web.submitLogin(browser.form("/auth/login", cookies: [(web.configuration.preSessionCookieName, pre)],
                                           fields: [("csrf", csrf), ("email", email), ("password", password)], origin: origin))
    }

    /// Signs in through the form; the browser keeps the session cookie.
    func signIn(_ web: AuthHubWeb, _ browser: inout Browser, provider: String) async throws -> WebResponse {
        let (_, pre, csrf) = try await form(web, browser, provider: provider)
        let done = await submit(web, browser, pre: pre, csrf: csrf)
        if let sid = Browser.cookie(web.configuration.sessionCookieName, in: done), !sid.isEmpty { browser.session = sid }
        return done
    }

    @Test func theFormSignsInWithFirebaseAndRefusesWhatItShould() async throws {
        let (environment, web) = try await environment()
        defer { Task { await environment.tearDown() } }
        var browser = Browser(web: web)
        #expect(web.signInProviderIDs == ["firebase", "openfort", "turnkey"], "the form for two, the passkey page for Turnkey")

        let (page, pre, csrf) = try await form(web, browser, provider: "firebase")
        let html = Self.html(page)
        #expect(page.status == .ok && html.contains("autocomplete=\"current-password\"") && html.contains("Sign in"), "\(html.prefix(400))")
        #expect(page.headerFields[.contentSecurityPolicy]?.contains("form-action 'self'") == true)

        // Refused: another origin; no or a wrong CSRF token (the pre-session is used up each time).
        #expect(await submit(web, browser, pre: pre, csrf: csrf, origin: "https://evil.example").status == .forbidden)
        let (_, pre2, _) = try await form(web, browser, provider: "firebase")
        #expect(await submit(web, browser, pre: pre2, csrf: "forged").status == .forbidden)
        #expect(await submit(web, browser, pre: pre2, csrf: csrf).status == .badRequest, "a pre-session is taken once")
        #expect(await submit(web, browser, pre: "unknown", csrf: csrf).status == .badRequest)

        // A wrong password: the form again (401) with the address kept, under a new pre-session.
        let (_, pre3, csrf3) = try await form(web, browser, provider: "firebase")
        let wrong = await submit(web, browser, pre: pre3, csrf: csrf3, password: "not the password")
        let wrongHTML = Self.html(wrong)
        #expect(wrong.status == .unauthorized && wrongHTML.contains("Wrong email or password.") && wrongHTML.contains("value=\"\(Self.email)\""))
        #expect(!wrongHTML.contains("not the password"), "the password is never echoed")
        let pre4 = try #require(Browser.cookie(web.configuration.preSessionCookieName, in: wrong))
        let csrf4 = try #require(SecondFactorPageTests.field("csrf", in: wrongHTML))
        #expect(pre4 != pre3 && csrf4 != csrf3)

        // The right password: the session, its cookie, the return path; the time of the check kept.
        let done = await submit(web, browser, pre: pre4, csrf: csrf4)
        #expect(done.status == .seeOther && done.headerFields[.location] == "/me", "\(done.status) \(Self.html(done).prefix(300))")
        browser.session = try #require(Browser.cookie(web.configuration.sessionCookieName, in: done))
        let identity = try #require(await web.resolveSession(cookie: browser.session ?? "").identity)
        #expect(identity.provider == "firebase" && identity.email == Self.email)
        #expect(web.isRecentlyAuthenticated(identity, within: .seconds(60)))
        #expect(done.headerFields[values: .setCookie].contains { $0.hasPrefix(web.configuration.preSessionCookieName + "=;") || $0.contains("Max-Age=0") })

        // A provider that cannot sign in from a browser, or an unknown one: 404.
        #expect(await web.login(browser.request("/auth/login?provider=nobody", cookies: [])).status == .notFound)
    }

    @Test func firebasesOwnTOTPIsTheSecondStepAfterTheForm() async throws {
        let (environment, web) = try await environment()
        defer { Task { await environment.tearDown() } }
        let clock = try #require(environment.clock)
        var browser = Browser(web: web)
        _ = try await signIn(web, &browser, provider: "firebase")
        let account = try #require(web.account(ofSessionCookie: browser.session ?? ""))
        let challenge = try await environment.hub.startMethodEnrollment(.totp, provider: "firebase", account: account)
        guard case .totp(let uri, _) = challenge.prompt else { Issue.record("not a TOTP prompt"); return }
        let totp = try OTPAuthURI(parsing: uri).totp(skew: 0)
        try await environment.hub.confirmMethodEnrollment(challenge, response: .code(try totp.code(at: clock.now)), provider: "firebase", account: account)

        // The next sign-in stops at the second step: a page of AuthHub's own, no session yet.
        var other = Browser(web: web)
        let (_, pre, csrf) = try await form(web, other, provider: "firebase")
        let step = await submit(web, other, pre: pre, csrf: csrf)
        #expect(step.status == .seeOther && step.headerFields[.location] == web.configuration.secondFactorPath, "\(step.status)")
        #expect(Browser.cookie(web.configuration.sessionCookieName, in: step) == nil)
        let stepCookie = try #require(Browser.cookie(web.configuration.secondStepCookieName, in: step))
        let cookies = [(web.configuration.secondStepCookieName, stepCookie)]
        let shown = await web.secondFactor(other.request(web.configuration.secondFactorPath, cookies: cookies))
        let shownHTML = Self.html(shown)
        #expect(shown.status == .ok && shownHTML.contains("ah-totp") && !shownHTML.contains("ah-recovery"), "Firebase offers TOTP only")
        let stepCSRF = try #require(SecondFactorPageTests.field("csrf", in: shownHTML))
        func answer(_ code: String) async -> WebResponse {
            await web.submitSecondFactor(other.form(web.configuration.secondFactorPath, cookies: cookies,
                                                    fields: [("csrf", stepCSRF), ("kind", "totp"), ("code", code)], origin: Self.origin))
        }
        // The enrollment's time step was used; the next one's code is within the window.
        let next = try totp.code(at: clock.now.addingTimeInterval(30)).revealed()
        let wrong = await answer(next == "000000" ? "111111" : "000000")
        #expect(wrong.status == .unauthorized && Self.html(wrong).contains("role=\"alert\""))
        let done = await answer(next)
        #expect(done.status == .seeOther && done.headerFields[.location] == "/me", "\(done.status) \(Self.html(done).prefix(300))")
        other.session = try #require(Browser.cookie(web.configuration.sessionCookieName, in: done))
        #expect(await web.resolveSession(cookie: other.session).identity?.email == Self.email)
        #expect(await answer(next).status == .badRequest, "the second step is used up")
    }

    @Test func heldFactorsAfterOpenfortsPasswordAndAStepUpThroughTheForm() async throws {
        let (environment, web) = try await environment()
        defer { Task { await environment.tearDown() } }
        let clock = try #require(environment.clock)
        var browser = Browser(web: web)
        #expect(try await signIn(web, &browser, provider: "openfort").status == .seeOther)
        let identity = try #require(await web.resolveSession(cookie: browser.session ?? "").identity)
        #expect(identity.claims["auth_time"] == nil && identity.authenticatedAt != nil, "Openfort sends no auth_time: the form's time stands in")
        let account = try #require(web.account(ofSessionCookie: browser.session ?? ""))
        let challenge = try await environment.hub.startMethodEnrollment(.totp, provider: "openfort", account: account)
        guard case .totp(let uri, _) = challenge.prompt else { Issue.record("not a TOTP prompt"); return }
        let totp = try OTPAuthURI(parsing: uri).totp(skew: 0)
        try await environment.hub.confirmMethodEnrollment(challenge, response: .code(try totp.code(at: clock.now)), provider: "openfort", account: account)

        // Later, deleting the account wants a recent sign-in: the form again, as a step-up.
        clock.advance(by: 700)
        let old = try #require(await web.resolveSession(cookie: browser.session ?? "").identity)
        let stepUp = try #require(web.requireRecentAuthentication(old, maxAge: .seconds(600), returnTo: "/account/confirm?action=delete-account"))
        let location = try #require(stepUp.headerFields[.location])
        let page = await web.login(browser.request(location, cookies: []))
        let pageHTML = Self.html(page)
        #expect(page.status == .ok && pageHTML.contains("Confirm it is you") && pageHTML.contains("value=\"\(Self.email)\""), "\(pageHTML.prefix(500))")
        let pre = try #require(Browser.cookie(web.configuration.preSessionCookieName, in: page))
        let csrf = try #require(SecondFactorPageTests.field("csrf", in: pageHTML))

        // Someone else's password is refused (403) and the browser keeps its session.
        _ = try await environment.hub.signUp(SignUpRequest(email: "mallory@example.com", password: Secret(Self.password)), provider: "openfort", account: "m")
        let refused = await submit(web, browser, pre: pre, csrf: csrf, email: "mallory@example.com")
        #expect(refused.status == .forbidden, "\(refused.status) \(Self.html(refused).prefix(300))")
        #expect(await web.resolveSession(cookie: browser.session).identity?.subject == identity.subject)

        // The user's own: AuthHub's second step, then back at the confirmation with a fresh sign-in.
        let (_, pre2, csrf2) = try await form(web, browser, provider: "openfort", query: "&maxAge=0")
        let step = await submit(web, browser, pre: pre2, csrf: csrf2)
        #expect(step.status == .seeOther && step.headerFields[.location] == web.configuration.secondFactorPath, "\(step.status)")
        let stepCookie = try #require(Browser.cookie(web.configuration.secondStepCookieName, in: step))
        let cookies = [(web.configuration.secondStepCookieName, stepCookie)]
        let shown = Self.html(await web.secondFactor(browser.request(web.configuration.secondFactorPath, cookies: cookies)))
        let stepCSRF = try #require(SecondFactorPageTests.field("csrf", in: shown))
        let done = await web.submitSecondFactor(browser.form(web.configuration.secondFactorPath, cookies: cookies,
                                                             fields: [("csrf", stepCSRF), ("kind", "totp"), ("code", try totp.code(at: clock.now).revealed())],
                                                             origin: Self.origin))
        #expect(done.status == .seeOther && done.headerFields[.location] == "/me", "\(done.status) \(Self.html(done).prefix(300))")
        browser.session = try #require(Browser.cookie(web.configuration.sessionCookieName, in: done))
        let fresh = try #require(await web.resolveSession(cookie: browser.session).identity)
        #expect(fresh.subject == identity.subject && web.requireRecentAuthentication(fresh, maxAge: .seconds(600), returnTo: "/account") == nil)
    }

    @Test func thePasswordAndProfilePagesChangeThemAtFirebase() async throws {
        let (environment, web) = try await environment()
        defer { Task { await environment.tearDown() } }
        let clock = try #require(environment.clock)
        var browser = Browser(web: web)
        _ = try await signIn(web, &browser, provider: "firebase")
        let overview = Self.html(await AccountPagesTests().get(web, browser, "/account"))
        #expect(overview.contains("Change your password") && overview.contains("Edit your profile"))

        let passwordPage = await web.accountEditPage(browser.request("/account/edit?what=password", cookies: []))
        let passwordHTML = Self.html(passwordPage)
        #expect(passwordPage.status == .ok && passwordHTML.contains("autocomplete=\"new-password\""), "\(passwordHTML.prefix(300))")
        let csrf = try #require(SecondFactorPageTests.field("csrf", in: passwordHTML))
        let differ = await web.accountAction(browser.form("/account", fields: [("csrf", csrf), ("action", "change-password"), ("new", "a new passphrase 1"),
                                                                            ("repeat", "a new passphrase 2")], origin: Self.origin))
        #expect(differ.status == .badRequest && Self.html(differ).contains("The two passwords differ."))
        let changed = await web.accountAction(browser.form("/account", fields: [("csrf", csrf), ("action", "change-password"),
                                                                             ("new", "a new passphrase 1"), ("repeat", "a new passphrase 1")],
                                                           origin: Self.origin))
        #expect(changed.status == .seeOther && changed.headerFields[.location] == "/account?done=passwordChanged", "\(Self.html(changed).prefix(300))")
        if let renewed = Browser.cookie(web.configuration.sessionCookieName, in: changed), !renewed.isEmpty { browser.session = renewed }
        _ = try await environment.hub.signIn(.password(identifier: Self.email, password: Secret("a new passphrase 1")), provider: "firebase", account: "check")

        let profile = await web.accountEditPage(browser.request("/account/edit?what=profile", cookies: []))
        let profileHTML = Self.html(profile)
        #expect(profile.status == .ok && profileHTML.contains("autocomplete=\"name\"") && profileHTML.contains("value=\"\(Self.email)\""))
        let profileCSRF = try #require(SecondFactorPageTests.field("csrf", in: profileHTML))
        let renamed = await web.accountAction(browser.form("/account", fields: [("csrf", profileCSRF), ("action", "change-profile"), ("name", "Tess Form"),
                                                                             ("email", Self.email)], origin: Self.origin))
        #expect(renamed.status == .seeOther && renamed.headerFields[.location] == "/account?done=profileChanged", "\(Self.html(renamed).prefix(300))")
        let account = try #require(web.account(ofSessionCookie: browser.session ?? ""))
        #expect(try await environment.hub.session(provider: "firebase", account: account).claims["name"]?.stringValue == "Tess Form")

        // Later, the pages want a recent sign-in first: the form again, back to the page.
        clock.advance(by: 700)
        let stale = await web.accountEditPage(browser.request("/account/edit?what=password", cookies: []))
        #expect(stale.status == .seeOther && stale.headerFields[.location]?.contains("maxAge=0") == true
                && stale.headerFields[.location]?.contains("provider=firebase") == true)
    }

    /// What the pages' script does with the passkey page: reads the options out of the page, signs
    /// them (here with the user's software passkey, in a browser with the platform's), and posts the
    /// assertion as WebAuthn's JSON.
    func passkeyAnswer(_ page: WebResponse, _ web: AuthHubWeb, _ browser: Browser, with authenticator: any PasskeyAuthenticator,
                       origin: String) async throws -> WebResponse {
        let html = Self.html(page)
        let pre = try #require(Browser.cookie(web.configuration.preSessionCookieName, in: page), "\(page.status) \(html.prefix(300))")
        let csrf = try #require(SecondFactorPageTests.field("csrf", in: html))
        let start = try #require(html.range(of: "data-ah-options=\""))
        let attribute = String(html[start.upperBound...].prefix { $0 != "\"" })
        let text = attribute.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#34;", with: "\"")
            .replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
        let options = try PasskeyAssertionOptions(json: try JSONValue.parse(Data(text.utf8)), origin: origin)
        let assertion = try await authenticator.getAssertion(options)
        let credential = String(decoding: try assertion.json.serialized(), as: UTF8.self)
        return await web.submitLogin(browser.form("/auth/login", cookies: [(web.configuration.preSessionCookieName, pre)],
                                                  fields: [("csrf", csrf), ("credential", credential)], origin: origin))
    }

    @Test func turnkeysPasskeyPageSignsInWithTheBrowsersAssertionAndStepsUpTheSameUser() async throws {
        let origin = "http://localhost:8080"
        let (environment, web) = try await environment(origin: origin)
        defer { Task { await environment.tearDown() } }
        let clock = try #require(environment.clock)
        var browser = Browser(web: web)
        let page = await web.login(browser.request("/auth/login?provider=turnkey&returnTo=%2Fme", cookies: []))
        let html = Self.html(page)
        #expect(page.status == .ok && html.contains("data-ah-passkey=\"get\"") && html.contains("Use your passkey"), "\(html.prefix(400))")
        #expect(!html.contains("sessionKey") && !html.contains("stamp_login"), "the provider's state stays on the server")

        // Not WebAuthn's JSON: the page again (400), under a new pre-session.
        let pre = try #require(Browser.cookie(web.configuration.preSessionCookieName, in: page))
        let csrf = try #require(SecondFactorPageTests.field("csrf", in: html))
        let junk = await web.submitLogin(browser.form("/auth/login", cookies: [(web.configuration.preSessionCookieName, pre)],
                                                      fields: [("csrf", csrf), ("credential", "{\"id\": 1}")], origin: origin))
        #expect(junk.status == .badRequest && Self.html(junk).contains("data-ah-options"))
        #expect(Browser.cookie(web.configuration.preSessionCookieName, in: junk) != pre)

        // A passkey Turnkey does not know for the organization: refused (401), the page again.
        let stranger = try SoftwarePasskeyAuthenticator(store: InMemoryPasskeyCredentialStore())
        _ = try await stranger.makeCredential(PasskeyRegistrationOptions(relyingParty: PasskeyRelyingParty(id: "localhost", name: "x"),
                                                                         user: PasskeyUser(id: [9, 9], name: "x", displayName: "x"),
                                                                         challenge: [1, 2, 3], origin: origin))
        let refused = try await passkeyAnswer(junk, web, browser, with: stranger, origin: origin)
        #expect(refused.status == .unauthorized, "\(refused.status) \(Self.html(refused).prefix(300))")

        // The user's passkey: signed in, back to the return path.
        let done = try await passkeyAnswer(refused, web, browser, with: environment.passkeys, origin: origin)
        #expect(done.status == .seeOther && done.headerFields[.location] == "/me", "\(done.status) \(Self.html(done).prefix(300))")
        browser.session = try #require(Browser.cookie(web.configuration.sessionCookieName, in: done))
        let identity = try #require(await web.resolveSession(cookie: browser.session).identity)
        #expect(identity.provider == "turnkey" && web.isRecentlyAuthenticated(identity, within: .seconds(60)))

        // Later, a step-up: the page names the user's account; the user's own passkey completes it.
        clock.advance(by: 700)
        let old = try #require(await web.resolveSession(cookie: browser.session).identity)
        let location = try #require(web.requireRecentAuthentication(old, maxAge: .seconds(600), returnTo: "/account")?.headerFields[.location])
        let stepUp = await web.login(browser.request(location, cookies: []))
        #expect(stepUp.status == .ok && Self.html(stepUp).contains("Confirm it is you"), "\(stepUp.status) \(Self.html(stepUp).prefix(300))")
        let again = try await passkeyAnswer(stepUp, web, browser, with: environment.passkeys, origin: origin)
        #expect(again.status == .seeOther && again.headerFields[.location] == "/account", "\(again.status) \(Self.html(again).prefix(300))")
        browser.session = try #require(Browser.cookie(web.configuration.sessionCookieName, in: again))
        let fresh = try #require(await web.resolveSession(cookie: browser.session).identity)
        #expect(fresh.subject == identity.subject && web.isRecentlyAuthenticated(fresh, within: .seconds(60)))
    }
}
