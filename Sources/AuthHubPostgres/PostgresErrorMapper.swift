import AuthHub
import PostgresNIO

/// Turns whatever postgres-nio throws into an ``AuthError`` with code
/// ``AuthErrorCode/storageFailure`` — the code every session store uses for a store that cannot
/// read or write (DESIGN: one error type, open codes; no new code is needed).
///
/// - **Retryable** (``AuthError/isRetryable`` true) when waiting may help: the server cannot be
///   reached or closed the connection, SQLSTATE classes 08 (connection), 40 (serialization failure,
///   deadlock), 53 (insufficient resources), 57 (operator intervention: shutdown, starting up) and
///   55P03 (a lock wait timed out). Everything else — authentication (28), a missing database
///   (3D000), permissions and schema problems (42) — needs a person and is not retryable.
/// - **No secrets.** A `PSQLError` carries the query with its bound values (sealed sessions, but
///   still), so it is never kept as ``AuthError/underlying`` nor described: the message has the
///   operation, the store (its URL with the password redacted), the SQLSTATE and the server's
///   one-line message (which names objects, never bound values). `details` holds `sqlState`.
enum PostgresErrorMapper {
    /// SQLSTATE classes (first two characters) after which trying again may succeed.
    static let retryableClasses: Set<String> = ["08", "40", "53", "57"]

    static func map(_ error: any Error, operation: String, store: String) -> AuthError {
        if let authError = error as? AuthError { return authError }
        if error is CancellationError { return AuthError.wrap(error) }
        if let transaction = error as? PostgresTransactionError {
            if let inner = transaction.closureError ?? transaction.beginError ?? transaction.commitError {
                return map(inner, operation: operation, store: store)
            }
        }
        if let psql = error as? PSQLError {
            return map(psql, operation: operation, store: store)
        }
        if error is PostgresDecodingError {
            return AuthError(.storageFailure,
                             message: "Cannot \(operation) in \(store): a column has an unexpected type (is the table AuthHub's?).",
                             isRetryable: false)
        }
        return AuthError(.storageFailure, message: "Cannot \(operation) in \(store): \(type(of: error)).", isRetryable: true)
    }

    private static func map(_ error: PSQLError, operation: String, store: String) -> AuthError {
        switch error.code {
        case .server:
            let state = error.serverInfo?[.sqlState] ?? "?????"
            let serverMessage = error.serverInfo?[.message].map { " — \(oneLine($0))" } ?? ""
            let retryable = retryableClasses.contains(String(state.prefix(2))) || state == "55P03"
            return AuthError(.storageFailure, message: "Cannot \(operation) in \(store): PostgreSQL error \(state)\(serverMessage).",
                             isRetryable: retryable, details: ["sqlState": state])
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed:
            let cause = error.underlying.map { ": \(oneLine(String(describing: $0)))" } ?? ""
            return AuthError(.storageFailure, message: "Cannot \(operation): PostgreSQL at \(store) cannot be reached (\(error.code))\(cause).",
                             isRetryable: true)
        case .queryCancelled:
            return AuthError(.storageFailure, message: "Cannot \(operation) in \(store): the statement was cancelled.", isRetryable: true)
        case .sslUnsupported, .failedToAddSSLHandler, .receivedUnencryptedDataAfterSSLRequest:
            return AuthError(.storageFailure,
                             message: "Cannot \(operation): TLS with PostgreSQL at \(store) failed (\(error.code)); check sslmode.",
                             isRetryable: false)
        case .unsupportedAuthMechanism, .authMechanismRequiresPassword, .saslError:
            return AuthError(.storageFailure,
                             message: "Cannot \(operation): PostgreSQL at \(store) refused the credentials (\(error.code)).",
                             isRetryable: false)
        default:
            return AuthError(.storageFailure, message: "Cannot \(operation) in \(store): \(error.code).", isRetryable: true)
        }
    }

    /// At most 300 characters on one line.
    private static func oneLine(_ text: String) -> String {
        let flat = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        return flat.count > 300 ? String(flat.prefix(297)) + "…" : flat
    }
}
