import AuthHub
import AuthHubTesting
import Crypto
import Foundation
import Testing

/// The stores' index by user (``UserIndexedSessionStore``): the conformance check catches an index
/// that keeps stale entries; the file store's markers survive what a crash or another writer leaves
/// behind; the hub lists a user's sessions through it.
@Suite struct UserIndexTests {
    /// An index that only ever adds (a session that moves to another user or is removed stays listed).
    actor AppendOnlyIndexStore: UserIndexedSessionStore {
        let inner = InMemorySessionStore()
        var index: [String: [SessionKey]] = [:]
        func load(_ key: SessionKey) async throws -> Session? { await inner.load(key) }
        func save(_ session: Session, for key: SessionKey, expectedVersion: UInt64?) async throws -> Session {
            let stored = try await inner.save(session, for: key, expectedVersion: expectedVersion)
            if let user = stored.userID, !(index[key.provider + "/" + user] ?? []).contains(key) { index[key.provider + "/" + user, default: []].append(key) }
            return stored
        }
        func remove(_ key: SessionKey) async throws { await inner.remove(key) }
        func keys() async throws -> [SessionKey] { await inner.keys() }
        func keys(provider: String, userID: String) -> [SessionKey] { (index[provider + "/" + userID] ?? []).sorted() }
        nonisolated func makeRefreshLock() -> any RefreshLock { InProcessRefreshLock() }
    }

    @Test func theConformanceCheckCatchesStaleEntries() async {
        let failures = await SessionStoreConformance { AppendOnlyIndexStore() }.run(only: ["userIndexFollowsSavesAndRemovals"])
        #expect(failures.contains { $0.contains("after web.2 moved to u2") }, "\(failures)")
        #expect(failures.contains { $0.contains("after removing web.1") }, "\(failures)")
    }

    func session(_ account: String, user: String?) -> Session {
        Session(providerID: "p", accountKey: account, accessToken: Secret("a-\(account)"), userID: user)
    }

    @Test func fileMarkersThatNoLongerMatchAreDroppedOnReading() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authhub-user-index-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try FileSessionStore(directory: directory, encryptionKey: Secret(Data(repeating: 7, count: 32).base64EncodedString()))
        let key = SessionKey(provider: "p", account: "web.1")
        try await store.save(session("web.1", user: "u1"), for: key, expectedVersion: nil)
        #expect(try await store.keys(provider: "p", userID: "u1") == [key])
        let u1Markers = directory.appendingPathComponent(".by-user/" + SessionUserReferenceProbe.hex("p", "u1"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: u1Markers.path).count == 1)

        // The session moves to another user: the old marker stays until a look-up drops it.
        try await store.save(session("web.1", user: "u2"), for: key, expectedVersion: nil)
        #expect(try await store.keys(provider: "p", userID: "u2") == [key])
        #expect(try await store.keys(provider: "p", userID: "u1") == [])
        #expect(try FileManager.default.contentsOfDirectory(atPath: u1Markers.path).isEmpty, "the stale marker was deleted")

        // Removed: listed no more. A session file another process broke is left out, marker kept.
        let other = SessionKey(provider: "p", account: "web.2")
        try await store.save(session("web.2", user: "u2"), for: other, expectedVersion: nil)
        try await store.remove(key)
        #expect(try await store.keys(provider: "p", userID: "u2") == [other])
        try Data("not a session".utf8).write(to: store.fileURL(for: other))
        #expect(try await store.keys(provider: "p", userID: "u2") == [])
        try await store.save(session("web.2", user: "u2"), for: other, expectedVersion: nil)
        #expect(try await store.keys(provider: "p", userID: "u2") == [other], "the marker kept for the broken file works again")
        // The session files are all keys() lists: the index directory is not a session.
        #expect(try await store.keys() == [other])
    }

    @Test func theHubListsAUsersSessionsThroughTheIndex() async throws {
        let registry = ProviderRegistry([AcmePlugin()])
        let config = """
        {"defaultEnvironment": "dev", "environments": {"dev": {"defaultProvider": "acme", "sessionStore": {"type": "memory"},
          "providers": [{"id": "acme", "type": "acme", "tenant": "acme-1"}]}}}
        """
        let environment = try ConfigLoader(registry: registry, environmentVariables: [:]).load(data: Data(config.utf8))
        let hub = try AuthHub(environment: environment, registry: registry, context: ProviderContext(transport: StubTransport()))
        for (account, user) in [("web.a", "ann"), ("web.b", "ann"), ("web.c", "bob")] {
            try await hub.store.save(Session(providerID: "acme", accountKey: account, accessToken: Secret("t"), userID: user),
                                     for: SessionKey(provider: "acme", account: account), expectedVersion: nil)
        }
        #expect(try await hub.sessionKeys(ofUser: "ann").map(\.account) == ["web.a", "web.b"])
        #expect(try await hub.sessionKeys(ofUser: "bob", provider: "acme").map(\.account) == ["web.c"])
        await #expect(throws: AuthError(.invalidConfiguration)) { try await hub.sessionKeys(ofUser: "ann", provider: "nosuch") }
    }
}

/// The marker directory's name, computed here independently of the store (SHA-256 of provider, NUL, user id).
enum SessionUserReferenceProbe {
    static func hex(_ provider: String, _ user: String) -> String {
        var bytes = Array(provider.utf8)
        bytes.append(0)
        bytes += Array(user.utf8)
        return SHA256.hash(data: Data(bytes)).map { String(format: "%02x", $0) }.joined()
    }
}
