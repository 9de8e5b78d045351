// AuthHubRefreshWorker: test support for the cross-process refresh test (not a product).
//
// Opens a FileSessionStore, builds a SessionManager over a refresh-only provider, runs N concurrent
// `session()` calls and prints one line of JSON describing the result:
//   {"event":"done","fingerprint":"<sha256 hex of the access token>","callers":20,"version":2}
// The token itself is never printed. With --wait-for-go it first prints {"event":"ready"} and waits
// for a line on standard input. Any failure prints a one-line reason on standard error and exits 1.
//
// With --config it loads an AuthHub from providers.json instead (the built-in providers, the
// PostgreSQL store registered) — the PostgreSQL tests' replicas — and its callers call
// `hub.session()`. With --config and --watch it prints {"event":"ready"} once its store listens for
// other replicas' changes (for a PostgreSQL store), then one line per hub event,
// {"event":"signedOut","key":"auth0/default"}, and exits after the first signedOut.
import AuthHub
import AuthHubPostgres
import AuthHubProviders
import Crypto
import Foundation
import Logging

/// Writes one line straight to a file descriptor (unbuffered, so a reader on a pipe sees it at once).
func emit(_ line: String, to handle: FileHandle = .standardOutput) {
    handle.write(Data((line + "\n").utf8))
}

func json(_ object: [String: Any]) -> String {
    guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return "{}" }
    return String(decoding: data, as: UTF8.self)
}

func fingerprint(_ token: Secret<String>) -> String {
    SHA256.hash(data: Data(token.revealed().utf8)).map { String(format: "%02x", $0) }.joined()
}

do {
    let options = try WorkerOptions.parse(Array(CommandLine.arguments.dropFirst()),
                                          environment: ProcessInfo.processInfo.environment)
    var logger = Logger(label: "authhub.refresh-worker")
    logger.logLevel = .warning
    let key = SessionKey(provider: options.provider, account: options.account)
    let caller: @Sendable () async throws -> Session
    if let config = options.configPath {
        let hub = try AuthHub.load(configPath: config, environment: options.environmentName,
                                   registry: ProviderRegistry.builtIn.registering(storeFactory: PostgresSessionStoreFactory()),
                                   context: ProviderContext(logger: logger))
        if options.watch {
            let events = hub.events()
            if let postgres = hub.store as? PostgresSessionStore {
                var waited = 0
                while !postgres.isListeningForChanges {
                    guard waited < 3_000 else { throw WorkerOptions.UsageError(description: "the store did not listen for changes within 30 s") }
                    try await Task.sleep(for: .milliseconds(10))
                    waited += 1
                }
            }
            emit(json(["event": "ready", "pid": Int(ProcessInfo.processInfo.processIdentifier)]))
            for await event in events {
                let name = "\(event)".prefix { $0 != "(" }
                emit(json(["event": String(name), "key": event.key.description]))
                if case .signedOut = event { exit(0) }
            }
            exit(1)
        }
        caller = { try await hub.session(provider: key.provider, account: key.account) }
    } else if let directory = options.storeDirectory, let tokenURL = options.tokenURL {
        let store = try FileSessionStore(directory: directory, encryptionKey: options.encryptionKey.map { Secret($0) }, logger: logger)
        let provider = RefreshOnlyProvider(id: options.provider, tokenURL: tokenURL, transport: URLSessionTransport())
        let manager = SessionManager(key: key, provider: provider, store: store, refreshLock: store.makeRefreshLock(), logger: logger)
        caller = { try await manager.session() }
    } else {
        throw WorkerOptions.UsageError(description: "--store or --config is required")
    }

    if options.waitForGo {
        emit(json(["event": "ready", "pid": Int(ProcessInfo.processInfo.processIdentifier)]))
        guard readLine() != nil else { throw WorkerOptions.UsageError(description: "standard input closed before go") }
    }

    let sessions = try await withThrowingTaskGroup(of: Session.self) { group in
        for _ in 0..<options.callers {
            group.addTask { try await caller() }
        }
        var all: [Session] = []
        for try await session in group { all.append(session) }
        return all
    }
    let prints = Set(sessions.map { fingerprint($0.accessToken) })
    guard prints.count == 1, let agreed = prints.first, let version = sessions.map(\.version).max() else {
        throw WorkerOptions.UsageError(description: "the \(options.callers) callers got \(prints.count) different access tokens")
    }
    emit(json(["event": "done", "fingerprint": agreed, "callers": sessions.count, "version": Int(version)]))
    exit(0)
} catch {
    // AuthError descriptions carry no secrets.
    emit("AuthHubRefreshWorker: \(error)", to: .standardError)
    exit(1)
}
