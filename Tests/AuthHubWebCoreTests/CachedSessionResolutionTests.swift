import AuthHub
import AuthHubAuth0
import AuthHubTesting
import AuthHubWebCore
import Foundation
import HTTPTypes
import Testing

/// The session resolution's two paths: ``AuthHubWeb/resolveCachedSession(cookie:)`` answers without
/// waiting only what it can answer from the hub's cached session, and says nil (wait) for
/// everything else; the waiting path reads, renews or ends. Both give the same identity.
@Suite struct CachedSessionResolutionTests {
    struct Fixture {
        let clock = FakeClock(mode: .manual)
        let hub: AuthHub
        let web: AuthHubWeb
        let created: Int64
        let random: String
        var cookie: String { "auth0.\(created).\(random)" }
        var account: String { web.account(ofSessionCookie: cookie)! }

        init() throws {
            let registry = ProviderRegistry([Auth0Plugin()])
            let config = """
            {"defaultEnvironment": "dev", "environments": {"dev": {"defaultProvider": "auth0", "sessionStore": {"type": "memory"},
              "providers": [{"id": "auth0", "type": "auth0", "domain": "http://127.0.0.1:9/auth0", "clientId": "c"}]}}}
            """
            let environment = try ConfigLoader(registry: registry, environmentVariables: [:]).load(data: Data(config.utf8))
            hub = try AuthHub(environment: environment, registry: registry, context: ProviderContext(transport: StubTransport(), clock: clock))
            web = try AuthHubWeb(hub: hub, configuration: WebSignInConfiguration(publicBaseURL: URL(string: "https://app.example.com")!,
                                                                                 idleTimeout: .seconds(1800)))
            created = Int64(clock.now.timeIntervalSince1970)
            random = Base64URL.encode(Array(repeating: UInt8(7), count: 32))
        }

        /// A session put in the store behind the hub's back (as another replica would): no manager
        /// has it cached.
        func storeSession(expiresIn seconds: TimeInterval) async throws {
            let session = Session(providerID: "auth0", accountKey: account, accessToken: Secret("access"), refreshToken: Secret("refresh"),
                                  expiresAt: clock.now.addingTimeInterval(seconds), userID: "user-1", claims: ["email": "a@example.com"])
            _ = try await hub.store.save(session, for: SessionKey(provider: "auth0", account: account), expectedVersion: nil)
        }
    }

    @Test func aSessionNotYetReadWaitsThenIsAnsweredWithoutWaiting() async throws {
        let f = try Fixture()
        try await f.storeSession(expiresIn: 3600)
        #expect(f.hub.cachedSession(provider: "auth0", account: f.account) == nil, "no manager has read it")
        #expect(f.web.resolveCachedSession(cookie: f.cookie) == nil, "the store must be read: wait")

        let slow = await f.web.resolveSession(cookie: f.cookie)
        let slowIdentity = try #require(slow.identity)
        #expect(slowIdentity.subject == "user-1" && slowIdentity.email == "a@example.com")
        #expect(f.hub.cachedSession(provider: "auth0", account: f.account)?.accessToken == Secret("access"))

        let fast = try #require(f.web.resolveCachedSession(cookie: f.cookie))
        let fastIdentity = try #require(fast.identity)
        #expect(fastIdentity.subject == slowIdentity.subject && fastIdentity.source == slowIdentity.source)
        #expect(fastIdentity.csrfToken == slowIdentity.csrfToken && fastIdentity.csrfToken != nil)
        #expect(slow.responseCookie?.value == f.cookie && slow.responseCookie?.maxAge == 1800, "new to this replica: the cookie is sent")
        #expect(fast.responseCookie == nil, "sent under a minute ago: not again")
        f.clock.advance(by: f.web.cookieRenewalInterval)
        #expect(f.web.resolveCachedSession(cookie: f.cookie)?.responseCookie == slow.responseCookie, "a minute on: sent again")
        #expect(f.web.resolveCachedSession(cookie: f.cookie)?.responseCookie == nil)
        // The token made on the cached path is the one the sign-out route accepts.
        var head = HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/auth/logout")
        head.headerFields[.origin] = "https://app.example.com"
        head.headerFields[WebRequest.csrfHeader] = fastIdentity.csrfToken
        #expect(try await f.web.isValidStateChange(WebRequest(head: head) { _ in [] }, sessionCookie: f.cookie))
    }

    @Test func theCookieIsResentAfterAMinuteOrATwentiethOfAShortIdleTimeout() throws {
        let f = try Fixture()
        let url = URL(string: "https://app.example.com")!
        #expect(f.web.cookieRenewalInterval == 60)
        #expect(try AuthHubWeb(hub: f.hub, configuration: WebSignInConfiguration(publicBaseURL: url, idleTimeout: .seconds(600))).cookieRenewalInterval == 30)
        #expect(try AuthHubWeb(hub: f.hub, configuration: WebSignInConfiguration(publicBaseURL: url, idleTimeout: .seconds(7 * 86_400))).cookieRenewalInterval == 60)
    }

    @Test func aTokenThatNeedsRenewingIsNotAnsweredFromTheCache() async throws {
        let f = try Fixture()
        try await f.storeSession(expiresIn: 3600)
        _ = await f.web.resolveSession(cookie: f.cookie)
        #expect(f.web.resolveCachedSession(cookie: f.cookie)?.identity != nil)
        f.clock.advance(by: 3600 - 59)
        #expect(f.web.resolveCachedSession(cookie: f.cookie) == nil, "under a minute left: renew (wait)")
        #expect(f.hub.cachedSession(provider: "auth0", account: f.account, minTTL: 0) != nil)
    }

    @Test func anIdleSessionIsEndedOnTheWaitingPath() async throws {
        let f = try Fixture()
        try await f.storeSession(expiresIn: 86_400)
        _ = await f.web.resolveSession(cookie: f.cookie)
        f.clock.advance(by: 1801)
        #expect(f.web.resolveCachedSession(cookie: f.cookie) == nil, "ending it writes the store: wait")
        let ended = await f.web.resolveSession(cookie: f.cookie)
        guard case .ended = ended else { Issue.record("\(ended)"); return }
        #expect(try await f.hub.store.load(SessionKey(provider: "auth0", account: f.account)) == nil, "removed from the store")
        #expect(f.hub.cachedSession(provider: "auth0", account: f.account, minTTL: 0) == nil)
    }

    @Test func aSignOutIsSeenByTheCachedPath() async throws {
        let f = try Fixture()
        try await f.storeSession(expiresIn: 3600)
        _ = await f.web.resolveSession(cookie: f.cookie)
        // Twice from the cache: the second goes through the manager the table kept from the first.
        #expect(f.web.resolveCachedSession(cookie: f.cookie)?.identity != nil)
        #expect(f.web.resolveCachedSession(cookie: f.cookie)?.identity != nil)
        try await f.hub.signOut(provider: "auth0", account: f.account)
        #expect(f.web.resolveCachedSession(cookie: f.cookie) == nil)
        guard case .ended = await f.web.resolveSession(cookie: f.cookie) else { Issue.record("not ended"); return }
    }

    @Test func cookiesThatNameNoSessionAreAnsweredWithoutWaiting() throws {
        let f = try Fixture()
        #expect(f.web.resolveCachedSession(cookie: nil).map { if case .anonymous = $0 { true } else { false } } == true)
        let bad = [
            "auth0.0\(f.created).\(f.random)",          // a leading zero: not the canonical form
            "auth0.+\(f.created).\(f.random)",          // a sign
            "auth0.\(f.created).\(f.random.dropLast())d", // `c` with an unused low bit set: the same bytes, another spelling
            "nosuch.\(f.created).\(f.random)",          // no such provider
            "auth0.\(f.created)",
        ]
        for value in bad {
            let resolution = f.web.resolveCachedSession(cookie: value)
            guard case .ended(let clear) = resolution else { Issue.record("\(value): \(String(describing: resolution))"); continue }
            #expect(clear.maxAge == 0, "\(value)")
        }
    }

    /// The cached path hands out the identity it made for a session again (no copy of the session,
    /// no new identity) only while the hub's session is unchanged: a renewal's or a new sign-in's
    /// tokens and claims show on the very next request, on both paths.
    @Test func theIdentityOfASessionFollowsEveryChangeOfTheSession() async throws {
        let f = try Fixture()
        try await f.storeSession(expiresIn: 3600)
        _ = await f.web.resolveSession(cookie: f.cookie)
        for _ in 0..<3 {
            let identity = try #require(f.web.resolveCachedSession(cookie: f.cookie)?.identity)
            #expect(identity.accessToken == Secret("access") && identity.email == "a@example.com")
        }
        let csrf = try #require(f.web.resolveCachedSession(cookie: f.cookie)?.identity?.csrfToken)
        let manager = try f.hub.manager(provider: "auth0", account: f.account)
        for round in 1...3 {
            try await manager.store(Session(providerID: "auth0", accessToken: Secret("access-\(round)"), expiresAt: f.clock.now.addingTimeInterval(3600),
                                            userID: "user-1", claims: ["email": .string("\(round)@example.com")]))
            let identity = try #require(f.web.resolveCachedSession(cookie: f.cookie)?.identity)
            #expect(identity.accessToken == Secret("access-\(round)") && identity.email == "\(round)@example.com", "round \(round)")
            #expect(identity.csrfToken == csrf && identity.source == .session(id: f.cookie), "the session's own, whatever its tokens")
            #expect(await f.web.resolveSession(cookie: f.cookie).identity?.accessToken == Secret("access-\(round)"))
        }
        // A token that expires meanwhile is not handed out from the identity made while it was valid.
        try await manager.store(Session(providerID: "auth0", accessToken: Secret("short"), expiresAt: f.clock.now.addingTimeInterval(120)))
        #expect(f.web.resolveCachedSession(cookie: f.cookie)?.identity?.accessToken == Secret("short"))
        f.clock.advance(by: 61)
        #expect(f.web.resolveCachedSession(cookie: f.cookie) == nil, "valid for under a minute now: renew first")
    }

    @Test func theManagersCachedSessionIsReadWithoutEnteringIt() async throws {
        let f = try Fixture()
        let manager = try f.hub.manager(provider: "auth0", account: "someone")
        #expect(manager.cachedSession(minTTL: 0) == nil)
        try await manager.store(Session(providerID: "auth0", accessToken: Secret("a"), expiresAt: f.clock.now.addingTimeInterval(120)))
        #expect(manager.cachedSession(minTTL: 60)?.accessToken == Secret("a"))
        #expect(manager.cachedSession(minTTL: 121) == nil, "valid for less than asked")
        #expect(f.hub.cachedSession(provider: "auth0", account: "someone")?.accessToken == Secret("a"))
        #expect(f.hub.cachedSession(provider: "nosuch", account: "someone") == nil)
        try await manager.clear()
        #expect(manager.cachedSession(minTTL: 0) == nil)
    }
}

extension WebSessionResolution: Equatable {
    public static func == (a: WebSessionResolution, b: WebSessionResolution) -> Bool {
        switch (a, b) {
        case (.anonymous, .anonymous): true
        case let (.signedIn(x, c1), .signedIn(y, c2)): x.source == y.source && x.csrfToken == y.csrfToken && c1 == c2
        case let (.ended(c1), .ended(c2)): c1 == c2
        case let (.failed(r1), .failed(r2)): r1.status == r2.status
        default: false
        }
    }
}
