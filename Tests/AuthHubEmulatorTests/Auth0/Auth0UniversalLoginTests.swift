import AuthHub
import AuthHubEmulator
import AuthHubFactors
import AuthHubTesting
import Foundation
import Testing

/// A browser's view of Universal Login against the emulator: the `auth0` session cookie is kept
/// by hand (the transport stores no cookies), every request is built from spec/auth0.md §1.
struct Auth0Browser {
    let wire: Auth0Wire
    let pkce = pkcePair()

    func authorizePath(_ extra: [(String, String)] = []) -> String {
        "/auth0/authorize?" + queryString([
            ("client_id", Auth0Wire.clientId), ("redirect_uri", Auth0Wire.redirectURI), ("response_type", "code"),
            ("scope", "openid profile email offline_access"), ("state", "st"), ("nonce", "nn"),
            ("code_challenge", pkce.challenge), ("code_challenge_method", "S256"),
        ] + extra)
    }

    /// `GET /authorize`, with the cookie when given.
    func authorize(_ extra: [(String, String)] = [], cookie: String? = nil, headerFields headers: HTTPFields = [:]) async throws -> Auth0Wire.Reply {
        var all = headers
        if let cookie { all["Cookie"] = cookie }
        return try await wire.get(authorizePath(extra), headerFields: all)
    }

    /// Posts a page's form, with the cookie when given.
    func post(_ path: String, _ fields: [(String, String)], cookie: String? = nil) async throws -> Auth0Wire.Reply {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let body = fields.map { "\($0)=\($1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&")
        var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
        if let cookie { headers["Cookie"] = cookie }
        return try await wire.send(.post, path, headerFields: headers, body: Data(body.utf8))
    }

    /// The code exchange (spec §1.5).
    func exchange(_ code: String) async throws -> Auth0Wire.Reply {
        try await wire.post("/auth0/oauth/token", json: [
            "client_id": .string(Auth0Wire.clientId), "grant_type": "authorization_code", "code": .string(code),
            "code_verifier": .string(pkce.verifier), "redirect_uri": .string(Auth0Wire.redirectURI),
        ])
    }

    /// The claims of the ID token the code of `reply` is exchanged for.
    func idClaims(_ reply: Auth0Wire.Reply) async throws -> [String: JSONValue] {
        let tokens = try await exchange(try #require(reply.query("code")))
        return try await wire.verifiedClaims(try #require(tokens.json?["id_token"]?.stringValue))
    }

    /// Logs in through the login page: → the reply to the form post.
    func logIn(_ email: String, password: String = "correct horse battery", extra: [(String, String)] = [],
               cookie: String? = nil, fields: [(String, String)] = []) async throws -> Auth0Wire.Reply {
        let page = try await authorize(extra, cookie: cookie)
        #expect(page.status == 200, "the login page is shown")
        return try await post("/auth0/u/login", [
            ("transaction", try transaction(of: page)), ("email", email), ("password", password),
        ] + fields, cookie: cookie)
    }
}

/// The hidden transaction field of a page.
func transaction(of page: Auth0Wire.Reply) throws -> String {
    try #require(page.text.firstMatch(of: /name="transaction" value="([^"]+)"/)?.1).description
}

/// `auth0=<value>` of a reply's `Set-Cookie`, ready for a `Cookie` header.
func sessionCookie(_ reply: Auth0Wire.Reply) -> String? {
    guard let header = reply.headerFields["Set-Cookie"], header.hasPrefix("auth0="),
          let pair = header.split(separator: ";").first, pair.count > "auth0=".count
    else { return nil }
    return String(pair)
}

@Suite struct Auth0SessionTests {
    @Test func aLoginPageSessionCompletesLaterAuthorizeWithTheOriginalAuthTime() async throws {
        let clock = FakeClock()
        let emulator = try await Emulator.start(EmulatorConfiguration(clock: clock))
        let browser = Auth0Browser(wire: Auth0Wire(emulator: emulator))
        try await browser.wire.seed("sso@example.com")
        let loginTime = clock.now.timeIntervalSince1970.rounded(.down)

        let login = try await browser.logIn("sso@example.com")
        let cookie = try #require(sessionCookie(login))
        clock.advance(by: 600)
        let silent = try await browser.authorize(cookie: cookie)
        let silentClaims = try await browser.idClaims(silent)
        let promptNone = try await browser.authorize([("prompt", "none")], cookie: cookie)
        let noneWithout = try await browser.authorize([("prompt", "none")])
        let without = try await browser.authorize()
        let forged = try await browser.authorize(cookie: "auth0=" + String(repeating: "A", count: 43))
        let hostile = try await browser.authorize(cookie: "auth0=" + String(repeating: "A", count: 5_000))
        clock.advance(by: 4 * 86_400)
        let idle = try await browser.authorize(cookie: cookie)
        await emulator.stop()

        #expect(login.status == 302)
        #expect(login.query("code") != nil)
        let setCookie = try #require(login.headerFields["Set-Cookie"])
        #expect(setCookie.contains("Path=/auth0"))
        #expect(setCookie.contains("HttpOnly"))
        #expect(!setCookie.contains("SameSite"), "plain-http loopback: no SameSite=None without Secure")
        #expect(cookie.count > "auth0=".count + 30)
        #expect(silent.status == 302)
        #expect(silent.query("state") == "st")
        #expect(silentClaims["auth_time"]?.doubleValue == loginTime, "auth_time is the session's login, not now")
        #expect(silentClaims["iat"]?.doubleValue == loginTime + 600)
        #expect(promptNone.status == 302)
        #expect(promptNone.query("code") != nil)
        #expect(noneWithout.query("error") == "login_required")
        #expect(without.status == 200)
        #expect(forged.status == 200)
        #expect(hostile.status == 200)
        #expect(idle.status == 200, "a session idle for more than 3 days is over")
    }

    @Test func promptLoginAndMaxAgeAskForCredentialsAgain() async throws {
        let clock = FakeClock()
        let emulator = try await Emulator.start(EmulatorConfiguration(clock: clock))
        let browser = Auth0Browser(wire: Auth0Wire(emulator: emulator))
        try await browser.wire.seed("again@example.com")
        let firstTime = clock.now.timeIntervalSince1970.rounded(.down)
        let first = try await browser.logIn("again@example.com")
        let cookie = try #require(sessionCookie(first))
        clock.advance(by: 100)

        let promptLogin = try await browser.authorize([("prompt", "login")], cookie: cookie)
        let exceeded = try await browser.authorize([("max_age", "60")], cookie: cookie)
        let exceededSilently = try await browser.authorize([("max_age", "60"), ("prompt", "none")], cookie: cookie)
        let zero = try await browser.authorize([("max_age", "0")], cookie: cookie)
        let within = try await browser.authorize([("max_age", "3600")], cookie: cookie)
        let withinClaims = try await browser.idClaims(within)
        var badStatuses: [String: String?] = [:]
        for bad in ["-1", "abc", "1.5", "99999999999", "", "1e3", " 5", "315360001"] {
            badStatuses[bad] = try await browser.authorize([("max_age", bad)], cookie: cookie).query("error")
        }
        let badPrompt = try await browser.authorize([("prompt", "none login")], cookie: cookie)

        // Re-login (prompt=login) replaces the session; its auth_time is the new login time.
        let reloginTime = clock.now.timeIntervalSince1970.rounded(.down)
        let relogin = try await browser.logIn("again@example.com", extra: [("prompt", "login"), ("max_age", "60")], cookie: cookie)
        let newCookie = try #require(sessionCookie(relogin))
        let reloginClaims = try await browser.idClaims(relogin)
        clock.advance(by: 30)
        let fresh = try await browser.authorize([("max_age", "60")], cookie: newCookie)
        let freshClaims = try await browser.idClaims(fresh)
        let oldSession = try await browser.authorize(cookie: cookie)
        await emulator.stop()

        #expect(promptLogin.status == 200)
        #expect(promptLogin.text.contains("action=\"/auth0/u/login\""))
        #expect(exceeded.status == 200)
        #expect(exceededSilently.query("error") == "login_required")
        #expect(zero.status == 200)
        #expect(within.status == 302)
        #expect(withinClaims["auth_time"]?.doubleValue == firstTime)
        for (value, error) in badStatuses {
            #expect(error == "invalid_request", "max_age=\(value)")
        }
        #expect(badPrompt.query("error") == "invalid_request")
        #expect(relogin.status == 302)
        #expect(newCookie != cookie)
        #expect(reloginClaims["auth_time"]?.doubleValue == reloginTime)
        #expect(fresh.status == 302)
        #expect(freshClaims["auth_time"]?.doubleValue == reloginTime)
        #expect(oldSession.status == 200, "the replaced session is gone")
    }

    @Test func logoutEndsTheSessionAndTheHookStartsOne() async throws {
        let emulator = try await Emulator.start()
        let browser = Auth0Browser(wire: Auth0Wire(emulator: emulator))
        try await browser.wire.seed("bye@example.com")
        let hooked = try await browser.authorize(headerFields: [HTTPField.Name.constant("X-AuthHub-Emulator-User"): "bye@example.com"])
        let cookie = try #require(sessionCookie(hooked))
        let before = try await browser.authorize(cookie: cookie)
        let returnTo = queryString([("returnTo", Auth0Wire.redirectURI), ("client_id", Auth0Wire.clientId)])
        let refused = try await browser.wire.get("/auth0/v2/logout?" + queryString([("returnTo", "not a url"), ("client_id", "x")]),
                                                 headerFields: [.cookie: cookie])
        let stillIn = try await browser.authorize(cookie: cookie)
        let logout = try await browser.wire.get("/auth0/v2/logout?" + returnTo, headerFields: [.cookie: cookie])
        let after = try await browser.authorize(cookie: cookie)
        let silentAfter = try await browser.authorize([("prompt", "none")], cookie: cookie)

        let second = try #require(sessionCookie(try await browser.logIn("bye@example.com")))
        let federated = try await browser.wire.get("/auth0/v2/logout?federated&" + returnTo, headerFields: [.cookie: second])
        let afterFederated = try await browser.authorize(cookie: second)
        await emulator.stop()

        #expect(hooked.status == 302)
        #expect(before.status == 302)
        #expect(refused.status == 400)
        #expect(stillIn.status == 302, "a refused logout leaves the session alone")
        #expect(logout.status == 302)
        #expect(logout.headerFields["Location"] == Auth0Wire.redirectURI)
        let cleared = try #require(logout.headerFields["Set-Cookie"])
        #expect(cleared.hasPrefix("auth0=;"))
        #expect(cleared.contains("Max-Age=0"))
        #expect(cleared.contains("Path=/auth0"))
        #expect(after.status == 200)
        #expect(silentAfter.query("error") == "login_required")
        #expect(federated.status == 302)
        #expect(federated.headerFields["Location"] == Auth0Wire.redirectURI)
        #expect(afterFederated.status == 200)
    }

    @Test func screenHintSignupServesTheSignupPageAndCreatesTheUser() async throws {
        let emulator = try await Emulator.start()
        let browser = Auth0Browser(wire: Auth0Wire(emulator: emulator))
        try await browser.wire.seed("taken@example.com")
        let page = try await browser.authorize([("screen_hint", "signup")])
        let flow = try transaction(of: page)
        let weak = try await browser.post("/auth0/u/signup", [("transaction", flow), ("email", "new@example.com"), ("password", "short")])
        let taken = try await browser.post("/auth0/u/signup", [("transaction", flow), ("email", "taken@example.com"), ("password", "long enough pw")])
        let badEmail = try await browser.post("/auth0/u/signup", [("transaction", flow), ("email", "not-an-email"), ("password", "long enough pw")])
        let created = try await browser.post("/auth0/u/signup", [("transaction", flow), ("email", "New@Example.com"), ("password", "long enough pw")])
        let cookie = try #require(sessionCookie(created))
        let claims = try await browser.idClaims(created)
        let users = try await browser.wire.get("/auth0/__emulator/users")
        let ropg = try await browser.wire.login("new@example.com", password: "long enough pw")
        let withSession = try await browser.authorize([("screen_hint", "signup")], cookie: cookie)
        let forced = try await browser.authorize([("screen_hint", "signup"), ("prompt", "login")], cookie: cookie)
        let reused = try await browser.post("/auth0/u/signup", [("transaction", flow), ("email", "other@example.com"), ("password", "long enough pw")])
        await emulator.stop()

        #expect(page.status == 200)
        #expect(page.text.contains("action=\"/auth0/u/signup\""))
        #expect(page.text.contains("Sign up"))
        #expect(weak.status == 400)
        #expect(weak.text.contains("Password is too weak"))
        #expect(weak.text.contains("At least 8 characters in length"))
        #expect(taken.status == 409)
        #expect(taken.text.contains("The user already exists."))
        #expect(badEmail.status == 400)
        #expect(badEmail.text.contains("Invalid email address."))
        #expect(created.status == 302)
        #expect(claims["email"] == "new@example.com")
        let listed = users.json?["users"]?.arrayValue?.first { $0["email"] == "new@example.com" }
        #expect(listed?["connection"] == "Username-Password-Authentication")
        #expect(claims["sub"] == listed?["user_id"])
        #expect(ropg.status == 200, "the password set on the page works")
        #expect(withSession.status == 302, "screen_hint=signup with a session redirects straight back")
        #expect(forced.status == 200)
        #expect(forced.text.contains("action=\"/auth0/u/signup\""))
        #expect(reused.status == 400, "the transaction was spent")
    }
}

@Suite struct Auth0OrganizationTests {
    @Test func organizationsAdmitMembersAndInviteesAndPutOrgClaimsInTokens() async throws {
        let emulator = try await Emulator.start()
        let browser = Auth0Browser(wire: Auth0Wire(emulator: emulator))
        try await browser.wire.seed("member@example.com")
        try await browser.wire.seed("guest@example.com")
        let created = try await browser.wire.post("/auth0/__emulator/organizations", json: [
            "name": "acme", "display_name": "Acme Corp", "members": ["Member@Example.com"],
        ])
        let orgId = try #require(created.json?["id"]?.stringValue)
        let duplicate = try await browser.wire.post("/auth0/__emulator/organizations", json: ["name": "acme"])
        var badNames: [Int] = []
        for bad: JSONValue in ["Acme", "", "-acme", "a b", .string(String(repeating: "a", count: 51)), "org name"] {
            badNames.append(try await browser.wire.post("/auth0/__emulator/organizations", json: ["name": bad]).status)
        }
        let badMembers = try await browser.wire.post("/auth0/__emulator/organizations", json: ["name": "other", "members": ["nope"]])

        let unknown = try await browser.authorize([("organization", "org_doesnotexist")])
        let hugeOrg = try await browser.authorize([("organization", String(repeating: "a", count: 5_000))])
        let hugeTicket = try await browser.authorize([("organization", orgId), ("invitation", String(repeating: "A", count: 5_000))])
        let member = try await browser.logIn("member@example.com", extra: [("organization", "ACME")])
        let memberTokens = try await browser.exchange(try #require(member.query("code")))
        let memberClaims = try await browser.wire.verifiedClaims(try #require(memberTokens.json?["id_token"]?.stringValue))
        let refreshed = try await browser.wire.refresh(try #require(memberTokens.json?["refresh_token"]?.stringValue))
        let refreshedClaims = try await browser.wire.verifiedClaims(try #require(refreshed.json?["id_token"]?.stringValue))
        let outsider = try await browser.logIn("guest@example.com", extra: [("organization", orgId)])
        let hookOutsider = try await browser.authorize([("organization", orgId)], headerFields: [HTTPField.Name.constant("X-AuthHub-Emulator-User"): "guest@example.com"])
        let noOrg = try await browser.idClaims(try await browser.logIn("member@example.com"))

        // An invitation for guest@: the link carries invitation, organization and organization_name.
        let invited = try await browser.wire.post("/auth0/__emulator/organizations/\(orgId)/invitations", json: ["email": "guest@example.com"])
        let invitationURL = try #require(invited.json?["invitation_url"]?.stringValue)
        let link = try #require(URLComponents(string: invitationURL))
        let items = Dictionary(uniqueKeysWithValues: (link.queryItems ?? []).map { ($0.name, $0.value ?? "") })
        let ticket = try #require(items["invitation"])
        let missingOrg = try await browser.authorize([("invitation", ticket)])
        let wrongInvitee = try await browser.logIn("member@example.com", extra: [("organization", orgId), ("invitation", ticket)])
        let accepted = try await browser.logIn("guest@example.com", extra: [("organization", orgId), ("invitation", ticket)])
        let acceptedClaims = try await browser.idClaims(accepted)
        let spent = try await browser.authorize([("organization", orgId), ("invitation", ticket)])
        let nowMember = try await browser.logIn("guest@example.com", extra: [("organization", orgId)])
        let inviteUnknownOrg = try await browser.wire.post("/auth0/__emulator/organizations/org_nope/invitations", json: ["email": "a@example.com"])

        // An invitee without an account signs up from the invitation.
        let newcomer = try await browser.wire.post("/auth0/__emulator/organizations/\(orgId)/invitations", json: ["email": "fresh@example.com"])
        let newTicket = try #require(newcomer.json?["ticket_id"]?.stringValue)
        let signupPage = try await browser.authorize([("organization", orgId), ("invitation", newTicket), ("screen_hint", "signup")])
        let strangerSignup = try await browser.post("/auth0/u/signup", [
            ("transaction", try transaction(of: signupPage)), ("email", "stranger@example.com"), ("password", "long enough pw"),
        ])
        let signedUp = try await browser.post("/auth0/u/signup", [
            ("transaction", try transaction(of: signupPage)), ("email", "fresh@example.com"), ("password", "long enough pw"),
        ])
        let signedUpClaims = try await browser.idClaims(signedUp)
        await emulator.stop()

        #expect(created.status == 201)
        #expect(orgId.hasPrefix("org_") && orgId.count == 20)
        #expect(created.json?["name"] == "acme")
        #expect(created.json?["members"] == ["member@example.com"])
        #expect(duplicate.status == 409)
        #expect(badNames.allSatisfy { $0 == 400 }, "\(badNames)")
        #expect(badMembers.status == 400)
        #expect(unknown.status == 302)
        #expect(unknown.query("error") == "invalid_request")
        #expect(hugeOrg.query("error") == "invalid_request")
        #expect(hugeTicket.query("error") == "invalid_request")
        #expect(member.status == 302)
        #expect(memberClaims["org_id"]?.stringValue == orgId)
        #expect(memberClaims["org_name"] == "acme")
        #expect(refreshed.status == 200)
        #expect(refreshedClaims["org_id"]?.stringValue == orgId, "a refresh keeps the organization")
        #expect(refreshedClaims["org_name"] == "acme")
        #expect(outsider.status == 403)
        #expect(outsider.text.contains("user is not part of the organization"))
        #expect(hookOutsider.query("error") == "access_denied")
        #expect(noOrg["org_id"] == nil)

        #expect(invited.status == 201)
        #expect(link.path.hasSuffix("/auth0/login"))
        #expect(items["organization"] == orgId)
        #expect(items["organization_name"] == "acme")
        #expect(invited.json?["ticket_id"]?.stringValue == ticket)
        #expect(missingOrg.query("error") == "invalid_request")
        #expect(wrongInvitee.status == 302, "a member logs in; the invitation is not theirs and stays")
        #expect(accepted.status == 302)
        #expect(acceptedClaims["org_id"]?.stringValue == orgId)
        #expect(spent.query("error") == "invalid_request", "the ticket was consumed")
        #expect(nowMember.status == 302, "the invitee is a member now")
        #expect(inviteUnknownOrg.status == 404)
        #expect(strangerSignup.status == 403)
        #expect(strangerSignup.text.contains("user is not part of the organization"))
        #expect(signedUp.status == 302)
        #expect(signedUpClaims["org_id"]?.stringValue == orgId)
        #expect(signedUpClaims["email"] == "fresh@example.com")
    }
}

@Suite struct Auth0LoginPageProtectionTests {
    @Test func mfaRequiredUsersEnrollTOTPOnTheLoginPage() async throws {
        let clock = FakeClock()
        let emulator = try await Emulator.start(EmulatorConfiguration(clock: clock))
        let browser = Auth0Browser(wire: Auth0Wire(emulator: emulator))
        try await browser.wire.seed("enroll@example.com", extra: ["mfa_required": true])

        let page = try await browser.authorize()
        let flow = try transaction(of: page)
        let credentials = [("transaction", flow), ("email", "enroll@example.com"), ("password", "correct horse battery")]
        let step = try await browser.post("/auth0/u/login", credentials)
        let secret = try #require(step.text.firstMatch(of: /id="totp-secret">([A-Z2-7]+)</)?.1).description
        let uri = try #require(step.text.firstMatch(of: /id="totp-uri">([^<]+)</)?.1).description
        let totp = try TOTP(secret: Secret(try Base32.decode(secret)))
        let again = try await browser.post("/auth0/u/login", credentials)
        let wrong = try await browser.post("/auth0/u/login", credentials + [("otp", "000000" == totp.code(at: clock.now).revealed() ? "111111" : "000000")])
        let enrolled = try await browser.post("/auth0/u/login", credentials + [("otp", totp.code(at: clock.now).revealed())])
        let users = try await browser.wire.get("/auth0/__emulator/users")
        let ropg = try await browser.wire.login("enroll@example.com")

        clock.advance(by: 60)
        let next = try await browser.authorize()
        let nextFlow = try transaction(of: next)
        let nextCredentials = [("transaction", nextFlow), ("email", "enroll@example.com"), ("password", "correct horse battery")]
        let asked = try await browser.post("/auth0/u/login", nextCredentials)
        let passed = try await browser.post("/auth0/u/login", nextCredentials + [("otp", totp.code(at: clock.now).revealed())])
        await emulator.stop()

        #expect(step.status == 200)
        #expect(step.text.contains("name=\"otp\""))
        #expect(uri.hasPrefix("otpauth://totp/"))
        #expect(uri.contains("secret=\(secret)"))
        #expect(again.text.contains(secret), "the pending secret stays the same until confirmed")
        #expect(wrong.status == 400)
        #expect(wrong.text.contains("Invalid otp_code."))
        #expect(wrong.text.contains(secret))
        #expect(enrolled.status == 302)
        #expect(enrolled.query("code") != nil)
        let listed = users.json?["users"]?.arrayValue?.first { $0["email"] == "enroll@example.com" }
        #expect(listed?["mfa_enrolled"] == true)
        #expect(ropg.status == 403)
        #expect(ropg.json?["mfa_requirements"] == ["challenge": [["type": "otp"]]], "the page's authenticator is the user's")
        #expect(asked.status == 400)
        #expect(asked.text.contains("Enter the code from your authenticator app."))
        #expect(!asked.text.contains("totp-secret"), "an enrolled user is not shown the secret again")
        #expect(passed.status == 302)
    }

    @Test func botDetectionRefusesPasswordGrantsAndPutsACaptchaOnThePages() async throws {
        let emulator = try await Emulator.start()
        let browser = Auth0Browser(wire: Auth0Wire(emulator: emulator))
        try await browser.wire.seed("human@example.com")
        let before = try await browser.wire.login("human@example.com")
        let on = try await browser.wire.post("/auth0/__emulator/attack-protection", json: ["bot_detection": true])
        let bad = try await browser.wire.post("/auth0/__emulator/attack-protection", json: ["bot_detection": "yes"])
        let realm = try await browser.wire.login("human@example.com")
        let wrongPassword = try await browser.wire.login("human@example.com", password: "wrong wrong wrong")
        let password = try await browser.wire.post("/auth0/oauth/token", json: [
            "client_id": .string(Auth0Wire.clientId), "grant_type": "password", "username": "human@example.com",
            "password": "correct horse battery",
        ])
        let page = try await browser.authorize()
        let flow = try transaction(of: page)
        let credentials = [("transaction", flow), ("email", "human@example.com"), ("password", "correct horse battery")]
        let unticked = try await browser.post("/auth0/u/login", credentials)
        let ticked = try await browser.post("/auth0/u/login", credentials + [("captcha", "1")])
        let signupPage = try await browser.authorize([("screen_hint", "signup")])
        let off = try await browser.wire.post("/auth0/__emulator/attack-protection", json: ["bot_detection": false])
        let after = try await browser.wire.login("human@example.com")
        let plainPage = try await browser.authorize()
        await emulator.stop()

        #expect(before.status == 200)
        #expect(on.status == 200)
        #expect(on.json == ["bot_detection": true])
        #expect(bad.status == 400)
        #expect(realm.status == 401)
        #expect(realm.json == ["error": "requires_verification", "error_description": "Suspicious request requires verification"])
        #expect(wrongPassword.json?["error"] == "requires_verification", "checked before the password")
        #expect(password.status == 401)
        #expect(password.json?["error"] == "requires_verification")
        #expect(page.text.contains("name=\"captcha\""))
        #expect(page.text.contains("I am not a robot"))
        #expect(unticked.status == 400)
        #expect(unticked.text.contains("I am not a robot"))
        #expect(ticked.status == 302)
        #expect(signupPage.text.contains("name=\"captcha\""))
        #expect(off.json == ["bot_detection": false])
        #expect(after.status == 200)
        #expect(!plainPage.text.contains("name=\"captcha\""))
    }
}
