import AuthHub
import AuthHubAuth0
@testable import AuthHubPostgres
import AuthHubTesting
import AuthHubWebCore
import Foundation
import Testing

/// "Where you are signed in" across replicas: two web replicas (each its own hub and store on one
/// PostgreSQL table) list a user's browser sessions through the table's index by user (with when
/// the other replica last saw each), and a
/// session signed out on one replica is over on the other at its next request.
@Suite(.enabled(if: TestDatabase.isAvailable, Comment(rawValue: TestDatabase.skipMessage)))
struct PostgresWebSessionsTests {
    static func replica(_ store: PostgresSessionStore) throws -> (AuthHub, AuthHubWeb) {
        let registry = ProviderRegistry([Auth0Plugin()])
        // The provider is a closed loopback port: nothing here needs it (tokens valid for an hour;
        // a revocation that fails is logged, the session removed all the same).
        let config = """
        {"defaultEnvironment": "dev", "environments": {"dev": {"defaultProvider": "auth0", "sessionStore": {"type": "memory"},
          "providers": [{"id": "auth0", "type": "auth0", "domain": "http://127.0.0.1:9/auth0", "clientId": "c"}]}}}
        """
        let environment = try ConfigLoader(registry: registry, environmentVariables: [:]).load(data: Data(config.utf8))
        let hub = try AuthHub(environment: environment, registry: registry, store: store)
        let web = try AuthHubWeb(hub: hub, configuration: WebSignInConfiguration(publicBaseURL: URL(string: "https://app.example.com")!,
                                                                                 csrfKey: Secret("shared-csrf-key")))
        return (hub, web)
    }

    @Test func aSessionSignedOutOnOneReplicaIsOverOnTheOther() async throws {
        let stores = PostgresSessionStoreTests.Stores()
        let table = TestDatabase.uniqueTable("web_sessions")
        let key = TestDatabase.randomKey()
        let (hubA, webA) = try Self.replica(try stores.make(table: table, key: key))
        let (_, webB) = try Self.replica(try stores.make(table: table, key: key))
        let now = Int64(Date().timeIntervalSince1970)
        func browser(_ byte: UInt8, user: String, age: Int64) async throws -> String {
            let cookie = "auth0.\(now - age).\(Base64URL.encode(Array(repeating: byte, count: 32)))"
            let account = try #require(webA.account(ofSessionCookie: cookie))
            let session = Session(providerID: "auth0", accountKey: account, accessToken: Secret("at-\(byte)"), refreshToken: Secret("rt-\(byte)"),
                                  expiresAt: Date().addingTimeInterval(3600), userID: user)
            _ = try await hubA.store.save(session, for: SessionKey(provider: "auth0", account: account), expectedVersion: nil)
            return cookie
        }
        let mine = try await browser(1, user: "ann", age: 0)
        let laptop = try await browser(2, user: "ann", age: 300)
        _ = try await browser(3, user: "bob", age: 60)
        // The laptop is served by replica B (cached there), the list asked of replica A.
        #expect(await webB.resolveSession(cookie: laptop).identity?.subject == "ann")
        let me = try #require(await webA.resolveSession(cookie: mine).identity)
        var listed = try await webA.sessions(of: me)
        #expect(listed.count == 2 && listed.map(\.isCurrent) == [true, false], "ann's two sessions, not bob's: \(listed)")
        // When replica B last saw the laptop is in the table, so replica A lists it.
        try await eventually("replica A lists when replica B last saw the laptop") {
            listed = try await webA.sessions(of: me)
            return listed.first { !$0.isCurrent }?.lastSeenAt != nil
        }
        let other = try #require(listed.first { !$0.isCurrent })
        #expect(abs(try #require(other.lastSeenAt).timeIntervalSinceNow) < 60)
        try await webA.signOutSession(id: other.id, of: me)
        try await eventually("replica B answers the laptop's cookie as signed out") {
            if case .ended = await webB.resolveSession(cookie: laptop) { return true }
            return false
        }
        #expect(await webA.resolveSession(cookie: mine).identity != nil, "this browser stays signed in")
        await stores.finish()
    }
}
