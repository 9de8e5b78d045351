import AuthHub
import AuthHubWebCore
import Foundation
import HTTPTypes

extension WebConformanceCheck {
    func tamperedCookiesAreNoSession() async throws -> [String] {
        var f = Failures()
        let sid = try await signIn()
        var forged = Array(sid)
        forged[forged.count - 2] = forged[forged.count - 2] == "A" ? "B" : "A"
        let parts = sid.split(separator: ".")
        let values = [String(forged), sid + "x", "\(provider).1.x", String(repeating: "a", count: 5000), "nope.\(sid)",
                      "nope.\(parts.dropFirst().joined(separator: "."))", "\(provider).99999999999999.\(parts.last ?? "")", "", "\"\(sid)x\""]
        for value in values {
            let me = try await client.get("/me", cookies: [(sessionName, value)])
            f.expectStatus(me, 401, "cookie \(value.prefix(30).debugDescription)")
            f.expect(me.cookie(sessionName) == "", "cookie \(value.prefix(30).debugDescription) is cleared (on the 401 too)")
        }
        f.expectStatus(try await me(sid), 200, "the real cookie still works")
        f.expectStatus(try await client.get("/me", cookies: [("other", "1"), (sessionName, sid)]), 200, "the cookie among others")
        return f.messages
    }

    func idleAndAbsoluteTimeoutsEndTheSession() async throws -> [String] {
        var f = Failures()
        // Idle: 30 minutes unused.
        let idle = try await signIn()
        environment.clock.advance(by: 29 * 60)
        f.expectStatus(try await me(idle), 200, "used after 29 minutes")
        environment.clock.advance(by: 31 * 60)
        let over = try await me(idle)
        f.expectStatus(over, 401, "unused for 31 minutes")
        f.expect(over.cookie(sessionName) == "", "the idle session's cookie is cleared")
        f.expect(try await hub.store.keys().isEmpty, "the idle session is removed from the store")
        // Absolute: two hours, however active.
        let active = try await signIn()
        for step in 1...4 {
            environment.clock.advance(by: 25 * 60)
            let reply = try await me(active)
            f.expectStatus(reply, 200, "active, \(step * 25) minutes after sign-in")
            let maxAge = reply.cookieAttributes(sessionName).first { $0.hasPrefix("max-age=") }.flatMap { Int($0.dropFirst(8)) } ?? -1
            f.expect(maxAge >= 0 && maxAge <= 2 * 3600 - step * 25 * 60, "the cookie's Max-Age never outlives the absolute timeout: \(maxAge)")
        }
        environment.clock.advance(by: 25 * 60)
        let ended = try await me(active)
        f.expectStatus(ended, 401, "active past the absolute timeout")
        f.expect(ended.cookie(sessionName) == "", "the timed-out session's cookie is cleared")
        f.expect(try await hub.store.keys().isEmpty, "the timed-out session is removed from the store")
        return f.messages
    }

    func expiredSessionsAreRenewedAndAnOutageKeepsThem() async throws -> [String] {
        var f = Failures()
        let sid = try await signIn()
        guard let key = try await onlyKey(&f), let first = try await hub.store.load(key), let expiry = first.expiresAt else {
            return f.messages + ["no stored session with an expiry"]
        }
        f.expect(first.canRenew, "the sign-in can be renewed (a refresh token)")
        environment.clock.set(expiry.addingTimeInterval(120))
        f.expectStatus(try await me(sid), 200, "a request after the access token expired")
        guard let renewed = try await hub.store.load(key), let renewedExpiry = renewed.expiresAt else { return f.messages + ["the session is gone"] }
        f.expect(renewed.accessToken != first.accessToken, "the session was renewed before the route ran")
        f.expect(renewed.version > first.version, "the renewed session was stored")
        environment.clock.set(renewedExpiry.addingTimeInterval(120))
        await environment.stopProvider()
        let down = try await me(sid)
        f.expectStatus(down, 503, "a request needing renewal while the provider is down")
        f.expect(down.cookie(sessionName) == nil, "the cookie is kept on a 503")
        f.expect(down.headers[.cacheControl] == "no-store", "the 503 is no-store")
        f.expect(try await hub.store.load(key)?.refreshToken == renewed.refreshToken, "the session is kept on a 503")
        return f.messages
    }

    func aDeadRefreshTokenSignsTheBrowserOut() async throws -> [String] {
        var f = Failures()
        let sid = try await signIn()
        guard let key = try await onlyKey(&f), let first = try await hub.store.load(key), let refresh = first.refreshToken,
              let expiry = first.expiresAt else { return f.messages + ["no stored session with a refresh token"] }
        try await environment.revokeRefreshToken(refresh)
        environment.clock.set(expiry.addingTimeInterval(120))
        let me = try await me(sid)
        f.expectStatus(me, 401, "a request needing renewal with a revoked refresh token")
        f.expect(me.cookie(sessionName) == "", "the cookie is cleared")
        f.expect(try await hub.store.keys().isEmpty, "the session is removed")
        return f.messages
    }

    func signingInAgainReplacesTheBrowsersSession() async throws -> [String] {
        var f = Failures()
        let first = try await signIn()
        guard let firstAccount = web.account(ofSessionCookie: first),
              let old = try await hub.store.load(SessionKey(provider: provider, account: firstAccount)), let oldRefresh = old.refreshToken else {
            return ["the first session is not stored with a refresh token"]
        }
        let (pre, _, callback) = try await begin()
        let again = try await client.get(callback, cookies: [(preName, pre), (sessionName, first)])
        f.expectStatus(again, 302, "signing in again")
        guard let second = again.cookie(sessionName), !second.isEmpty else { return f.messages + ["no new session cookie"] }
        f.expect(second != first, "a new session id at every sign-in (no fixation)")
        let keys = try await hub.store.keys()
        f.expect(keys.count == 1 && keys.first?.account == web.account(ofSessionCookie: second), "only the new session is stored")
        f.expectStatus(try await me(first), 401, "the replaced cookie")
        f.expectStatus(try await me(second), 200, "the new cookie")
        // The replaced session is revoked at the provider off the callback's path: its refresh token,
        // stored again under a scratch account, no longer renews.
        try await hub.finishBackgroundWork()
        var probe = old
        probe.expiresAt = environment.clock.now.addingTimeInterval(-10)
        probe.refreshToken = oldRefresh
        let scratch = SessionKey(provider: provider, account: "conformance-probe")
        _ = try await hub.store.save(probe, for: scratch, expectedVersion: nil)
        do {
            _ = try await hub.refresh(provider: provider, account: scratch.account)
            f.expect(false, "the replaced session's refresh token still renews: it was not revoked")
        } catch let error as AuthError {
            f.expect(error.code == .refreshTokenInvalid, "the replaced refresh token is refused as invalid: \(error.code)")
        }
        return f.messages
    }

    /// OpenID Connect Back-Channel Logout through the adapter's `POST <prefix>/backchannel-logout`:
    /// the user signs out at the provider, the provider posts its logout token, and the browser's
    /// session here is over on its next request (removed from the store); a form that is not a
    /// logout token is a 400 with an OAuth error body.
    func backChannelLogoutEndsTheBrowserSession() async throws -> [String] {
        var f = Failures()
        guard let register = environment.registerBackChannelLogout, let endProviderSession = environment.endProviderSession else {
            return ["the environment cannot register a back-channel logout URL or end the provider's session"]
        }
        guard let callback = URL(string: web.configuration.callbackURL) else { return ["the app's callback URL is not a URL"] }
        try await register(client.baseURL.appendingPathComponent(String(prefix.dropFirst()) + "/backchannel-logout"), callback)
        let junk = try await client.send(.post, "\(prefix)/backchannel-logout", form: "logout_token=not-a-token")
        f.expectStatus(junk, 400, "a logout token that is not one")
        f.expect(junk.body.contains("invalid_request"), "the 400 has an OAuth error body: \(junk.body.debugDescription)")
        let sid = try await signIn()
        f.expectStatus(try await me(sid), 200, "signed in")
        f.expect(try await hub.store.keys().count == 1, "one stored session")
        try await endProviderSession()
        let after = try await me(sid)
        f.expectStatus(after, 401, "the browser's next request after the provider's logout")
        f.expect(try await hub.store.keys().isEmpty, "the session is removed from the store")
        return f.messages
    }
}
