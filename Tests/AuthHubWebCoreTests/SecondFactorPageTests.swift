import AuthHub
import AuthHubFactors
import AuthHubTesting
import AuthHubWebCore
import AuthHubWebTestSupport
import Foundation
import HTTPTypes
import Testing

/// The web core's second step for AuthHub-held factors, through its own routes against the
/// emulator's Auth0 tenant: the callback sends the browser to `/auth/second-factor` without a
/// session; the page (HTML from the templates, CSP with a nonce, CSRF) takes a TOTP or recovery
/// code; the right one sets the session cookie.
@Suite struct SecondFactorPageTests {
    typealias Browser = StepUpTests.Browser
    static let origin = "http://127.0.0.1:8080"

    func post(_ web: AuthHubWeb, _ browser: Browser, cookie: String, fields: [(String, String)], origin: String = Self.origin) async -> WebResponse {
        await web.submitSecondFactor(browser.form("/auth/second-factor", cookies: [(web.configuration.secondStepCookieName, cookie)],
                                                  fields: fields, origin: origin))
    }

    static func html(_ response: WebResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    static func field(_ name: String, in html: String) -> String? {
        guard let range = html.range(of: "name=\"\(name)\" value=\"") else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "\"" })
    }

    @Test func aHeldTOTPIsAskedForOnItsPageAndSetsTheSession() async throws {
        let environment = try await EmulatorWebEnvironment.make()
        defer { Task { await environment.tearDown() } }
        let hub = environment.hub
        let service = try HeldFactors(store: hub.heldFactorStore, providers: ["auth0"], kinds: [.totp, .recoveryCode], issuer: "Web tests",
                                      clock: environment.clock)
        hub.useHeldFactors(service)
        let web = try AuthHubWeb(hub: hub, configuration: WebSignInConfiguration(publicBaseURL: URL(string: Self.origin)!))
        var browser = Browser(web: web)
        // No factor yet: the callback signs in at once.
        #expect(try await StepUpTests().signIn(&browser, query: "", approve: environment.approve).status == .found)
        let first = try #require(browser.session)
        let identity = try #require(await web.resolveSession(cookie: first).identity)
        let owner = HeldFactorOwner(provider: "auth0", user: try #require(identity.subject))
        let enrollment = try await service.startEnrollment(.totp, options: MethodEnrollmentOptions(), owner: owner)
        guard case .totp(let uri, _) = enrollment.prompt else { Issue.record("not TOTP"); return }
        let totp = try OTPAuthURI(parsing: uri).totp(skew: 0)
        _ = try await service.confirmEnrollment(enrollment, response: .code(try totp.code(at: environment.clock.now)), owner: owner)
        let codesChallenge = try await service.startEnrollment(.recoveryCodes, options: MethodEnrollmentOptions(), owner: owner)
        guard case .recoveryCodes(let codes) = codesChallenge.prompt else { Issue.record("not codes"); return }
        _ = try await service.confirmEnrollment(codesChallenge, response: .acknowledged, owner: owner)

        // Signing in again: the provider says yes, AuthHub asks for the second factor on its page.
        let callback = try await StepUpTests().signIn(&browser, query: "", approve: environment.approve)
        #expect(callback.status == .seeOther && callback.headerFields[.location] == "/auth/second-factor")
        #expect(browser.session == first, "no new session cookie before the second step")
        let waiting = try #require(Browser.cookie(web.configuration.secondStepCookieName, in: callback))
        let page = await web.secondFactor(browser.request("/auth/second-factor", cookies: [(web.configuration.secondStepCookieName, waiting)]))
        #expect(page.status == .ok && page.headerFields[.contentType] == "text/html; charset=utf-8")
        let html = Self.html(page)
        let csp = try #require(page.headerFields[.contentSecurityPolicy])
        let nonce = try #require(csp.range(of: "script-src 'nonce-").map { String(csp[$0.upperBound...].prefix { $0 != "'" }) })
        #expect(csp.contains("default-src 'none'") && csp.contains("frame-ancestors 'none'") && csp.contains("form-action 'self'"))
        #expect(html.contains("<style nonce=\"\(nonce)\">"), "the stylesheet runs under the response's nonce")
        #expect(html.contains("<label for=\"ah-totp\">") && html.contains("autocomplete=\"one-time-code\"") && html.contains("<html lang=\"en\">"))
        #expect(html.contains("Use a recovery code instead"))
        let csrf = try #require(Self.field("csrf", in: html))
        let second = await web.secondFactor(browser.request("/auth/second-factor", cookies: [(web.configuration.secondStepCookieName, waiting)]))
        #expect(second.headerFields[.contentSecurityPolicy] != csp, "a new nonce per response")

        // Refused: another origin, a wrong CSRF token, a wrong code (the page again, with the error).
        #expect(await post(web, browser, cookie: waiting, fields: [("csrf", csrf), ("kind", "totp"), ("code", "123456")],
                           origin: "https://evil.example").status == .forbidden)
        #expect(await post(web, browser, cookie: waiting, fields: [("csrf", "x" + csrf.dropFirst()), ("kind", "totp"), ("code", "123456")]).status == .forbidden)
        environment.clock.advance(by: 30)
        let right = try totp.code(at: environment.clock.now).revealed()
        let wrong = await post(web, browser, cookie: waiting, fields: [("csrf", csrf), ("kind", "totp"), ("code", right == "000000" ? "111111" : "000000")])
        #expect(wrong.status == .unauthorized && Self.html(wrong).contains("role=\"alert\""))
        #expect(await web.resolveSession(cookie: first).identity != nil, "the browser's old session is untouched meanwhile")

        let done = await post(web, browser, cookie: waiting, fields: [("csrf", csrf), ("kind", "totp"), ("code", right)])
        #expect(done.status == .seeOther)
        #expect(done.headerFields[HTTPField.Name.location] == "/me")
        let session = try #require(Browser.cookie(web.configuration.sessionCookieName, in: done))
        #expect(Browser.cookie(web.configuration.secondStepCookieName, in: done) == "", "the second-step cookie is cleared")
        #expect(await web.resolveSession(cookie: session).identity?.subject == identity.subject)
        #expect(await web.resolveSession(cookie: first).identity == nil, "the session it replaced is retired")
        // The same form again: the sign-in is over.
        #expect(await post(web, browser, cookie: waiting, fields: [("csrf", csrf), ("kind", "totp"), ("code", right)]).status == .badRequest)

        // A recovery code works too, once.
        browser.session = session
        let again = try await StepUpTests().signIn(&browser, query: "", approve: environment.approve)
        let waiting2 = try #require(Browser.cookie(web.configuration.secondStepCookieName, in: again))
        let csrf2 = try #require(Self.field("csrf", in: Self.html(await web.secondFactor(
            browser.request("/auth/second-factor", cookies: [(web.configuration.secondStepCookieName, waiting2)])))))
        let byCode = await post(web, browser, cookie: waiting2, fields: [("csrf", csrf2), ("kind", "recoveryCode"), ("code", codes[0].revealed())])
        #expect(byCode.status == .seeOther, "\(Self.html(byCode))")
    }

    @Test func noWaitingSignInIsAPageToSignInAgain() async throws {
        let environment = try await EmulatorWebEnvironment.make()
        defer { Task { await environment.tearDown() } }
        let web = try AuthHubWeb(hub: environment.hub, configuration: WebSignInConfiguration(publicBaseURL: URL(string: Self.origin)!))
        let browser = Browser(web: web)
        let page = await web.secondFactor(browser.request("/auth/second-factor", cookies: [(web.configuration.secondStepCookieName, "made-up")]))
        #expect(page.status == .badRequest && Self.html(page).contains("This sign-in is over"))
        // A template that does not parse, or an unknown name, is a configuration error.
        var configuration = WebSignInConfiguration(publicBaseURL: URL(string: Self.origin)!)
        configuration.pages = WebPages(templates: ["second-factor": "{{#open}}"])
        #expect(throws: AuthError(.invalidConfiguration)) { _ = try AuthHubWeb(hub: environment.hub, configuration: configuration) }
        configuration.pages = WebPages(templates: ["nope": "x"])
        #expect(throws: AuthError(.invalidConfiguration)) { _ = try AuthHubWeb(hub: environment.hub, configuration: configuration) }
        // Strings and templates are the app's to change.
        configuration.pages = WebPages(templates: ["message": "<p class=mine>{{heading}}</p>"], strings: ["expiredTitle": "Session terminée"])
        let themed = try AuthHubWeb(hub: environment.hub, configuration: configuration)
        let html = Self.html(await themed.secondFactor(browser.request("/auth/second-factor", cookies: [])))
        #expect(html.contains("<p class=mine>Session terminée</p>"), "\(html)")
    }
}

/// Passkeys on the pages: the second step answered with a held passkey through the page's options,
/// and a passkey added on the account page (the registration posted as WebAuthn's JSON, as the
/// page's script does).
@Suite struct PasskeyPagesTests {
    typealias Browser = StepUpTests.Browser
    static let origin = "http://localhost:8080"

    static func attribute(_ name: String, in html: String) -> String? {
        guard let range = html.range(of: "\(name)=\"") else { return nil }
        let raw = String(html[range.upperBound...].prefix { $0 != "\"" })
        return raw.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
    }

    @Test func aHeldPasskeyAnswersTheSecondStepThroughThePage() async throws {
        let environment = try await EmulatorWebEnvironment.make()
        defer { Task { await environment.tearDown() } }
        let hub = environment.hub
        let service = try HeldFactors(store: hub.heldFactorStore, providers: ["auth0"], kinds: [.passkey, .recoveryCode], issuer: "Web",
                                      relyingParty: WebAuthnRelyingParty(id: "localhost", origins: [Self.origin]), clock: environment.clock)
        hub.useHeldFactors(service)
        let web = try AuthHubWeb(hub: hub, configuration: WebSignInConfiguration(publicBaseURL: URL(string: Self.origin)!))
        var browser = Browser(web: web)
        _ = try await StepUpTests().signIn(&browser, query: "", approve: environment.approve)
        let identity = try #require(await web.resolveSession(cookie: try #require(browser.session)).identity)
        let owner = HeldFactorOwner(provider: "auth0", user: try #require(identity.subject))
        let authenticator = try SoftwarePasskeyAuthenticator(store: InMemoryPasskeyCredentialStore())
        let enrollment = try await service.startEnrollment(.passkey, options: MethodEnrollmentOptions(origin: Self.origin), owner: owner)
        guard case .passkey(let creation) = enrollment.prompt else { Issue.record("not a passkey"); return }
        _ = try await service.confirmEnrollment(enrollment, response: .passkey(try await authenticator.makeCredential(creation)), owner: owner)

        let callback = try await StepUpTests().signIn(&browser, query: "", approve: environment.approve)
        let waiting = try #require(Browser.cookie(web.configuration.secondStepCookieName, in: callback))
        let cookies = [(web.configuration.secondStepCookieName, waiting)]
        let page = await web.secondFactor(browser.request("/auth/second-factor", cookies: cookies))
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(html.contains("data-ah-passkey=\"get\"") && html.contains("<script nonce="), "the page's own script, under the nonce")
        #expect(!html.contains("src=\"http"), "no third-party script")
        let csrf = try #require(SecondFactorPageTests.field("csrf", in: html))
        let options = try PasskeyAssertionOptions(json: try JSONValue.parse(Data(try #require(Self.attribute("data-ah-options", in: html)).utf8)),
                                                  origin: Self.origin)
        let assertion = try await authenticator.getAssertion(options)
        let json = String(decoding: try assertion.json.serialized(), as: UTF8.self)
        let garbled = await web.submitSecondFactor(browser.form("/auth/second-factor", cookies: cookies,
                                                               fields: [("csrf", csrf), ("kind", "passkey"), ("credential", "{not json")], origin: Self.origin))
        #expect(garbled.status == .badRequest)
        let done = await web.submitSecondFactor(browser.form("/auth/second-factor", cookies: cookies,
                                                            fields: [("csrf", csrf), ("kind", "passkey"), ("credential", json)], origin: Self.origin))
        #expect(done.status == .seeOther, "\(String(decoding: done.body, as: UTF8.self))")
        let session = try #require(Browser.cookie(web.configuration.sessionCookieName, in: done))
        #expect(await web.resolveSession(cookie: session).identity?.subject == identity.subject)
    }
}
