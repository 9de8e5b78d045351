import AuthHub
import Foundation

/// A PostgreSQL connection URL in libpq's form, parsed and checked without connecting:
/// `postgres://user:password@host:port/database?sslmode=require`.
///
/// - scheme `postgres` or `postgresql`; a user name is required; the password is optional
///   (percent-encode `@`, `:` and `/` in it); the port defaults to 5432; the database defaults to
///   the user name (the server's rule);
/// - query parameters: `sslmode` (`disable`, `prefer` — the default, as in libpq —, `require`,
///   `verify-ca`, `verify-full`), `host` (a directory starting with `/` connects through the Unix
///   socket in it, as in libpq: `postgres://user@/db?host=/var/run/postgresql`) and
///   `application_name`; anything else is refused, so a typo is not silently ignored.
///
/// ``PostgresSessionStoreFactory/validate(_:)`` parses it so that providers.json validation reports a
/// bad URL with its JSON path; ``PostgresConnectionSettings`` turns it into a connection. Error
/// messages and ``description`` never contain the password: the URL is a secret as a whole.
package struct PostgresConnectionURL: Sendable, CustomStringConvertible {
    /// How TLS is used, with libpq's `sslmode` names and meanings.
    package enum TLSMode: String, Sendable, CaseIterable {
        /// Plain TCP.
        case disable
        /// TLS when the server offers it, without checking its certificate.
        case prefer
        /// TLS required, without checking the server's certificate.
        case require
        /// TLS required; the certificate must chain to a trusted root (any host name).
        case verifyCA = "verify-ca"
        /// TLS required; the certificate must chain to a trusted root and name the host.
        case verifyFull = "verify-full"
    }

    /// Where the server listens.
    package enum Endpoint: Sendable, Equatable {
        case tcp(host: String, port: Int)
        /// The path of the socket file (`<directory>/.s.PGSQL.<port>`).
        case unixSocket(path: String)
    }

    /// The URL schemes accepted.
    package static let schemes = ["postgres", "postgresql"]
    /// The query parameters accepted.
    package static let parameters = ["sslmode", "host", "application_name"]
    /// The port when the URL names none.
    package static let defaultPort = 5432

    package var endpoint: Endpoint
    package var username: String
    package var password: Secret<String>?
    /// Nil: the server's default (the user name).
    package var database: String?
    package var tlsMode: TLSMode
    package var applicationName: String?

    /// Parses `text`.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` whose message says what is wrong without
    ///   repeating the URL or any part of it that may be secret.
    package init(parsing text: String) throws {
        func problem(_ reason: String) -> AuthError { AuthError(.invalidConfiguration, message: reason) }
        guard !text.isEmpty else { throw problem("must not be empty") }
        guard !text.contains(where: { $0.isWhitespace || $0.isNewline }) else { throw problem("must not contain whitespace") }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            throw problem("must be a URL such as postgres://user:password@host:5432/database (percent-encode special characters)")
        }
        guard Self.schemes.contains(scheme) else {
            throw problem("must start with postgres:// or postgresql://")
        }
        guard components.fragment == nil else { throw problem("must not have a fragment (#…)") }
        guard let user = components.user, !user.isEmpty else {
            throw problem("must name a user (postgres://user:password@host/database)")
        }
        username = user
        password = components.password.map { Secret($0) }

        var port = Self.defaultPort
        if let given = components.port {
            guard (1...65535).contains(given) else { throw problem("has a port outside 1–65535") }
            port = given
        }
        var host = components.host ?? ""
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }

        var mode = TLSMode.prefer
        var socketDirectory: String?
        var application: String?
        var seen: Set<String> = []
        for item in components.queryItems ?? [] {
            guard Self.parameters.contains(item.name) else {
                let shown = Self.looksLikeName(item.name) ? "'\(item.name)'" : "(name not shown)"
                throw problem("has an unsupported parameter \(shown) (supported: \(Self.parameters.joined(separator: ", ")))")
            }
            guard seen.insert(item.name).inserted else { throw problem("repeats the parameter '\(item.name)'") }
            let value = item.value ?? ""
            switch item.name {
            case "sslmode":
                guard let parsed = TLSMode(rawValue: value) else {
                    throw problem("has an unknown sslmode (one of: \(TLSMode.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                mode = parsed
            case "host":
                if value.hasPrefix("/") { socketDirectory = value } else if !value.isEmpty { host = value }
            default:
                application = value.isEmpty ? nil : value
            }
        }
        tlsMode = mode
        applicationName = application

        if let socketDirectory {
            let directory = socketDirectory.hasSuffix("/") ? String(socketDirectory.dropLast()) : socketDirectory
            endpoint = .unixSocket(path: "\(directory)/.s.PGSQL.\(port)")
        } else {
            guard !host.isEmpty else { throw problem("must name a host (or a socket directory with ?host=/path)") }
            guard host.hasPrefix("[") || host.contains(":") || ConfigValueFormat.isDomain(host) || ConfigValueFormat.isIPv4(host) else {
                throw problem("has an invalid host name")
            }
            endpoint = .tcp(host: host, port: port)
        }

        let path = components.path
        if path.isEmpty || path == "/" {
            database = nil
        } else {
            let name = String(path.dropFirst())
            guard path.hasPrefix("/"), !name.contains("/") else { throw problem("must have at most one path segment, the database name") }
            database = name
        }
    }

    /// The URL with the password replaced by `<redacted>`, for logs and messages.
    package var description: String {
        let user = username.addingPercentEncoding(withAllowedCharacters: .urlUserAllowed) ?? "?"
        let credentials = password == nil ? user : "\(user):<redacted>"
        let location: String
        var query: [String] = []
        switch endpoint {
        case .tcp(let host, let port):
            location = (host.contains(":") ? "[\(host)]" : host) + (port == Self.defaultPort ? "" : ":\(port)")
        case .unixSocket(let path):
            location = ""
            query.append("host=\(path)")
        }
        if tlsMode != .prefer { query.append("sslmode=\(tlsMode.rawValue)") }
        let databasePart = database.map { "/" + ($0.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? "?") } ?? ""
        return "postgres://\(credentials)@\(location)\(databasePart)" + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
    }

    /// Whether a parameter name can be shown in a message: a short run of letters, digits, `-`, `_`
    /// and `.` (anything else may be a value pasted in the wrong place).
    static func looksLikeName(_ name: String) -> Bool {
        (1...64).contains(name.count)
            && name.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0) }
    }
}
