import AuthHub
import AuthHubAuth0
import AuthHubTesting
import AuthHubWebCore
import Foundation
import Testing

/// The signed-in user's browser sessions through the web core (`sessions(of:)`, sign out one,
/// the others, everywhere): found through the store's index by user, never another user's, and
/// each signed-out session answered as ended on its next request.
@Suite struct WebSessionsListTests {
    typealias Fixture = CachedSessionResolutionTests.Fixture

    /// A browser session of `user` stored behind the hub's back, created `age` seconds ago; its cookie.
    func browserSession(_ f: Fixture, user: String, random byte: UInt8, age: Int64) async throws -> String {
        let cookie = "auth0.\(f.created - age).\(Base64URL.encode(Array(repeating: byte, count: 32)))"
        let account = try #require(f.web.account(ofSessionCookie: cookie))
        let session = Session(providerID: "auth0", accountKey: account, accessToken: Secret("at-\(byte)"), refreshToken: Secret("rt-\(byte)"),
                              expiresAt: f.clock.now.addingTimeInterval(3600), userID: user)
        _ = try await f.hub.store.save(session, for: SessionKey(provider: "auth0", account: account), expectedVersion: nil)
        return cookie
    }

    @Test func listAndSignOutOthersThenOneThenEverywhere() async throws {
        let f = try Fixture()
        let mine = try await browserSession(f, user: "ann", random: 1, age: 0)
        let laptop = try await browserSession(f, user: "ann", random: 2, age: 600)
        let phone = try await browserSession(f, user: "ann", random: 3, age: 1200)
        let bobs = try await browserSession(f, user: "bob", random: 4, age: 60)
        let me = try #require(await f.web.resolveSession(cookie: mine).identity)

        let listed = try await f.web.sessions(of: me)
        #expect(listed.map(\.id) == [mine, laptop, phone].map { f.web.account(ofSessionCookie: $0)! }, "newest first, only ann's")
        #expect(listed.map(\.isCurrent) == [true, false, false])
        #expect(listed[1].createdAt == Date(timeIntervalSince1970: TimeInterval(f.created - 600)))
        #expect(!listed.map(\.id).contains { $0.contains("AQEB") }, "no cookie value in an id")

        // Bob's session is not Ann's to sign out.
        let bobsID = try #require(f.web.account(ofSessionCookie: bobs))
        await #expect(throws: AuthError(.invalidRequest)) { try await f.web.signOutSession(id: bobsID, of: me) }
        try await f.web.signOutSession(id: listed[2].id, of: me)
        #expect(await f.web.resolveSession(cookie: phone).identity == nil, "the phone is signed out")
        #expect(try await f.web.signOutOtherSessions(of: me) == 1)
        #expect(await f.web.resolveSession(cookie: laptop).identity == nil)
        #expect(await f.web.resolveSession(cookie: mine).identity != nil, "the current session stays")
        #expect(await f.web.resolveSession(cookie: bobs).identity != nil, "bob's stays")
        #expect(try await f.web.signOutEverywhere(of: me) == 1)
        #expect(await f.web.resolveSession(cookie: mine).identity == nil)
        #expect(f.web.resolveCachedSession(cookie: mine)?.identity == nil, "no replica answers it from its cache either")
    }

    /// When a session was last seen is written to the store as its cookie is renewed (here, its
    /// first request on this replica, then a renewal interval later), so every replica lists it —
    /// another web core over the same store included; and the write loses no renewal (it takes the
    /// refresh lock and is made against the version it read).
    @Test func lastSeenIsKeptInTheStoreAtEachCookieRenewal() async throws {
        let f = try Fixture()
        let mine = try await browserSession(f, user: "ann", random: 1, age: 0)
        let laptop = try await browserSession(f, user: "ann", random: 2, age: 600)
        let me = try #require(await f.web.resolveSession(cookie: mine).identity)
        func lastSeen(of cookie: String) async throws -> Date? {
            let id = try #require(f.web.account(ofSessionCookie: cookie))
            return try await f.web.sessions(of: me).first { $0.id == id }?.lastSeenAt
        }
        func eventually(_ cookie: String, is date: Date) async throws {
            for _ in 0..<200 where try await lastSeen(of: cookie) != date { try await Task.sleep(for: .milliseconds(10)) }
            #expect(try await lastSeen(of: cookie) == date)
        }
        #expect(try await lastSeen(of: laptop) == nil, "not seen since it signed in")
        let first = Date(timeIntervalSince1970: f.clock.now.timeIntervalSince1970)
        #expect(await f.web.resolveSession(cookie: laptop).identity != nil)
        try await eventually(laptop, is: first)

        // Within the interval nothing is written; past it, the new time is.
        f.clock.advance(by: 30)
        _ = await f.web.resolveSession(cookie: laptop)
        try await Task.sleep(for: .milliseconds(50))
        #expect(try await lastSeen(of: laptop) == first)
        f.clock.advance(by: f.web.cookieRenewalInterval)
        let later = Date(timeIntervalSince1970: f.clock.now.timeIntervalSince1970)
        #expect(await f.web.resolveSession(cookie: laptop).identity != nil)
        try await eventually(laptop, is: later)

        // Another replica over the same store lists it too; the tokens are untouched.
        let other = try AuthHubWeb(hub: f.hub, configuration: WebSignInConfiguration(publicBaseURL: URL(string: "https://app.example.com")!))
        #expect(try await other.sessions(of: me).first { $0.id == f.web.account(ofSessionCookie: laptop) }?.lastSeenAt == later)
        let stored = try await f.hub.store.load(SessionKey(provider: "auth0", account: try #require(f.web.account(ofSessionCookie: laptop))))
        #expect(stored?.refreshToken?.revealed() == "rt-2" && stored?.accessToken.revealed() == "at-2")
    }

    @Test func deviceSummariesKeepFixedWordsOnly() {
        #expect(WebUserAgent.summary("Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0") == "Firefox on Linux")
        #expect(WebUserAgent.summary("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile/15E148 Safari/604.1")
            == "Safari on iPhone")
        #expect(WebUserAgent.summary("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/126.0 Safari/537.36 Edg/126.0") == "Edge on Windows")
        #expect(WebUserAgent.summary("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 HeadlessChrome/131.0 Safari/537.36") == "Chrome (headless) on Linux")
        #expect(WebUserAgent.summary("curl/8.5.0") == "curl")
        #expect(WebUserAgent.summary("<script>alert(1)</script>\u{1B}[31m") == "Another browser or program")
        #expect(WebUserAgent.summary(String(repeating: "x", count: 100_000) + "Firefox/1") == "Another browser or program", "only 512 bytes are read")
        #expect(WebUserAgent.summary(nil) == nil && WebUserAgent.summary("") == nil)
    }
}
