import AuthHub
import AuthHubAuth0
import AuthHubEmulator
import AuthHubPostgres
import AuthHubTesting
import Foundation
import Testing

/// The `authhub` CLI on a `postgres` session store: providers.json names the store, the CLI builds
/// it (it registers `PostgresSessionStoreFactory`), and `token`, `session`, `refresh` and `logout` work on the
/// row another process wrote.
@Suite(.enabled(if: TestDatabase.isAvailable, Comment(rawValue: TestDatabase.skipMessage)))
struct PostgresCLITests {
    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The built `authhub` next to the test runner (`.build/<triple>/debug/authhub`).
    static func binary() throws -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("authhub")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        let fallback = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/authhub")
        guard FileManager.default.isExecutableFile(atPath: fallback.path) else {
            throw AuthError(.invalidConfiguration, message: "the authhub executable was not built")
        }
        return fallback
    }

    /// Runs `authhub arguments…` on a thread of its own, so that waiting for it does not hold one of
    /// the few threads of Swift's cooperative pool (the other tests run on them).
    static func run(_ arguments: [String], environment: [String: String]) async throws -> Run {
        let run = try await SpawnedProcess.runDetached(try binary(), arguments,
                                                       environment: environment.merging(["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]) { a, _ in a })
        return Run(status: run.status, stdout: run.standardOutput, stderr: run.standardError)
    }

    @Test func tokenSessionAndLogoutWorkOnThePostgresStore() async throws {
        let table = TestDatabase.uniqueTable("cli")
        let storeKey = TestDatabase.randomKey()
        let store = try TestDatabase.store(table: table, key: storeKey)
        let key = SessionKey(provider: "auth0", account: "default")
        try await store.save(Session(providerID: "auth0", accountKey: "default", accessToken: Secret("cli-access-5e1f"),
                                     refreshToken: Secret("cli-refresh-9a0b"), expiresAt: Date().addingTimeInterval(3600),
                                     userID: "user-cli"),
                             for: key, expectedVersion: nil)

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authhub-pg-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("providers.json")
        try Data("""
            {"environments": {"production": {
              "sessionStore": {"type": "postgres", "url": "${DATABASE_URL}", "table": "\(table)", "encryptionKey": "${STORE_KEY}"},
              "providers": [{"id": "auth0", "type": "auth0", "domain": "http://127.0.0.1:1/auth0", "clientId": "cli"}]
            }}}
            """.utf8).write(to: config)
        let environment = ["DATABASE_URL": TestDatabase.url ?? "", "STORE_KEY": storeKey.revealed()]

        let token = try await Self.run(["token", "--config", config.path], environment: environment)
        #expect(token.status == 0, "\(token.stderr)")
        #expect(token.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "cli-access-5e1f")

        let session = try await Self.run(["session", "--json", "--config", config.path], environment: environment)
        #expect(session.status == 0, "\(session.stderr)")
        #expect(session.stdout.contains("\"user\" : \"user-cli\"") || session.stdout.contains("\"user\":\"user-cli\""), "\(session.stdout)")
        #expect(!session.stdout.contains("cli-access-5e1f") && !session.stdout.contains("cli-refresh-9a0b"))

        // The provider cannot be reached to revoke: the session is still removed, with a warning.
        let logout = try await Self.run(["logout", "--config", config.path], environment: environment)
        #expect(logout.status == 0, "\(logout.stderr)")
        #expect(try await store.load(key) == nil)

        // A missing variable is a validation error naming it, before any connection.
        let missing = try await Self.run(["session", "--config", config.path], environment: ["STORE_KEY": storeKey.revealed()])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("DATABASE_URL"), "\(missing.stderr)")

        await store.shutdown()
        await TestDatabase.drop([table])
    }

    @Test(.timeLimit(.minutes(3)))
    func theDemoShowsTwoReplicasSharingASessionAndCleansUp() async throws {
        let url = try #require(TestDatabase.url)
        let result = try await Self.run(["demo", "--postgres", url, "--json"], environment: [:])
        #expect(result.status == 0, "\(result.stdout.suffix(2_000)) \(result.stderr.suffix(2_000))")
        let report = try JSONValue.parse(Data(result.stdout.utf8))
        let rows = report["rows"]?.arrayValue ?? []
        let postgres = rows.filter { $0["provider"] == "postgres" }
        #expect(postgres.compactMap { $0["flow"]?.stringValue } == [
            "two replicas on one table", "sign-in on A seen by B", "both renew an expired session: one refresh", "sign-out on A seen by B",
        ])
        #expect(postgres.allSatisfy { $0["result"] == "ok" }, "\(postgres)")
        // The URL's password is never printed, and the demo's table is gone.
        let password = URLComponents(string: url)?.password ?? ""
        #expect(password.isEmpty || !(result.stdout + result.stderr).contains(password))
        let left = try await TestDatabase.withConnection { connection in
            try await connection.query("SELECT count(*) FROM pg_tables WHERE tablename LIKE 'authhub_demo_%'", logger: connection.logger)
                .collect().map { try $0.decode(Int64.self) }
        }
        #expect(left == [0])
    }

    @Test(.timeLimit(.minutes(2)))
    func refreshRenewsThePostgresSessionAtTheProvider() async throws {
        let emulator = try await Emulator.start()
        defer { Task { await emulator.stop() } }
        let wire = URLSessionTransport(defaultTimeout: .seconds(30))
        let json: HTTPFields = [.contentType: "application/json"]
        _ = try await wire.send(.post, emulator.url("/auth0/__emulator/users"), headerFields: json,
                                body: Data(#"{"email":"cli-refresh@example.com","password":"correct horse battery staple"}"#.utf8))
        let table = TestDatabase.uniqueTable("clirefresh")
        let storeKey = TestDatabase.randomKey()
        let store = try TestDatabase.store(table: table, key: storeKey)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authhub-pg-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let text = """
            {"environments": {"production": {
              "sessionStore": {"type": "postgres", "url": "${DATABASE_URL}", "table": "\(table)", "encryptionKey": "${STORE_KEY}"},
              "providers": [{"id": "auth0", "type": "auth0", "domain": "\(emulator.url("/auth0").absoluteString)", "clientId": "cli"}]
            }}}
            """
        let config = directory.appendingPathComponent("providers.json")
        try Data(text.utf8).write(to: config)
        let environment = ["DATABASE_URL": TestDatabase.url ?? "", "STORE_KEY": storeKey.revealed()]
        let loaded = try ConfigLoader(registry: ProviderRegistry([Auth0Plugin()]).registering(storeFactory: PostgresSessionStoreFactory()),
                                      environmentVariables: environment).load(data: Data(text.utf8))
        let hub = try AuthHub(environment: loaded, registry: ProviderRegistry([Auth0Plugin()]), context: ProviderContext(transport: wire), store: store)
        let signedIn = try await hub.signIn(.password(identifier: "cli-refresh@example.com", password: Secret("correct horse battery staple")))

        let refresh = try await Self.run(["refresh", "--config", config.path], environment: environment)
        #expect(refresh.status == 0, "\(refresh.stderr)")
        let stored = try #require(try await store.load(signedIn.key))
        #expect(stored.version == signedIn.version + 1)
        #expect(stored.accessToken != signedIn.accessToken)
        #expect(stored.refreshToken != nil && stored.refreshToken != signedIn.refreshToken)
        #expect(!(refresh.stdout + refresh.stderr).contains(stored.accessToken.revealed()))
        await store.shutdown()
        await TestDatabase.drop([table])
    }
}
