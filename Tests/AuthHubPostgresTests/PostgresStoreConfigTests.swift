import AuthHub
import AuthHubPostgres
import AuthHubProviders
import Foundation
import Testing

/// The `postgres` session store settings: declared and checked by ``PostgresSessionStoreFactory``,
/// validated through core's ``ConfigLoader`` like every plugin's fields when the factory is registered.
@Suite struct PostgresStoreConfigTests {
    static let registry = ProviderRegistry.builtIn.registering(storeFactory: PostgresSessionStoreFactory())
    static let provider = #"{"id": "a", "type": "auth0", "domain": "t.auth0.com", "clientId": "c"}"#
    static let key = Data(repeating: 7, count: 32).base64EncodedString()

    private func document(_ store: String) -> Data {
        Data(#"{"environments": {"production": {"sessionStore": \#(store), "providers": [\#(Self.provider)]}}}"#.utf8)
    }

    private func problems(_ store: String, _ variables: [String: String] = [:]) -> [String] {
        ConfigLoader(registry: Self.registry, environmentVariables: variables).validate(data: document(store)).map(\.description)
    }

    @Test func aValidStoreLoadsWithItsDefaults() throws {
        let variables = ["DATABASE_URL": "postgres://app:s3cret%40x@db.internal:5433/auth?sslmode=verify-full", "STORE_KEY": Self.key]
        let loaded = try ConfigLoader(registry: Self.registry, environmentVariables: variables).load(data: document(
            #"{"type": "postgres", "url": "${DATABASE_URL}", "encryptionKey": "${STORE_KEY}"}"#))
        guard case .plugin(let settings) = loaded.sessionStore else {
            Issue.record("expected a postgres store")
            return
        }
        #expect(settings.secret("url")?.revealed() == variables["DATABASE_URL"])
        #expect(settings.string("table") == "authhub_sessions")
        #expect(settings.secret("encryptionKey")?.revealed() == Self.key)
        #expect(settings.path == "environments.production.sessionStore")
        // The URL holds a password and the key seals every row: neither is shown by description or dump.
        #expect(settings.secretFields == ["url", "encryptionKey"])
        var dumped = ""
        dump(loaded.sessionStore, to: &dumped)
        for shown in [String(describing: settings), String(reflecting: settings), "\(loaded.sessionStore)", dumped] {
            #expect(!shown.contains("s3cret") && !shown.contains(Self.key), "\(shown)")
            #expect(shown.contains("authhub_sessions"), "\(shown)")
        }
        #expect(loaded.sessionStore.type == "postgres")
    }

    @Test func everyMistakeIsReportedAtItsPathWithoutTheSecret() {
        #expect(Set(problems(#"{"type": "postgres"}"#)) == [
            "environments.production.sessionStore.url: required",
            "environments.production.sessionStore.encryptionKey: required",
        ])
        #expect(problems(#"{"type": "postgres", "url": "${DATABASE_URL}", "encryptionKey": "${STORE_KEY}"}"#, ["STORE_KEY": Self.key])
            == ["environments.production.sessionStore.url: environment variable DATABASE_URL is not set"])
        let bad = problems(#"{"type": "postgres", "url": "mysql://u:hunter2@h/db", "table": "x; DROP TABLE y", "encryptionKey": "c2hvcnQ=", "path": "p"}"#)
        #expect(Set(bad) == [
            "environments.production.sessionStore.path: unknown key for a postgres store (allowed: type, url, table, encryptionKey)",
            "environments.production.sessionStore.url: must start with postgres:// or postgresql://",
            "environments.production.sessionStore.table: must be a plain SQL identifier: ASCII letters, digits and '_' only",
            "environments.production.sessionStore.encryptionKey: must be 32 bytes encoded in base64 (generate one with: openssl rand -base64 32)",
        ])
        #expect(!bad.joined().contains("hunter2"))
    }

    @Test func withoutTheFactoryTheTypeIsUnknown() {
        let found = ConfigLoader(registry: .builtIn, environmentVariables: [:])
            .validate(data: document(#"{"type": "postgres", "url": "postgres://u@h/db", "encryptionKey": "\#(Self.key)"}"#))
            .map(\.description)
        #expect(found == ["environments.production.sessionStore.type: unknown session store type 'postgres' (known: file, memory)"])
        #expect(problems(#"{"type": "redis"}"#)
            == ["environments.production.sessionStore.type: unknown session store type 'redis' (known: file, memory, postgres)"])
        #expect(problems(#"{"url": "postgres://u@h/db"}"#) == ["environments.production.sessionStore.type: required (one of: file, memory, postgres)"])
    }

    @Test func aURLFromAVariableSaysSo() {
        let found = problems(#"{"type": "postgres", "url": "${DATABASE_URL}", "encryptionKey": "\#(Self.key)"}"#,
                             ["DATABASE_URL": "mysql://u:hunter2@h/db"])
        #expect(found == ["environments.production.sessionStore.url: must start with postgres:// or postgresql:// (after substituting environment variables)"])
    }

    @Test(arguments: [
        ("postgres://:pw@h/db", "must name a user"),
        ("postgres://u:pw@/db", "must name a host"),
        ("postgres://u:pw@h:0/db", "port"),
        ("postgres://u:pw@h/db/extra", "at most one path segment"),
        ("postgres://u:pw@h/db?sslmode=sometimes", "unknown sslmode"),
        ("postgres://u:pw@h/db?colour=blue", "unsupported parameter 'colour'"),
        ("postgres://u:pw@h/db#frag", "fragment"),
        ("postgres://u:pw @h/db", "whitespace"),
    ])
    func aBadURLSaysWhy(url: String, reason: String) {
        let found = problems(#"{"type": "postgres", "url": "\#(url)", "encryptionKey": "\#(Self.key)"}"#)
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.hasPrefix("environments.production.sessionStore.url: ") == true, "\(found)")
        #expect(found.first?.contains(reason) == true, "\(found)")
        #expect(found.first?.contains(":pw") == false, "\(found)")
    }

    @Test func theURLIsParsedTheWayLibpqReadsIt() throws {
        let full = try PostgresConnectionURL(parsing: "postgresql://app:p%40ss@db.example.com:6543/sessions?sslmode=require&application_name=api")
        #expect(full.endpoint == .tcp(host: "db.example.com", port: 6543))
        #expect(full.username == "app")
        #expect(full.password?.revealed() == "p@ss")
        #expect(full.database == "sessions")
        #expect(full.tlsMode == .require)
        #expect(full.applicationName == "api")
        #expect(full.description == "postgres://app:<redacted>@db.example.com:6543/sessions?sslmode=require")

        let minimal = try PostgresConnectionURL(parsing: "postgres://app@127.0.0.1")
        #expect(minimal.endpoint == .tcp(host: "127.0.0.1", port: 5432))
        #expect(minimal.password == nil && minimal.database == nil && minimal.tlsMode == .prefer)
        #expect(minimal.description == "postgres://app@127.0.0.1")

        let socket = try PostgresConnectionURL(parsing: "postgres://app@/db?host=/var/run/postgresql")
        #expect(socket.endpoint == .unixSocket(path: "/var/run/postgresql/.s.PGSQL.5432"))
    }

    @Test func tableNames() {
        for good in ["authhub_sessions", "Sessions2", "_t", String(repeating: "x", count: 63)] {
            #expect(PostgresTableName.problem(good) == nil, "\(good)")
        }
        for bad in ["", "9lives", "a-b", "a.b", "a\"b", "a b", "ä", String(repeating: "x", count: 64)] {
            #expect(PostgresTableName.problem(bad) != nil, "\(bad)")
        }
        #expect((try? PostgresTableName("Sessions"))?.quoted == "\"Sessions\"")
    }
}
