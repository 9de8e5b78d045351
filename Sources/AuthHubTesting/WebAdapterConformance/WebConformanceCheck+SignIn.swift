import AuthHub
import AuthHubWebCore
import Foundation
import HTTPTypes

extension WebConformanceCheck {
    func loginRedirect() async throws -> [String] {
        var f = Failures()
        let login = try await client.get("\(prefix)/login?provider=\(provider)")
        f.expectStatus(login, 302, "login")
        guard let location = login.location, let url = URLComponents(string: location) else { return f.messages + ["login: no Location"] }
        let query = Dictionary((url.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { a, _ in a })
        f.expect(query["code_challenge_method"] == "S256", "the authorize URL asks for PKCE S256: \(query["code_challenge_method"] ?? "none")")
        f.expect(query["code_challenge"]?.isEmpty == false, "the authorize URL has a code_challenge")
        f.expect(query["redirect_uri"] == web.configuration.callbackURL, "redirect_uri is the callback URL: \(query["redirect_uri"] ?? "none")")
        f.expect(query["state"].map { $0.count >= 16 } == true, "the authorize URL has a state")
        f.expect(query["nonce"].map { $0.count >= 16 } == true, "the authorize URL has a nonce")
        f.expect(login.headers[.cacheControl] == "no-store", "the redirect is no-store")
        let pre = login.cookie(preName)
        f.expect(pre.map { !$0.isEmpty } == true, "the pre-session cookie is set")
        if let pre, let state = query["state"] {
            f.expect(!pre.contains(state), "the pre-session cookie is an opaque id, not the state")
        }
        let attributes = login.cookieAttributes(preName)
        f.expect(attributes.contains("httponly") && attributes.contains("samesite=lax") && attributes.contains("path=/"),
                 "the pre-session cookie is HttpOnly, SameSite=Lax, Path=/: \(attributes)")
        f.expect(attributes.contains("max-age=600"), "the pre-session cookie lives as long as the sign-in may take: \(attributes)")
        f.expect(!attributes.contains("secure"), "plain-HTTP loopback development mode: no Secure")
        return f.messages
    }

    func signInSetsAnOpaqueSessionCookie() async throws -> [String] {
        var f = Failures()
        f.expectStatus(try await client.get("/me"), 401, "/me without a cookie")
        let (pre, _, callback) = try await begin(returnTo: "/me?tab=1")
        let finished = try await client.get(callback, cookies: [(preName, pre)])
        f.expectStatus(finished, 302, "callback")
        f.expect(finished.location == "/me?tab=1", "the callback returns to the asked page: \(finished.location ?? "none")")
        f.expect(finished.cookie(preName) == "", "the pre-session cookie is cleared")
        guard let sid = finished.cookie(sessionName), !sid.isEmpty else { return f.messages + ["no session cookie"] }
        f.expect(sid.hasPrefix(provider + "."), "the session cookie names its provider")
        let attributes = finished.cookieAttributes(sessionName)
        f.expect(attributes.contains("httponly") && attributes.contains("samesite=lax") && attributes.contains("path=/"),
                 "the session cookie is HttpOnly, SameSite=Lax, Path=/: \(attributes)")
        f.expect(attributes.contains("max-age=1800"), "the session cookie's Max-Age is the idle timeout: \(attributes)")
        let me = try await me(sid)
        f.expectStatus(me, 200, "/me with the cookie")
        f.expect(me.body == environment.userEmail, "/me names the user: \(me.body.debugDescription)")
        f.expect(me.cookie(sessionName) == nil, "within a minute of being set, the cookie is not sent again: \(me.cookie(sessionName) ?? "")")
        environment.clock.advance(by: 60)
        let later = try await self.me(sid)
        f.expect(later.cookie(sessionName) == sid, "a minute on, an authenticated response renews the cookie (sliding idle timeout)")
        f.expect(later.cookieAttributes(sessionName).contains("max-age=1800"), "with the idle timeout as its Max-Age: \(later.cookieAttributes(sessionName))")
        f.expect(try await self.me(sid).cookie(sessionName) == nil, "and not again on the next request")
        if let key = try await onlyKey(&f), let stored = try await hub.store.load(key) {
            f.expect(key.account.hasPrefix("web."), "the session is stored under a web account: \(key.account)")
            f.expect(!sid.contains(stored.accessToken.revealed()), "the cookie holds no access token")
            if let refresh = stored.refreshToken { f.expect(!sid.contains(refresh.revealed()), "the cookie holds no refresh token") }
            f.expect(!key.account.contains(String(sid.split(separator: ".").last ?? "-")), "the store key does not give the cookie away")
        }
        return f.messages
    }

    func signOutNeedsTheOriginAndTheCSRFToken() async throws -> [String] {
        var f = Failures()
        let sid = try await signIn()
        let csrfToken = try await csrf(sid)
        let csrf = csrfToken
        f.expectStatus(try await logout(sid, form: "csrf=\(csrf)", origin: "https://evil.example"), 403, "sign-out from another origin")
        f.expectStatus(try await logout(sid, form: "csrf=\(csrf)", origin: "null"), 403, "sign-out with Origin: null")
        f.expectStatus(try await logout(sid, form: "csrf=\(csrf)", origin: nil, headers: [.referer: "https://evil.example/page"]), 403,
                       "sign-out with another site's Referer and no Origin")
        f.expectStatus(try await logout(sid, form: "csrf=\(csrf)", origin: nil), 403, "sign-out with neither Origin nor Referer")
        f.expectStatus(try await logout(sid, form: ""), 403, "sign-out without the token")
        // Another last character, whatever the token's is (a token ending in `A` made this the right
        // token one time in sixteen).
        let wrong = csrf.dropLast() + (csrf.hasSuffix("A") ? "E" : "A")
        f.expectStatus(try await logout(sid, form: "csrf=\(wrong)"), 403, "sign-out with a wrong token")
        f.expectStatus(try await logout(sid, form: "csrf=\(csrf)&pad=" + String(repeating: "x", count: 64 * 1024)), 403,
                       "sign-out with a 64 KiB form")
        f.expectStatus(try await me(sid), 200, "a refused sign-out keeps the session")
        // The token in the header, and the origin from the Referer of the app's own page.
        let out = try await logout(sid, form: "", origin: nil,
                                   headers: [WebRequest.csrfHeader: csrf, .referer: WebConformanceCheck.origin + "/me"])
        f.expectStatus(out, 303, "sign-out with the header token and a same-origin Referer")
        f.expect(out.location == web.configuration.signedOutPath, "sign-out redirects to the signed-out page: \(out.location ?? "none")")
        f.expect(out.cookie(sessionName) == "", "sign-out clears the cookie")
        f.expect(try await hub.store.keys().isEmpty, "sign-out removes the session from the store")
        f.expectStatus(try await me(sid), 401, "the signed-out cookie")
        return f.messages
    }

    func signOutCanEndTheProvidersBrowserSession() async throws -> [String] {
        var f = Failures()
        for field in ["browser=1", "federated=1"] {
            let sid = try await signIn()
            let out = try await logout(sid, form: "csrf=\(try await csrf(sid))&\(field)")
            f.expectStatus(out, 303, "sign-out with \(field)")
            let location = out.location.flatMap(URLComponents.init(string:))
            f.expect(location?.host != nil, "\(field): the browser goes on to the provider's sign-out: \(out.location ?? "none")")
            let returnTo = location?.queryItems?.first { ["returnTo", "post_logout_redirect_uri"].contains($0.name) }?.value
            f.expect(returnTo == WebConformanceCheck.origin + "/", "\(field): the provider sends the browser back to the app: \(returnTo ?? "none")")
            f.expect(out.cookie(sessionName) == "", "\(field): the cookie is cleared")
            f.expect(try await hub.store.keys().isEmpty, "\(field): the session is removed")
        }
        let sid = try await signIn()
        let out = try await logout(sid, form: "csrf=\(try await csrf(sid))")
        f.expect(out.location == "/", "a plain sign-out stays on the app: \(out.location ?? "none")")
        return f.messages
    }

    func callbacksThatMustBeRefused() async throws -> [String] {
        var f = Failures()
        let (pre, _, callback) = try await begin()
        var tampered = URLComponents(string: callback)
        let items = tampered?.queryItems?.map { $0.name == "state" ? URLQueryItem(name: "state", value: "forged") : $0 }
        tampered?.queryItems = items
        let mismatch = try await client.get(tampered?.string ?? callback, cookies: [(preName, pre)])
        f.expectStatus(mismatch, 400, "a callback with another state")
        f.expect(mismatch.cookie(sessionName) == nil, "a refused callback sets no session")
        f.expect(mismatch.cookie(preName) == "", "a refused callback clears the pre-session cookie")
        let replay = try await client.get(callback, cookies: [(preName, pre)])
        f.expectStatus(replay, 400, "the real callback after a refused one (the sign-in is used up)")
        f.expect(replay.cookie(sessionName) == nil, "a replay sets no session")

        let (pre2, _, callback2) = try await begin()
        f.expectStatus(try await client.get(callback2), 400, "a callback without the pre-session cookie")
        f.expectStatus(try await client.get(callback2, cookies: [(preName, String(repeating: "A", count: 43))]), 400,
                       "a callback with another pre-session id")
        let good = try await client.get(callback2, cookies: [(preName, pre2)])
        f.expectStatus(good, 302, "the callback of the browser that started it")
        f.expectStatus(try await client.get(callback2, cookies: [(preName, pre2)]), 400, "the same callback again")

        // The provider declines: 403, no session.
        let (pre3, authorize, _) = try await begin()
        let state = URLComponents(url: authorize, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "state" }?.value ?? ""
        let declined = try await client.get("\(prefix)/callback?error=access_denied&error_description=no&state=\(state)", cookies: [(preName, pre3)])
        f.expectStatus(declined, 403, "a declined sign-in")
        f.expect(declined.cookie(sessionName) == nil, "a declined sign-in sets no session")
        let keys = try await hub.store.keys()
        f.expect(keys.count == 1, "only the one finished sign-in is stored: \(keys.count)")
        return f.messages
    }

    func anExpiredSignInIsRefused() async throws -> [String] {
        var f = Failures()
        let (pre, _, callback) = try await begin()
        environment.clock.advance(by: 601)
        let late = try await client.get(callback, cookies: [(preName, pre)])
        f.expectStatus(late, 400, "a callback after the pre-session's lifetime")
        f.expect(late.cookie(sessionName) == nil, "a late callback sets no session")
        return f.messages
    }

    func openRedirectsAndUnknownProvidersAreRefused() async throws -> [String] {
        var f = Failures()
        let targets = ["https://evil.example/", "//evil.example/x", "/\\evil.example", "javascript:alert(1)", "evil", "/x\r\nSet-Cookie: a=b",
                       "/" + String(repeating: "a", count: 5000)]
        for target in targets {
            let escaped = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let login = try await client.get("\(prefix)/login?provider=\(provider)&returnTo=\(escaped)")
            f.expectStatus(login, 400, "returnTo \(target.prefix(40).debugDescription)")
            f.expect(login.location == nil, "returnTo \(target.prefix(40).debugDescription): no redirect")
            f.expect(login.cookie(preName) == nil, "returnTo \(target.prefix(40).debugDescription): no sign-in started")
        }
        for name in ["nope", String(repeating: "p", count: 10_000), "\(provider)%00", ""] {
            f.expectStatus(try await client.get("\(prefix)/login?provider=\(name)"), 404, "provider \(name.prefix(20).debugDescription)")
        }
        let byDefault = try await client.get("\(prefix)/login")
        f.expectStatus(byDefault, 302, "no provider named: the environment's default provider")
        return f.messages
    }
}
