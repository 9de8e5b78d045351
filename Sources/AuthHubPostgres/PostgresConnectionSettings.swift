import AuthHub
import PostgresNIO

/// A parsed connection URL as postgres-nio's two configurations: the pool's (store statements)
/// and a single connection's (the refresh lock's dedicated connections).
///
/// `sslmode` keeps libpq's meaning: `prefer` and `require` encrypt without checking the server's
/// certificate, `verify-ca` checks the chain, `verify-full` the chain and the host name.
struct PostgresConnectionSettings: Sendable {
    var client: PostgresClient.Configuration
    var connection: PostgresConnection.Configuration

    /// How long opening one connection may take.
    static let connectTimeout = Duration.seconds(10)

    /// - Throws: ``AuthErrorCode/invalidConfiguration`` when the TLS context cannot be created.
    init(_ url: PostgresConnectionURL) throws {
        var tls = TLSConfiguration.makeClientConfiguration()
        switch url.tlsMode {
        case .disable, .prefer, .require: tls.certificateVerification = .none
        case .verifyCA: tls.certificateVerification = .noHostnameVerification
        case .verifyFull: tls.certificateVerification = .fullVerification
        }
        let password = url.password?.revealed()
        switch url.endpoint {
        case .tcp(let host, let port):
            let clientTLS: PostgresClient.Configuration.TLS
            let connectionTLS: PostgresConnection.Configuration.TLS
            switch url.tlsMode {
            case .disable:
                clientTLS = .disable
                connectionTLS = .disable
            case .prefer:
                clientTLS = .prefer(tls)
                connectionTLS = .prefer(try Self.context(tls))
            case .require, .verifyCA, .verifyFull:
                clientTLS = .require(tls)
                connectionTLS = .require(try Self.context(tls))
            }
            client = PostgresClient.Configuration(host: host, port: port, username: url.username, password: password,
                                                  database: url.database, tls: clientTLS)
            connection = PostgresConnection.Configuration(host: host, port: port, username: url.username, password: password,
                                                          database: url.database, tls: connectionTLS)
        case .unixSocket(let path):
            client = PostgresClient.Configuration(unixSocketPath: path, username: url.username, password: password, database: url.database)
            connection = PostgresConnection.Configuration(unixSocketPath: path, username: url.username, password: password,
                                                          database: url.database)
        }
        client.options.connectTimeout = Self.connectTimeout
        connection.options.connectTimeout = .seconds(Self.connectTimeout.components.seconds)
        if let name = url.applicationName {
            client.options.additionalStartupParameters.append(("application_name", name))
            connection.options.additionalStartupParameters.append(("application_name", name))
        }
    }

    private static func context(_ tls: TLSConfiguration) throws -> NIOSSLContext {
        do {
            return try NIOSSLContext(configuration: tls)
        } catch {
            throw AuthError(.invalidConfiguration, message: "Cannot set up TLS for PostgreSQL: \(type(of: error)).")
        }
    }
}
