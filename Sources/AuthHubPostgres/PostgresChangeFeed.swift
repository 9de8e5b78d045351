import AuthHub
import Crypto
import Foundation
import Logging
import PostgresNIO

/// The change feed of a ``PostgresSessionStore``: `LISTEN` on a connection of its own, the
/// notifications the store's writes send (`pg_notify`, in the same statement as the write, so a
/// change is announced exactly when it commits) turned into ``SessionStoreChange``s.
///
/// - The listening connection is opened when the first subscriber arrives and kept (reconnecting with
///   back-off from 250 ms up to 5 s) until the store shuts down. Every time it listens — the first
///   time included — subscribers get ``SessionStoreChange/resynchronize``: notifications are not
///   durable, so whatever happened while nobody listened is found by reading the store again.
/// - A connection whose server went silent is found by a `SELECT 1` every 10 s that must answer
///   within 5 s; the connection is then closed and opened again.
/// - Notifications the store itself sent (same `origin`) are not reported: its hub published them.
/// - A payload is outside input like any other: anything that does not parse is ignored (logged at
///   debug), a key too long for the 8,000-byte payload is announced as a resynchronization.
final class PostgresChangeFeed: Sendable {
    /// The payload format's tag.
    static let tag = "authhub1"
    /// The longest payload PostgreSQL's `pg_notify` takes is 7,999 bytes; keys are left out beyond this.
    static let maxKeyBytes = 6_000
    static let heartbeatInterval = Duration.seconds(10)
    static let heartbeatTimeout = Duration.seconds(5)
    static let maxReconnectPause = Duration.seconds(5)

    /// The notification channel of `table` (at most 63 bytes, PostgreSQL's identifier limit).
    static func channel(for table: PostgresTableName) -> String {
        let plain = "authhub_changes_\(table.name)"
        if plain.utf8.count <= 63 { return plain }
        let digest = SHA256.hash(data: Data(table.name.utf8)).prefix(12).map { String(format: "%02x", $0) }.joined()
        return "authhub_changes_\(digest)"
    }

    /// What a write's notification starts with; the statement appends the row's new version.
    /// `kind`: `s` a sign-in (unconditional write), `r` a renewal (compare-and-swap), `d` a removal.
    static func payloadPrefix(origin: String, kind: Character, key: SessionKey) -> String {
        let provider = Data(key.provider.utf8), account = Data(key.account.utf8)
        guard provider.count + account.count <= maxKeyBytes else { return "\(tag);\(origin);x;;;" }
        return "\(tag);\(origin);\(kind);\(Base64URL.encode(provider));\(Base64URL.encode(account));"
    }

    /// The change a payload announces, nil when it is the store's own, or does not parse.
    static func parse(_ payload: String, ownOrigin: String) -> SessionStoreChange? {
        guard payload.utf8.count < 8_000 else { return nil }
        let parts = payload.split(separator: ";", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0] == tag, parts[1].count <= 64 else { return nil }
        guard parts[1] != ownOrigin else { return nil }
        if parts[2] == "x" { return .resynchronize }
        guard let provider = Base64URL.decode(String(parts[3])).flatMap({ String(data: $0, encoding: .utf8) }),
              let account = Base64URL.decode(String(parts[4])).flatMap({ String(data: $0, encoding: .utf8) }),
              !provider.isEmpty, !account.isEmpty,
              let version = UInt64(parts[5]) else { return nil }
        let key = SessionKey(provider: provider, account: account)
        switch parts[2] {
        case "s": return version >= 1 ? .saved(key, version: version, signIn: true) : nil
        case "r": return version >= 1 ? .saved(key, version: version, signIn: false) : nil
        case "d": return .removed(key)
        default: return nil
        }
    }

    private struct State {
        var subscribers: [UInt64: AsyncStream<SessionStoreChange>.Continuation] = [:]
        var nextID: UInt64 = 0
        var listener: Task<Void, Never>?
        var stopped = false
        var listening = false
    }

    let channel: String
    let origin: String
    private let connection: PostgresConnection.Configuration
    private let location: String
    private let logger: Logger
    private let state = Mutex(State())
    private let connectionIDs = Mutex(1_000_000)

    init(connection: PostgresConnection.Configuration, table: PostgresTableName, location: String, logger: Logger) {
        self.connection = connection
        self.channel = Self.channel(for: table)
        self.location = location
        self.logger = logger
        var generator = SystemRandomNumberGenerator()
        self.origin = (0..<8).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max, using: &generator)) }.joined()
    }

    /// Stops listening without waiting (the owning store's `deinit`: the listening task holds the
    /// feed, so the feed's own `deinit` cannot do it), and ends every subscriber's stream.
    /// - Returns: the listening task, if there was one, to await.
    @discardableResult
    func cancel() -> Task<Void, Never>? {
        let (task, subscribers) = state.withLock { s in
            s.stopped = true
            defer { s.subscribers.removeAll() }
            return (s.listener, Array(s.subscribers.values))
        }
        task?.cancel()
        for subscriber in subscribers { subscriber.finish() }
        return task
    }

    /// Stops listening, waiting until the listening connection is closed.
    func stop() async {
        await cancel()?.value
    }

    /// Whether the feed is listening now (for tests and health checks).
    var isListening: Bool { state.withLock { $0.listening } }

    /// A new subscriber's stream; the first one starts listening. After ``cancel()`` the stream ends at once.
    func subscribe() -> AsyncStream<SessionStoreChange> {
        let (stream, continuation) = AsyncStream<SessionStoreChange>.makeStream(bufferingPolicy: .bufferingNewest(4_096))
        let id = state.withLock { s -> UInt64? in
            guard !s.stopped else { return nil }
            s.nextID += 1
            s.subscribers[s.nextID] = continuation
            if s.listener == nil {
                s.listener = Task { [weak self] in await self?.listen() }
            }
            return s.nextID
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    private func broadcast(_ change: SessionStoreChange) {
        for subscriber in state.withLock({ Array($0.subscribers.values) }) { subscriber.yield(change) }
    }

    /// Listens until cancelled, reconnecting after every failure.
    private func listen() async {
        var pause = Duration.milliseconds(250)
        while !Task.isCancelled {
            let id = connectionIDs.withLock { next -> Int in
                next &+= 1
                return next
            }
            do {
                let connection = try await Deadline.run(PostgresConnectionSettings.connectTimeout + .seconds(5), onTimeout: {
                    PostgresSessionStore.timeoutError("listen for session changes", location: self.location,
                                                      timeout: PostgresConnectionSettings.connectTimeout)
                }, abandoned: { connection in try? await connection.close() }) { [configuration = self.connection, logger] in
                    try await PostgresConnection.connect(configuration: configuration, id: id, logger: logger)
                }
                await withTaskCancellationHandler {
                    await consume(connection, onListening: { pause = .milliseconds(250) })
                } onCancel: {
                    Task { try? await connection.close() }
                }
                try? await connection.close()
            } catch {
                let mapped = PostgresErrorMapper.map(error, operation: "listen for session changes", store: location)
                logger.debug("session change feed: cannot connect", metadata: ["error": "\(mapped.message)"])
            }
            state.withLock { $0.listening = false }
            guard !Task.isCancelled else { return }
            try? await Task.sleep(for: pause)
            pause = min(pause * 2, Self.maxReconnectPause)
        }
    }

    /// Listens on one connection until it fails (or the task is cancelled).
    private func consume(_ connection: PostgresConnection, onListening: () -> Void) async {
        let logger = logger
        let heartbeat = Task {
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: Self.heartbeatInterval)
                    _ = try await Deadline.run(Self.heartbeatTimeout, onTimeout: { AuthError(.timeout, message: "heartbeat") }) {
                        try await connection.query("SELECT 1", logger: logger).collect().count
                    }
                } catch {
                    if Task.isCancelled { return }
                    logger.notice("session change feed: the listening connection stopped answering; reconnecting")
                    Task { try? await connection.close() }
                    return
                }
            }
        }
        defer { heartbeat.cancel() }
        do {
            try await connection.listen(on: channel) { notifications in
                state.withLock { $0.listening = true }
                onListening()
                logger.debug("session change feed: listening", metadata: ["channel": "\(channel)"])
                broadcast(.resynchronize)
                for try await notification in notifications {
                    if let change = Self.parse(notification.payload, ownOrigin: origin) {
                        broadcast(change)
                    } else if !notification.payload.hasPrefix("\(Self.tag);\(origin);") {
                        logger.debug("session change feed: ignoring a notification that does not parse")
                    }
                }
            }
        } catch {
            if Task.isCancelled { return }
            let mapped = PostgresErrorMapper.map(error, operation: "listen for session changes", store: location)
            logger.notice("session change feed: disconnected; reconnecting", metadata: ["error": "\(mapped.message)"])
        }
    }
}
