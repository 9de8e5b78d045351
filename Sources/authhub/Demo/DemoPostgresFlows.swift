import AuthHub
import AuthHubAuth0
import AuthHubEmulator
import AuthHubPostgres
import Foundation

/// `authhub demo --postgres URL`: two hubs in this process, each with its own `PostgresSessionStore`
/// on one table of that database — two replicas as far as PostgreSQL can tell — sharing one Auth0
/// session at the emulator: replica A signs in and replica B sees it (event and session); the
/// session expires and both renew it at once (one refresh); replica A signs out and replica B's
/// events say so and its session is gone. The table (`authhub_demo_<random>`) is dropped at the end.
enum DemoPostgresFlows {
    static let email = "replicas@example.com"

    static func run(url: Secret<String>, emulator: RunningEmulator, transport: any HTTPTransport, into report: inout DemoReport) async {
        let table = "authhub_demo_" + Data(SystemRandom().bytes(6)).map { String(format: "%02x", $0) }.joined()
        let key = Secret(Data(SystemRandom().bytes(32)).base64EncodedString())
        var replicas: [(hub: AuthHub, store: PostgresSessionStore)] = []
        var ready = false
        await report.record(provider: "postgres", flow: "two replicas on one table") {
            for _ in 0..<2 {
                let store = try PostgresSessionStore(url: url, table: table, encryptionKey: key, operationTimeout: .seconds(5))
                let environment = try ConfigLoader(registry: ProviderRegistry([Auth0Plugin()]),
                                                   environmentVariables: ["AUTHHUB_EMULATOR_URL": emulator.url("").absoluteString])
                    .load(data: Data(configuration.utf8), environment: "replicas", file: "<demo replicas>")
                replicas.append((try AuthHub(environment: environment, registry: ProviderRegistry([Auth0Plugin()]),
                                             context: ProviderContext(transport: transport), store: store), store))
            }
            _ = try await replicas[0].store.keys()  // creates the table; fails fast when the database is unreachable
            try await DemoAuth0Flows.seed(email, extra: [:], emulator: emulator, transport: transport)
            try await waitUntil("replica B listens for changes") { replicas[1].store.isListeningForChanges }
            ready = true
        }
        guard ready else {
            for replica in replicas { await replica.store.shutdown() }
            return
        }
        let (a, b) = (replicas[0].hub, replicas[1].hub)
        let seen = EventLog(b)
        defer { seen.stop() }

        await report.record(provider: "postgres", flow: "sign-in on A seen by B") {
            let session = try await a.signIn(.password(identifier: email, password: Secret(DemoAuth0Flows.password)))
            try await waitUntil("B's events show the sign-in") { seen.contains("signedIn") }
            guard try await b.session().accessToken == session.accessToken else { throw DemoFailure("B holds another session") }
        }
        await report.record(provider: "postgres", flow: "both renew an expired session: one refresh") {
            guard var session = try await replicas[0].store.load(SessionKey(provider: "auth0")) else { throw DemoFailure("no session stored") }
            let version = session.version
            session.expiresAt = Date().addingTimeInterval(-60)
            _ = try await replicas[0].store.save(session, for: session.key, expectedVersion: version)
            try await a.manager().reload()  // A's store does not report A's own writes to A
            try await waitUntil("B's cache follows") { (try? b.manager().cachedSession(minTTL: 0)) == nil }
            let before = try await refreshGrants(emulator, transport)
            async let fromA = a.session()
            async let fromB = b.session()
            let (renewedA, renewedB) = try await (fromA, fromB)
            let grants = try await refreshGrants(emulator, transport) - before
            guard renewedA.accessToken == renewedB.accessToken else { throw DemoFailure("the replicas got different sessions") }
            guard grants == 1 else { throw DemoFailure("\(grants) refresh requests reached the provider") }
        }
        await report.record(provider: "postgres", flow: "sign-out on A seen by B") {
            try await a.signOut()
            try await waitUntil("B's events show the sign-out") { seen.contains("signedOut") }
            guard try await b.manager().current() == nil else { throw DemoFailure("B still holds the session") }
        }
        for replica in replicas { await replica.store.shutdown() }
        if let cleaner = try? PostgresSessionStore(url: url, table: table, encryptionKey: key) {
            try? await cleaner.dropTable()
            await cleaner.shutdown()
        }
    }

    static let configuration = """
        {"defaultEnvironment": "replicas", "environments": {"replicas": {"defaultProvider": "auth0",
          "sessionStore": {"type": "memory"},
          "providers": [{"id": "auth0", "type": "auth0", "domain": "${AUTHHUB_EMULATOR_URL}/auth0", "clientId": "authhub-demo"}]}}}
        """

    /// The refresh grants the emulator's Auth0 tenant has received.
    static func refreshGrants(_ emulator: RunningEmulator, _ transport: any HTTPTransport) async throws -> Int {
        let stats = try await DemoCommand.getJSON(emulator.url("/auth0/__emulator/stats"), transport: transport)
        guard let grants = stats["refresh_grants"]?.intValue else { throw DemoFailure("no refresh_grants in the emulator's stats") }
        return grants
    }

    /// Waits up to 10 s for `condition`.
    static func waitUntil(_ what: String, _ condition: () async throws -> Bool) async throws {
        for _ in 0..<1_000 {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw DemoFailure("timed out waiting until \(what)")
    }

    /// The event names a hub has published, as they come.
    final class EventLog: Sendable {
        private let names = Mutex<[String]>([])
        private let task: Task<Void, Never>

        init(_ hub: AuthHub) {
            let events = hub.events()
            let names = names
            task = Task { for await event in events { names.withLock { $0.append(String("\(event)".prefix { $0 != "(" })) } } }
        }

        func contains(_ name: String) -> Bool { names.withLock { $0.contains(name) } }
        func stop() { task.cancel() }
    }
}
