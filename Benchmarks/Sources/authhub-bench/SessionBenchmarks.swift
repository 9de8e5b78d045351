import AuthHub
import AuthHubAuth0
import AuthHubProviders
import Foundation

/// The baseline of the cached-session rows: the same session read from a plain actor-protected dictionary.
actor PlainSessionDictionary {
    private var sessions: [SessionKey: Session] = [:]
    func set(_ session: Session, for key: SessionKey) { sessions[key] = session }
    func get(_ key: SessionKey) -> Session? { sessions[key] }
}

enum SessionBenchmarks {
    static let configuration = """
        {
          "defaultEnvironment": "bench",
          "environments": {
            "bench": {
              "defaultProvider": "auth0",
              "sessionStore": { "type": "memory" },
              "providers": [
                { "id": "auth0", "type": "auth0", "domain": "https://bench.invalid", "clientId": "bench" },
                { "id": "firebase", "type": "firebase", "apiKey": "bench-key", "projectId": "bench" }
              ]
            }
          }
        }
        """

    static func validSession(provider: String) -> Session {
        Session(providerID: provider, accessToken: Secret(String(repeating: "a", count: 800)), idToken: Secret(String(repeating: "i", count: 900)),
                refreshToken: Secret("refresh-token-value"), expiresAt: Date().addingTimeInterval(24 * 3600), scope: "openid profile email offline_access",
                userID: "user-1", claims: ["sub": "user-1", "email": "ada@example.com"])
    }

    /// `callers` concurrent tasks make `ops` calls in all.
    static func concurrently(_ callers: Int, _ ops: Int, _ call: @escaping @Sendable () async throws -> Void) async throws {
        if callers == 1 {
            for _ in 0..<ops { try await call() }
            return
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<callers {
                group.addTask { for _ in 0..<(ops / callers) { try await call() } }
            }
            try await group.waitForAll()
        }
    }

    static func run(_ options: BenchOptions) async throws -> [Row] {
        let names = [1, 8].flatMap { n in ["session.manager.\(n)", "session.hub.\(n)", "session.auth0.credentials.\(n)"] }
        guard names.contains(where: options.wants) else { return [] }

        let transport = CountingTransport(inner: nil)
        let environment = try ConfigLoader(registry: .builtIn, environmentVariables: [:])
            .load(data: Data(configuration.utf8), environment: "bench", file: "<bench>")
        let hub = try AuthHub(environment: environment, registry: .builtIn, context: ProviderContext(transport: transport))

        // The core manager on its own store.
        let key = SessionKey(provider: "firebase")
        let store = InMemorySessionStore()
        let manager = SessionManager(key: key, provider: try hub.provider("firebase"), store: store)
        let stored = try await manager.store(validSession(provider: "firebase"))

        // The hub's manager for the default provider.
        try await hub.manager().store(validSession(provider: "auth0"))

        // Auth0's credentials manager on its own store.
        let auth0 = try hub.provider("auth0", as: Auth0Provider.self)
        let credentials = Auth0CredentialsManager(provider: auth0, store: InMemorySessionStore())
        try await credentials.store(validSession(provider: "auth0"))

        let plain = PlainSessionDictionary()
        await plain.set(stored, for: key)

        let ops = options.batch(20_000)
        var rows: [Row] = []
        for callers in [1, 8] {
            let baseline: @Sendable () async throws -> Void = { guard await plain.get(key) != nil else { throw BenchFailure("no session") } }
            let subjects: [(String, @Sendable () async throws -> Void)] = [
                ("session.manager.\(callers)", { _ = try await manager.session() }),
                ("session.hub.\(callers)", { _ = try await hub.session(provider: nil) }),
                ("session.auth0.credentials.\(callers)", { _ = try await credentials.credentials() }),
            ]
            for (name, subject) in subjects where options.wants(name) {
                let before = transport.total
                let result = try await paired(samples: options.samples,
                                              baseline: { try await Clock.perOp(ops) { try await concurrently(callers, ops, baseline) } },
                                              subject: { try await Clock.perOp(ops) { try await concurrently(callers, ops, subject) } })
                let allocOps = options.batch(2_000)
                let allocs = try await Allocations.perOp(allocOps) { try await concurrently(callers, allocOps, subject) }
                let baseAllocs = try await Allocations.perOp(allocOps) { try await concurrently(callers, allocOps, baseline) }
                let requests = transport.total - before
                rows.append(timeRow(name, result, baseline: "actor dictionary read (\(callers) caller\(callers == 1 ? "" : "s"))",
                                    targetRatio: 3, allocs: allocs, baselineAllocs: baseAllocs, extraCheck: requests == 0,
                                    note: requests == 0 ? "" : "\(requests) network requests were attempted"))
            }
        }
        return rows
    }
}

struct BenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
