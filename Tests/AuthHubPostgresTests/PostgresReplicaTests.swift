import AuthHub
import AuthHubAuth0
@testable import AuthHubEmulator
@testable import AuthHubPostgres
import AuthHubTesting
import Crypto
import Foundation
import Testing

/// Replicas as separate OS processes (`AuthHubRefreshWorker --config`, each an app with its own
/// `AuthHub` and `PostgresSessionStore`) on one table, renewing an Auth0 session at the emulator's
/// tenant (in this process, so that its refresh grants can be counted and slowed down).
@Suite(.serialized, .enabled(if: TestDatabase.isAvailable, Comment(rawValue: TestDatabase.skipMessage)))
struct PostgresReplicaTests {
    static let password = "correct horse battery staple"

    /// An emulator with a client (reuse interval 30 s, as Auth0 recommends with rotation) and a
    /// user, a table, providers.json for the workers, and a hub in this process on the same table.
    struct Fixture {
        let emulator: RunningEmulator
        let table: String
        let storeKey: Secret<String>
        let directory: URL
        let hub: AuthHub
        let store: PostgresSessionStore
        let environment: [String: String]
        var config: String { directory.appendingPathComponent("providers.json").path }

        static func make(_ label: String) async throws -> Fixture {
            let emulator = try await Emulator.start()
            let wire = URLSessionTransport(defaultTimeout: .seconds(30))
            let json: HTTPFields = [.contentType: "application/json"]
            let client = try await wire.send(.post, emulator.url("/auth0/__emulator/clients"), headerFields: json,
                                             body: Data(#"{"client_id":"authhub-replicas","refresh_token_leeway":30}"#.utf8))
            #expect(client.status == 201)
            let user = try await wire.send(.post, emulator.url("/auth0/__emulator/users"), headerFields: json,
                                           body: Data(#"{"email":"replica@example.com","password":"\#(PostgresReplicaTests.password)"}"#.utf8))
            #expect(user.status == 201)
            let table = TestDatabase.uniqueTable(label)
            let storeKey = TestDatabase.randomKey()
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authhub-replicas-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let config = """
                {"defaultEnvironment": "production", "environments": {"production": {"defaultProvider": "auth0",
                  "sessionStore": {"type": "postgres", "url": "${DATABASE_URL}", "table": "\(table)", "encryptionKey": "${AUTHHUB_STORE_KEY}"},
                  "providers": [{"id": "auth0", "type": "auth0", "domain": "\(emulator.url("/auth0").absoluteString)",
                                 "clientId": "authhub-replicas", "connection": "Username-Password-Authentication"}]}}}
                """
            try config.write(to: directory.appendingPathComponent("providers.json"), atomically: true, encoding: .utf8)
            var environment = ProcessInfo.processInfo.environment
            environment["DATABASE_URL"] = TestDatabase.url
            environment["AUTHHUB_STORE_KEY"] = storeKey.revealed()
            let loader = ConfigLoader(registry: ProviderRegistry([Auth0Plugin()]).registering(storeFactory: PostgresSessionStoreFactory()),
                                      environmentVariables: environment)
            let loaded = try loader.load(data: Data(config.utf8))
            let store = try TestDatabase.store(table: table, key: storeKey)
            let hub = try AuthHub(environment: loaded, registry: ProviderRegistry([Auth0Plugin()]),
                                  context: ProviderContext(transport: wire), store: store)
            return Fixture(emulator: emulator, table: table, storeKey: storeKey, directory: directory, hub: hub, store: store,
                           environment: environment)
        }

        /// Signs in here, then marks the stored session expired (so that every caller must renew).
        func signInExpired() async throws -> Session {
            let session = try await hub.signIn(.password(identifier: "replica@example.com", password: Secret(PostgresReplicaTests.password)))
            #expect(session.refreshToken != nil)
            var expired = session
            expired.expiresAt = Date().addingTimeInterval(-60)
            return try await store.save(expired, for: session.key, expectedVersion: session.version)
        }

        func worker(_ arguments: [String]) throws -> ChildProcess {
            try ChildProcess(executable: try ChildProcess.packageExecutable("AuthHubRefreshWorker"),
                             arguments: ["--config", config] + arguments, environment: environment)
        }

        var refreshGrants: Int { get async { await emulator.state.get(Auth0Tenant.key).refreshGrants } }
        var refreshesInProgress: Int { get async { await emulator.state.get(Auth0Tenant.key).refreshesInProgress } }

        func setRefreshLatency(_ latency: Duration) async {
            await emulator.state.update(Auth0Tenant.key) { $0.refreshLatency = latency }
        }

        func finish() async {
            await store.shutdown()
            await emulator.stop()
            await TestDatabase.drop([table])
            try? FileManager.default.removeItem(at: directory)
        }
    }

    static func fingerprint(_ token: Secret<String>) -> String {
        SHA256.hash(data: Data(token.revealed().utf8)).map { String(format: "%02x", $0) }.joined()
    }

    @Test(.timeLimit(.minutes(3)))
    func fourProcessesOfTwoHundredFiftyCallersRefreshOnce() async throws {
        let fixture = try await Fixture.make("replicas")
        defer { Task { await fixture.finish() } }
        _ = try await fixture.signInExpired()
        let grantsBefore = await fixture.refreshGrants

        let workers = try (0..<4).map { _ in try fixture.worker(["--callers", "250", "--wait-for-go"]) }
        defer { workers.forEach { $0.terminate() } }
        for (i, worker) in workers.enumerated() {
            let ready = try #require(await worker.nextLine(), "worker \(i) exited before ready: \(worker.standardError)")
            #expect(ready.contains(#""event":"ready""#), "worker \(i): \(ready)")
        }
        // The provider takes 300 ms per refresh, so that replicas without a shared lock would overlap.
        await fixture.setRefreshLatency(.milliseconds(300))
        let started = ContinuousClock.now
        for worker in workers { worker.send("go") }
        var fingerprints: Set<String> = []
        for (i, worker) in workers.enumerated() {
            let line = await worker.nextLine()
            let status = await worker.exitStatus()
            #expect(status == 0, "worker \(i) exited with \(status): \(worker.standardError)")
            let result = try #require(line.flatMap { try? JSONValue.parse(Data($0.utf8)) }, "worker \(i): \(worker.standardError)")
            #expect(result["event"] == "done")
            #expect(result["callers"] == 250)
            if let print = result["fingerprint"]?.stringValue { fingerprints.insert(print) }
        }
        let wall = ContinuousClock.now - started
        #expect(await fixture.refreshGrants - grantsBefore == 1, "1,000 callers in 4 processes must send one refresh request")
        let stored = try #require(try await fixture.store.load(SessionKey(provider: "auth0")))
        #expect(fingerprints == [Self.fingerprint(stored.accessToken)], "every caller gets the stored, renewed session")
        #expect(stored.isValid(at: Date(), minTTL: 60))
        print("4 × 250 callers: 1 refresh, wall \(wall)")
    }

    @Test(.timeLimit(.minutes(3)))
    func aLockHolderKilledMidRefreshDoesNotBlockTheNextReplica() async throws {
        let fixture = try await Fixture.make("kill")
        defer { Task { await fixture.finish() } }
        let seeded = try await fixture.signInExpired()

        // Replica A takes the lock and sends its refresh, which the provider holds for 30 s.
        await fixture.setRefreshLatency(.seconds(30))
        let holder = try fixture.worker(["--callers", "1"])
        defer { holder.terminate() }
        try await eventually("replica A's refresh reaches the provider", within: 20) { await fixture.refreshesInProgress == 1 }
        // Replica B queues on the lock.
        let waiter = try fixture.worker(["--callers", "1"])
        defer { waiter.terminate() }
        try await eventually("replica B waits for the lock", within: 20) {
            try await TestDatabase.refreshLockWaiters(table: fixture.table, key: seeded.key) >= 1
        }
        // A dies mid-refresh. Its connection closes with the process, and the lock with it.
        await fixture.setRefreshLatency(.zero)
        holder.killNow()
        let killed = ContinuousClock.now
        let line = await waiter.nextLine()
        let status = await waiter.exitStatus()
        let waited = ContinuousClock.now - killed
        #expect(status == 0, "replica B: \(waiter.standardError)")
        #expect(line?.contains(#""event":"done""#) == true, "\(line ?? "nothing")")
        #expect(waited < .seconds(10), "replica B waited \(waited) after the holder died")

        // Nothing lost: B's session is stored and renews again.
        let stored = try #require(try await fixture.store.load(seeded.key))
        #expect(stored.version == seeded.version + 1)
        #expect(stored.isValid(at: Date(), minTTL: 60))
        let renewed = try await fixture.hub.refresh()
        #expect(renewed.version == stored.version + 1)
        print("lock holder killed: the next replica renewed \(waited) after the kill")
    }

    @Test(.timeLimit(.minutes(2)))
    func aSignOutInOneProcessReachesAnotherProcesssEvents() async throws {
        let fixture = try await Fixture.make("events")
        defer { Task { await fixture.finish() } }
        _ = try await fixture.signInExpired()
        let watcher = try fixture.worker(["--watch"])
        defer { watcher.terminate() }
        let ready = try #require(await watcher.nextLine(), "watcher exited before ready: \(watcher.standardError)")
        #expect(ready.contains(#""event":"ready""#))

        let signedOut = ContinuousClock.now
        try await fixture.hub.signOut()
        let line = await watcher.nextLine()
        let seenAfter = ContinuousClock.now - signedOut
        #expect(line == #"{"event":"signedOut","key":"auth0\/default"}"# || line == #"{"event":"signedOut","key":"auth0/default"}"#,
                "\(line ?? "nothing"): \(watcher.standardError)")
        #expect(await watcher.exitStatus() == 0)
        #expect(seenAfter < .seconds(5), "the other process heard of the sign-out after \(seenAfter)")
        print("sign-out seen by another process after \(seenAfter)")
    }
}
