import AuthHub
@testable import AuthHubPostgres
import Foundation
import Logging
import PostgresNIO
import Testing

/// The PostgreSQL server of the tests: `AUTHHUB_TEST_POSTGRES_URL`, set by `.ci/postgres` (and
/// printed by `scripts/postgres-dev`). Unset, the suites that need it are skipped with this message.
enum TestDatabase {
    static let variable = "AUTHHUB_TEST_POSTGRES_URL"
    static let url = ProcessInfo.processInfo.environment[variable].flatMap { $0.isEmpty ? nil : $0 }
    static let isAvailable = url != nil
    /// The directory of the `scripts/postgres-dev` server (`down`/`up` restart it), when it is one.
    static let serverDirectory = ProcessInfo.processInfo.environment["AUTHHUB_POSTGRES_DEV_DIR"].flatMap { $0.isEmpty ? nil : $0 }
    static let skipMessage = "needs a PostgreSQL server: set \(variable) (.ci/postgres does; scripts/postgres-dev starts one)"

    /// A table name no other test uses.
    static func uniqueTable(_ label: String) -> String {
        "t_\(label)_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
    }

    /// 32 random bytes as base64: a store key.
    static func randomKey() -> Secret<String> {
        Secret(Data(SystemRandom().bytes(32)).base64EncodedString())
    }

    /// A store on the test server (its own pool), with a short operation timeout.
    static func store(table: String, key: Secret<String>, timeout: Duration = .seconds(20)) throws -> PostgresSessionStore {
        try PostgresSessionStore(url: Secret(url ?? ""), table: table, encryptionKey: key, operationTimeout: timeout)
    }

    /// Runs `body` on a plain connection of its own, to look at (or damage) what the store wrote.
    @discardableResult
    static func withConnection<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        let settings = try PostgresConnectionSettings(PostgresConnectionURL(parsing: url ?? ""))
        let connection = try await PostgresConnection.connect(configuration: settings.connection, id: 9_999,
                                                              logger: Logger(label: "authhub.tests.postgres"))
        do {
            let value = try await body(connection)
            try? await connection.close()
            return value
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// How many connections wait for the refresh lock of `key` in `table` (pg_locks shows a bigint
    /// advisory lock as classid, its high 32 bits, and objid, its low 32 bits).
    static func refreshLockWaiters(table: String, key: SessionKey) async throws -> Int64 {
        let bits = UInt64(bitPattern: PostgresRefreshLock.lockID(table: try PostgresTableName(table), key: key))
        let high = Int64(bits >> 32)
        let low = Int64(bits & 0xFFFF_FFFF)
        let rows = try await withConnection { connection in
            try await connection.query("""
                SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
                AND classid::bigint = \(high) AND objid::bigint = \(low)
                """, logger: connection.logger).collect().map { try $0.decode(Int64.self) }
        }
        return rows.first ?? 0
    }

    /// Drops the tables (and their migration records) a test created.
    static func drop(_ tables: [String]) async {
        _ = try? await withConnection { connection in
            for table in tables {
                let name = try PostgresTableName(table)
                _ = try await connection.query("DROP TABLE IF EXISTS \(unescaped: name.quoted)", logger: connection.logger).collect()
                _ = try await connection.query("DROP TABLE IF EXISTS \(unescaped: name.heldFactorsQuoted)", logger: connection.logger).collect()
                _ = try await connection.query("DELETE FROM authhub_schema_migrations WHERE table_name = \(table)", logger: connection.logger)
                    .collect()
            }
        }
    }
}

/// Waits until `condition` holds, checking every 10 ms, for at most `seconds`; records an issue
/// naming `what` and throws when it does not.
func eventually(_ what: String, within seconds: Int = 10, _ condition: () async throws -> Bool) async throws {
    for _ in 0..<(seconds * 100) {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    Issue.record("timed out waiting until \(what)")
    throw CancellationError()
}

/// Holds whoever waits until it is opened.
actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }
}

/// A provider whose refreshes are counted and held at `gate` until the test opens it, so that a
/// test can see what every other caller does while one refresh is in flight.
struct CountingRefreshProvider: AuthProvider {
    let id: String
    let type = "counting"
    var capabilities: Set<AuthCapability> { [.refresh] }
    let refreshes = Mutex(0)
    var gate: Gate?

    func refresh(_ session: Session, scope: String?) async throws -> Session {
        let n = refreshes.withLock { count -> Int in
            count += 1
            return count
        }
        await gate?.wait()
        return Session(providerID: id, accountKey: session.accountKey, accessToken: Secret("access-renewed-\(n)"),
                       refreshToken: Secret("refresh-renewed-\(n)"), expiresAt: Date().addingTimeInterval(3600))
    }
}

/// A provider that rotates refresh tokens and rejects any but the newest, as a strict identity
/// provider does: a session renewed from a spent token — a rotated one dropped on the floor — shows
/// up as a rejection.
final class RotatingRefreshProvider: AuthProvider {
    struct State {
        var valid = "rt-0"
        var issued = 0
        var rejected = 0
    }

    let id: String
    let type = "rotating"
    var capabilities: Set<AuthCapability> { [.refresh] }
    let state = Mutex(State())

    init(id: String) { self.id = id }

    func refresh(_ session: Session, scope: String?) async throws -> Session {
        let n = try state.withLock { s -> Int in
            guard session.refreshToken?.revealed() == s.valid else {
                s.rejected += 1
                throw AuthError(.refreshTokenInvalid, message: "Unknown or already used refresh token.", provider: id)
            }
            s.issued += 1
            s.valid = "rt-\(s.issued)"
            return s.issued
        }
        return Session(providerID: id, accountKey: session.accountKey, accessToken: Secret("at-\(n)"), refreshToken: Secret("rt-\(n)"),
                       expiresAt: Date().addingTimeInterval(3600))
    }
}
