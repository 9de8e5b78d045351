import AuthHub
import Crypto
import Foundation

/// The name of the PostgreSQL table a `postgres` session store keeps its rows in, validated as a
/// plain SQL identifier so that it can be written into SQL text (a table name cannot be a bound
/// parameter) without any way to change the statement.
///
/// Rules: 1 to 63 bytes (PostgreSQL's limit), ASCII letters, digits and `_`, not starting with a
/// digit. The name is always written double-quoted, so its case is kept. Anything else — quotes,
/// dots, spaces, semicolons — is refused; a schema is chosen with the connecting role's
/// `search_path`, not in the name.
package struct PostgresTableName: Sendable, Hashable, CustomStringConvertible {
    /// The table name used when the configuration names none.
    package static let defaultName = "authhub_sessions"

    /// The name as given.
    package let name: String

    /// Validates `name`.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` saying which rule it breaks (the name is not
    ///   repeated unless it looks like a name).
    package init(_ name: String) throws {
        if let reason = Self.problem(name) { throw AuthError(.invalidConfiguration, message: reason) }
        self.name = name
    }

    /// Why `name` is not a valid table name, or nil.
    package static func problem(_ name: String) -> String? {
        guard (1...63).contains(name.utf8.count) else { return "must be 1 to 63 characters" }
        guard let first = name.unicodeScalars.first, !("0"..."9").contains(first) else { return "must not start with a digit" }
        let allowed = name.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_"
        }
        return allowed ? nil : "must be a plain SQL identifier: ASCII letters, digits and '_' only"
    }

    /// The name double-quoted, ready for SQL text: `"authhub_sessions"`. Safe because ``init(_:)``
    /// admits no quote character.
    package var quoted: String { "\"\(name)\"" }

    /// The name of the table's index by user (schema version 2), quoted: `authhub_user_ref_` and
    /// 16 hex digits of the table name's SHA-256 — an index name is unique within a schema, and a
    /// 63-byte table name leaves no room for a suffix.
    package var userIndexQuoted: String {
        let digest = SHA256.hash(data: Data(name.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
        return "\"authhub_user_ref_\(digest)\""
    }

    /// The table of AuthHub-held factors beside the sessions table (schema version 3), quoted:
    /// `<name>_factors` when that fits in 63 bytes, else `authhub_factors_` and 16 hex digits of the
    /// name's SHA-256.
    package var heldFactorsQuoted: String {
        if name.utf8.count + 8 <= 63 { return "\"\(name)_factors\"" }
        let digest = SHA256.hash(data: Data(name.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
        return "\"authhub_factors_\(digest)\""
    }

    /// The table of one-time values (``PostgresReplayCache``, schema version 4): `<name>_replay` when
    /// that fits in 63 bytes, else `authhub_replay_` and 16 hex digits of the name's SHA-256.
    package var replayQuoted: String { derived("replay") }

    /// Its index by expiry: `<name>_replay_exp`, or `authhub_replay_exp_` and 16 hex digits.
    package var replayIndexQuoted: String { derived("replay_exp") }

    private func derived(_ suffix: String) -> String {
        if name.utf8.count + suffix.utf8.count + 1 <= 63 { return "\"\(name)_\(suffix)\"" }
        let digest = SHA256.hash(data: Data(name.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
        return "\"authhub_\(suffix)_\(digest)\""
    }

    package var description: String { name }
}
