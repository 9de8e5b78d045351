import AuthHub
import AuthHubEmulator
import AuthHubTesting
import Foundation
import Testing

/// The device side of RFC 8628 against the emulator's Auth0 tenant, every request built by hand
/// from RFC 8628 and Auth0's device-flow reference (no client module), over real HTTP.
struct Auth0Device {
    let wire: Auth0Wire
    static let grantType = "urn:ietf:params:oauth:grant-type:device_code"

    /// `POST /oauth/device/code` as a form.
    func start(scope: String = "openid profile email offline_access", clientId: String? = Auth0Wire.clientId) async throws -> Auth0Wire.Reply {
        var fields = [("scope", scope)]
        if let clientId { fields.append(("client_id", clientId)) }
        return try await wire.postForm("/auth0/oauth/device/code", fields)
    }

    /// Starts and returns `(device_code, user_code)`.
    func codes() async throws -> (device: String, user: String) {
        let reply = try await start()
        #expect(reply.status == 200)
        let json = try #require(reply.json)
        return (try #require(json["device_code"]?.stringValue), try #require(json["user_code"]?.stringValue))
    }

    /// One poll of the token endpoint with the device-code grant.
    func poll(_ deviceCode: String, clientId: String = Auth0Wire.clientId) async throws -> Auth0Wire.Reply {
        try await wire.postForm("/auth0/oauth/token", [
            ("grant_type", Self.grantType), ("device_code", deviceCode), ("client_id", clientId),
        ])
    }

    func approve(_ userCode: String, email: String) async throws -> Auth0Wire.Reply {
        try await wire.post("/auth0/__emulator/device/approve", json: ["user_code": .string(userCode), "email": .string(email)])
    }

    func deny(_ userCode: String) async throws -> Auth0Wire.Reply {
        try await wire.post("/auth0/__emulator/device/deny", json: ["user_code": .string(userCode)])
    }
}

extension Auth0Wire.Reply {
    var oauthError: String? { json?["error"]?.stringValue }
    var oauthDescription: String? { json?["error_description"]?.stringValue }
}

@Suite struct Auth0DeviceFlowTests {
    @Test func pendingThenSlowDownThenApprovedThenSpent() async throws {
        let clock = FakeClock()
        let emulator = try await Emulator.start(EmulatorConfiguration(clock: clock))
        let wire = Auth0Wire(emulator: emulator)
        let device = Auth0Device(wire: wire)
        let seeded = try await wire.seed("tv@example.com")
        let discovery = try await wire.get("/auth0/.well-known/openid-configuration")

        let start = try await device.start()
        let json = try #require(start.json)
        let deviceCode = try #require(json["device_code"]?.stringValue)
        let userCode = try #require(json["user_code"]?.stringValue)
        let first = try await device.poll(deviceCode)
        clock.advance(by: 2)
        let tooFast = try await device.poll(deviceCode)
        clock.advance(by: 7)   // 7 s after the last poll: under the grown interval of 10 s
        let stillTooFast = try await device.poll(deviceCode)
        clock.advance(by: 15)  // the interval is now 15 s
        let pending = try await device.poll(deviceCode)
        // Any case, without the dash: RFC 8628 section 6.1.
        let approved = try await device.approve(userCode.lowercased().replacingOccurrences(of: "-", with: ""), email: "tv@example.com")
        let again = try await device.approve(userCode, email: "tv@example.com")
        clock.advance(by: 15)
        let tokens = try await device.poll(deviceCode)
        clock.advance(by: 15)
        let spent = try await device.poll(deviceCode)
        let claims = try await wire.verifiedClaims(try #require(tokens.json?["id_token"]?.stringValue))
        let userinfo = try await wire.get("/auth0/userinfo", headerFields: [
            .authorization: "Bearer " + (tokens.json?["access_token"]?.stringValue ?? ""),
        ])
        await emulator.stop()

        #expect(discovery.json?["device_authorization_endpoint"]?.stringValue == wire.issuer + "oauth/device/code")
        #expect(discovery.json?["grant_types_supported"]?.arrayValue?.contains(.string(Auth0Device.grantType)) == true)

        #expect(start.status == 200)
        #expect(start.headerFields[.cacheControl] == "no-store")
        #expect(userCode.wholeMatch(of: /[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}/) != nil, "\(userCode)")
        #expect(deviceCode.count >= 43)
        #expect(json["verification_uri"]?.stringValue == wire.issuer + "activate")
        #expect(json["verification_uri_complete"]?.stringValue == wire.issuer + "activate?user_code=" + userCode)
        #expect(json["expires_in"]?.intValue == 900)
        #expect(json["interval"]?.intValue == 5)

        #expect(first.status == 403)
        #expect(first.oauthError == "authorization_pending")
        #expect(first.oauthDescription == "User has yet to authorize device code.")
        #expect(tooFast.status == 429)
        #expect(tooFast.oauthError == "slow_down")
        #expect(tooFast.oauthDescription == "You are polling faster than the specified interval of 5 seconds.")
        #expect(stillTooFast.status == 429, "slow_down added 5 s to the interval")
        #expect(stillTooFast.oauthDescription == "You are polling faster than the specified interval of 10 seconds.")
        #expect(pending.status == 403)
        #expect(pending.oauthError == "authorization_pending")

        #expect(approved.status == 200)
        #expect(approved.json?["status"]?.stringValue == "approved")
        #expect(approved.json?["user_code"]?.stringValue == userCode)
        #expect(again.status == 404, "an approved code cannot be decided again")

        #expect(tokens.status == 200)
        #expect(tokens.json?["token_type"]?.stringValue == "Bearer")
        #expect(tokens.json?["access_token"]?.stringValue?.isEmpty == false)
        #expect(tokens.json?["refresh_token"]?.stringValue?.isEmpty == false, "offline_access was asked")
        #expect(tokens.json?["scope"]?.stringValue == "openid profile email offline_access")
        #expect(claims["iss"]?.stringValue == wire.issuer)
        #expect(claims["aud"]?.stringValue == Auth0Wire.clientId)
        #expect(claims["sub"] == seeded["user_id"])
        #expect(claims["email"]?.stringValue == "tv@example.com")
        #expect(userinfo.status == 200)
        #expect(userinfo.json?["sub"] == seeded["user_id"])

        #expect(spent.status == 403)
        #expect(spent.oauthError == "invalid_grant", "the device code is spent by its exchange")
    }

    @Test func withoutOpenIDOrOfflineAccessNoIDTokenNorRefreshToken() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        let device = Auth0Device(wire: wire)
        try await wire.seed("plain@example.com")
        let start = try await device.start(scope: "profile")
        let deviceCode = try #require(start.json?["device_code"]?.stringValue)
        let userCode = try #require(start.json?["user_code"]?.stringValue)
        _ = try await device.approve(userCode, email: "plain@example.com")
        let tokens = try await device.poll(deviceCode)
        await emulator.stop()

        #expect(tokens.status == 200)
        #expect(tokens.json?["access_token"] != nil)
        #expect(tokens.json?["id_token"] == nil)
        #expect(tokens.json?["refresh_token"] == nil)
    }

    @Test func denyIsAccessDeniedOnEveryPoll() async throws {
        let clock = FakeClock()
        let emulator = try await Emulator.start(EmulatorConfiguration(clock: clock))
        let wire = Auth0Wire(emulator: emulator)
        let device = Auth0Device(wire: wire)
        try await wire.seed("no@example.com")
        let (deviceCode, userCode) = try await device.codes()
        let denied = try await device.deny(userCode)
        let first = try await device.poll(deviceCode)
        clock.advance(by: 5)
        let second = try await device.poll(deviceCode)
        let approveAfter = try await device.approve(userCode, email: "no@example.com")
        let unknown = try await device.deny("BBBB-BBBB")
        let unknownUser = try await device.approve(try await device.codes().user, email: "nobody@example.com")
        await emulator.stop()

        #expect(denied.status == 200)
        #expect(denied.json?["status"]?.stringValue == "denied")
        #expect(first.status == 403)
        #expect(first.oauthError == "access_denied")
        #expect(second.oauthError == "access_denied")
        #expect(approveAfter.status == 404)
        #expect(unknown.status == 404)
        #expect(unknownUser.status == 404)
    }

    @Test func expiryIsExpiredToken() async throws {
        let clock = FakeClock()
        let emulator = try await Emulator.start(EmulatorConfiguration(clock: clock))
        let wire = Auth0Wire(emulator: emulator)
        let device = Auth0Device(wire: wire)
        try await wire.seed("late@example.com")
        let (deviceCode, userCode) = try await device.codes()
        clock.advance(by: 899)
        let lastChance = try await device.poll(deviceCode)
        clock.advance(by: 1)
        let expired = try await device.poll(deviceCode)
        let approveLate = try await device.approve(userCode, email: "late@example.com")
        clock.advance(by: 5)
        let stillExpired = try await device.poll(deviceCode)
        let page = try await wire.get("/auth0/activate")
        let typed = try await Auth0Browser(wire: wire).post("/auth0/activate", [
            ("transaction", try transaction(of: page)), ("user_code", userCode),
        ])
        await emulator.stop()

        #expect(lastChance.oauthError == "authorization_pending")
        #expect(expired.status == 403)
        #expect(expired.oauthError == "expired_token")
        #expect(approveLate.status == 404)
        #expect(stillExpired.oauthError == "expired_token")
        #expect(typed.status == 400)
        #expect(typed.text.contains("role=\"alert\""), "an expired code is refused on the page")
    }

    @Test func clientIdIsRequiredAndBindsTheDeviceCode() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        let device = Auth0Device(wire: wire)
        let missing = try await device.start(clientId: nil)
        let (deviceCode, _) = try await device.codes()
        let otherClient = try await device.poll(deviceCode, clientId: "someone-else")
        let rightClient = try await device.poll(deviceCode)
        let unknownCode = try await device.poll("not-a-device-code")
        let hugeCode = try await device.poll(String(repeating: "A", count: 10_000))
        let noCode = try await wire.postForm("/auth0/oauth/token", [("grant_type", Auth0Device.grantType), ("client_id", Auth0Wire.clientId)])
        await emulator.stop()

        #expect(missing.status == 400)
        #expect(missing.oauthError == "invalid_request")
        #expect(missing.oauthDescription == "Missing required parameter: client_id")
        #expect(otherClient.status == 403)
        #expect(otherClient.oauthError == "invalid_grant")
        #expect(rightClient.status == 403)
        #expect(rightClient.oauthError == "authorization_pending", "another client's poll neither spends the code nor counts as a poll")
        #expect(unknownCode.oauthError == "invalid_grant")
        #expect(hugeCode.oauthError == "invalid_grant")
        #expect(noCode.status == 400)
        #expect(noCode.oauthError == "invalid_request")
    }

    /// An application without the device code grant, and a request with client credentials, are
    /// refused as on Auth0 (`403 unauthorized_client`); so is any token grant the application has
    /// not enabled. A client registered with the grant, and unregistered clients, go on.
    @Test func theGrantMustBeEnabledAndTheClientPublic() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        let device = Auth0Device(wire: wire)
        _ = try await wire.seed("tv@example.com")
        let webOnly = try await wire.post("/auth0/__emulator/clients", json: [
            "client_id": "web-only", "callbacks": ["https://app.example.com/cb"], "grant_types": ["authorization_code", "refresh_token"],
        ])
        let tv = try await wire.post("/auth0/__emulator/clients", json: [
            "client_id": "tv-app", "grant_types": ["urn:ietf:params:oauth:grant-type:device_code", "refresh_token"],
        ])
        let badList = try await wire.post("/auth0/__emulator/clients", json: ["client_id": "bad", "grant_types": ["password", 3]])
        let refused = try await device.start(clientId: "web-only")
        let password = try await wire.postForm("/auth0/oauth/token", [
            ("grant_type", "password"), ("client_id", "web-only"), ("username", "tv@example.com"), ("password", "correct horse battery"),
        ])
        let withSecret = try await wire.postForm("/auth0/oauth/device/code", [("client_id", Auth0Wire.clientId), ("client_secret", "s3cret")])
        let allowed = try await device.start(clientId: "tv-app")
        let unregistered = try await device.start()
        let tvPassword = try await wire.postForm("/auth0/oauth/token", [
            ("grant_type", "password"), ("client_id", "tv-app"), ("username", "tv@example.com"), ("password", "correct horse battery"),
        ])
        await emulator.stop()

        #expect(webOnly.status == 201 && tv.status == 201)
        #expect(webOnly.json?["grant_types"]?.arrayValue?.count == 2)
        #expect(badList.status == 400 && badList.oauthError == "invalid_request")
        #expect(refused.status == 403 && refused.oauthError == "unauthorized_client")
        #expect(refused.oauthDescription == "Grant type 'urn:ietf:params:oauth:grant-type:device_code' not allowed for the client.")
        #expect(password.status == 403 && password.oauthError == "unauthorized_client")
        #expect(password.oauthDescription == "Grant type 'password' not allowed for the client.")
        #expect(withSecret.status == 403 && withSecret.oauthError == "unauthorized_client")
        #expect(allowed.status == 200 && allowed.json?["device_code"] != nil)
        #expect(unregistered.status == 200)
        #expect(tvPassword.status == 403, "tv-app enabled no password grant")
    }

    @Test func theVerificationPageLikeABrowser() async throws {
        let clock = FakeClock()
        let emulator = try await Emulator.start(EmulatorConfiguration(clock: clock))
        let wire = Auth0Wire(emulator: emulator)
        let browser = Auth0Browser(wire: wire)
        let device = Auth0Device(wire: wire)
        let seeded = try await wire.seed("browser@example.com")
        let (deviceCode, userCode) = try await device.codes()

        // verification_uri_complete: the code is prefilled.
        let page = try await wire.get("/auth0/activate?user_code=" + userCode)
        let codePosted = try await browser.post("/auth0/activate", [("transaction", try transaction(of: page)), ("user_code", userCode)])
        let wrongPassword = try await browser.post("/auth0/u/login", [
            ("transaction", try transaction(of: codePosted)), ("email", "browser@example.com"), ("password", "wrong"),
        ])
        let loggedIn = try await browser.post("/auth0/u/login", [
            ("transaction", try transaction(of: wrongPassword)), ("email", "browser@example.com"), ("password", "correct horse battery"),
        ])
        let loginToken = try transaction(of: codePosted)
        let consentToken = try transaction(of: loggedIn)
        let beforeApproval = try await device.poll(deviceCode)
        let noChoice = try await browser.post("/auth0/activate", [("transaction", consentToken)])
        let done = try await browser.post("/auth0/activate", [("transaction", consentToken), ("action", "approve")])
        let replayed = try await browser.post("/auth0/activate", [("transaction", consentToken), ("action", "deny")])
        clock.advance(by: 5)
        let tokens = try await device.poll(deviceCode)
        let claims = try await wire.verifiedClaims(try #require(tokens.json?["id_token"]?.stringValue))
        await emulator.stop()

        #expect(page.status == 200)
        #expect(page.headerFields[.contentType]?.hasPrefix("text/html") == true)
        #expect(page.text.contains("value=\"\(userCode)\""))
        #expect(page.text.contains("action=\"/auth0/activate\""))
        #expect(codePosted.status == 200)
        #expect(codePosted.text.contains("action=\"/auth0/u/login\""), "a right code leads to the login page")
        #expect(wrongPassword.status == 400)
        #expect(wrongPassword.text.contains("Wrong email or password."))
        #expect(loggedIn.status == 200)
        #expect(loggedIn.text.contains("value=\"approve\""))
        #expect(loggedIn.text.contains("value=\"deny\""))
        #expect(loggedIn.text.contains(userCode), "the consent page shows the code to compare")
        #expect(sessionCookie(loggedIn) != nil, "the login starts a browser session")
        #expect(consentToken != loginToken, "every page has its own token")
        #expect(beforeApproval.oauthError == "authorization_pending")
        #expect(noChoice.status == 400)
        #expect(done.status == 200)
        #expect(done.text.contains("data-result=\"approved\""))
        #expect(replayed.status == 400, "the consent page's token is spent")
        #expect(tokens.status == 200)
        #expect(claims["sub"] == seeded["user_id"])
        #expect(claims["aud"]?.stringValue == Auth0Wire.clientId)
    }

    @Test func aBrowserSessionSkipsTheLoginAndDenyOnThePageIsAccessDenied() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        let browser = Auth0Browser(wire: wire)
        let device = Auth0Device(wire: wire)
        try await wire.seed("sso-tv@example.com")
        let login = try await browser.logIn("sso-tv@example.com")
        let cookie = try #require(sessionCookie(login))
        let (deviceCode, userCode) = try await device.codes()

        let page = try await wire.get("/auth0/activate", headerFields: [.cookie: cookie])
        let consent = try await browser.post("/auth0/activate", [("transaction", try transaction(of: page)), ("user_code", userCode)],
                                             cookie: cookie)
        let denied = try await browser.post("/auth0/activate", [("transaction", try transaction(of: consent)), ("action", "deny")],
                                            cookie: cookie)
        let poll = try await device.poll(deviceCode)
        await emulator.stop()

        #expect(consent.status == 200)
        #expect(consent.text.contains("value=\"approve\""), "a live session goes straight to consent")
        #expect(consent.text.contains("sso-tv@example.com"))
        #expect(denied.text.contains("data-result=\"denied\""))
        #expect(poll.status == 403)
        #expect(poll.oauthError == "access_denied")
    }

    /// RFC 8628, section 5.1: guessing is limited. One page takes five wrong codes, then must be
    /// opened again; the tenant takes thirty a minute, then refuses every entry (429, even a right
    /// code) until the minute has passed.
    @Test func guessingUserCodesIsLimited() async throws {
        let clock = FakeClock()
        let emulator = try await Emulator.start(EmulatorConfiguration(clock: clock))
        let wire = Auth0Wire(emulator: emulator)
        let browser = Auth0Browser(wire: wire)
        let device = Auth0Device(wire: wire)
        let (_, userCode) = try await device.codes()
        func newPage() async throws -> String { try transaction(of: try await wire.get("/auth0/activate")) }

        let page = try await newPage()
        var wrongOnOnePage: [Int] = []
        for _ in 0..<5 {
            wrongOnOnePage.append(try await browser.post("/auth0/activate", [("transaction", page), ("user_code", "BCDF-GHJK")]).status)
        }
        let afterFive = try await browser.post("/auth0/activate", [("transaction", page), ("user_code", userCode)])
        let freshPage = try await browser.post("/auth0/activate", [("transaction", try await newPage()), ("user_code", userCode)])

        // 25 more wrong codes over five pages make 30 in the minute.
        for _ in 0..<5 {
            let token = try await newPage()
            for _ in 0..<5 { _ = try await browser.post("/auth0/activate", [("transaction", token), ("user_code", "BCDF-GHJK")]) }
        }
        let limited = try await browser.post("/auth0/activate", [("transaction", try await newPage()), ("user_code", userCode)])
        clock.advance(by: 61)
        let afterTheMinute = try await browser.post("/auth0/activate", [("transaction", try await newPage()), ("user_code", userCode)])
        await emulator.stop()

        #expect(wrongOnOnePage == [400, 400, 400, 400, 400])
        #expect(afterFive.status == 400 && afterFive.text.contains("Open the activation page again"), "\(afterFive.text)")
        #expect(freshPage.status == 200 && freshPage.text.contains("action=\"/auth0/u/login\""))
        #expect(limited.status == 429)
        #expect(limited.headerFields[.retryAfter].flatMap { Int($0) }.map { (1...60).contains($0) } == true)
        #expect(limited.text.contains("Too many wrong codes"))
        #expect(afterTheMinute.status == 200 && afterTheMinute.text.contains("action=\"/auth0/u/login\""))
    }

    @Test func wrongCodesForgedTokensAndHostileInputOnThePage() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        let browser = Auth0Browser(wire: wire)
        let device = Auth0Device(wire: wire)
        let (deviceCode, userCode) = try await device.codes()
        let hostile = "<script>alert(\"x\")</script>'&"

        let page = try await wire.get("/auth0/activate?" + queryString([("user_code", hostile)]))
        let token = try transaction(of: page)
        let wrong = try await browser.post("/auth0/activate", [("transaction", token), ("user_code", "BCDF-GHJK")])
        let hostilePosted = try await browser.post("/auth0/activate", [("transaction", token), ("user_code", hostile)])
        let forged = try await browser.post("/auth0/activate", [("transaction", "forged-token"), ("user_code", userCode)])
        let noToken = try await browser.post("/auth0/activate", [("user_code", userCode)])
        let sameTokenRightCode = try await browser.post("/auth0/activate", [("transaction", token), ("user_code", userCode)])
        let poll = try await device.poll(deviceCode)
        await emulator.stop()

        #expect(page.status == 200)
        #expect(!page.text.contains("<script>"))
        #expect(page.text.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39;&amp;"))
        #expect(wrong.status == 400)
        #expect(wrong.text.contains("role=\"alert\""))
        #expect(wrong.text.contains("value=\"BCDF-GHJK\""), "the typed code is shown again")
        #expect(hostilePosted.status == 400)
        #expect(!hostilePosted.text.contains("<script>"))
        #expect(forged.status == 400)
        #expect(!forged.text.contains("u/login"), "a form without its page's token does nothing")
        #expect(noToken.status == 400)
        #expect(sameTokenRightCode.status == 200, "a wrong code can be corrected on the same page")
        #expect(sameTokenRightCode.text.contains("action=\"/auth0/u/login\""))
        #expect(poll.oauthError == "authorization_pending")
    }
}
