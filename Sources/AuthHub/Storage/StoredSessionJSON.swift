import Foundation

/// Builds a ``Session`` from the parsed JSON of a session file, field by field, accepting exactly
/// what `Session`'s synthesized `Decodable` accepts with seconds-since-1970 dates (the encoding the
/// file store writes): required fields must be present and not null, optional ones may be absent or
/// null, every present field must have its type. A failure names the field and the kind of problem,
/// never a value from the file.
enum StoredSessionReader {
    /// What is wrong and where, e.g. `missing field at session.accessToken`.
    struct Failure: Error, CustomStringConvertible {
        var what: String
        var path: [String]

        var description: String { path.isEmpty ? what : "\(what) at \(path.joined(separator: "."))" }
    }

    /// The session stored in `value`, found at `path` in the file.
    static func session(from value: JSONValue, at path: [String]) throws -> Session {
        let fields = try object(value, at: path)
        let reader = Fields(fields: fields, path: path)
        return Session(
            providerID: try reader.required("providerID", \.stringValue),
            accountKey: try reader.required("accountKey", \.stringValue),
            accessToken: Secret(try reader.required("accessToken", \.stringValue)),
            tokenType: try reader.required("tokenType", \.stringValue),
            idToken: try reader.optional("idToken", \.stringValue).map { Secret($0) },
            refreshToken: try reader.optional("refreshToken", \.stringValue).map { Secret($0) },
            expiresAt: try reader.date("expiresAt"),
            scope: try reader.optional("scope", \.stringValue),
            userID: try reader.optional("userID", \.stringValue),
            claims: try reader.required("claims", \.objectValue),
            extras: try reader.required("extras", \.objectValue),
            secretExtras: try reader.secretStrings("secretExtras"),
            version: try reader.version(),
            issuedAt: try reader.date("issuedAt")
        )
    }

    /// The stored session's `version` alone (the other fields are not looked at).
    static func version(from value: JSONValue, at path: [String]) throws -> UInt64 {
        try Fields(fields: object(value, at: path), path: path).version()
    }

    private static func object(_ value: JSONValue, at path: [String]) throws -> [String: JSONValue] {
        guard case .object(let fields) = value else { throw Failure(what: "wrong type", path: path) }
        return fields
    }

    /// The fields of one JSON object and where it sits.
    private struct Fields {
        var fields: [String: JSONValue]
        var path: [String]

        func required<T>(_ name: String, _ read: (JSONValue) -> T?) throws -> T {
            guard let value = fields[name] else { throw Failure(what: "missing field", path: path + [name]) }
            if value == .null { throw Failure(what: "missing value", path: path + [name]) }
            guard let typed = read(value) else { throw Failure(what: "wrong type", path: path + [name]) }
            return typed
        }

        func optional<T>(_ name: String, _ read: (JSONValue) -> T?) throws -> T? {
            guard let value = fields[name], value != .null else { return nil }
            guard let typed = read(value) else { throw Failure(what: "wrong type", path: path + [name]) }
            return typed
        }

        /// An optional date as seconds since 1970, within ``SessionTimeLimits/dateRange`` (a value
        /// outside it would later trap a conversion to `Int`, e.g. when showing the session).
        func date(_ name: String) throws -> Date? {
            guard let seconds = try optional(name, \.doubleValue) else { return nil }
            guard SessionTimeLimits.isValidDate(seconds) else { throw Failure(what: "date out of range", path: path + [name]) }
            return Date(timeIntervalSince1970: seconds)
        }

        /// An object whose every member is a string, each kept as a ``Secret``.
        func secretStrings(_ name: String) throws -> [String: Secret<String>] {
            let members = try required(name, \.objectValue)
            var secrets: [String: Secret<String>] = [:]
            secrets.reserveCapacity(members.count)
            for (member, value) in members {
                if value == .null { throw Failure(what: "missing value", path: path + [name, member]) }
                guard let text = value.stringValue else { throw Failure(what: "wrong type", path: path + [name, member]) }
                secrets[member] = Secret(text)
            }
            return secrets
        }

        /// `version`: a non-negative integer. JSON numbers are read as doubles, so versions above
        /// 2^53 (never reached by a counter that grows by one per save) are refused rather than rounded.
        func version() throws -> UInt64 {
            let number = try required("version", \.doubleValue)
            guard number >= 0, number.rounded() == number, number <= 9_007_199_254_740_992 else {
                throw Failure(what: "invalid value", path: path + ["version"])
            }
            return UInt64(number)
        }
    }
}

/// The inverse of ``StoredSessionReader``: a ``Session`` as the JSON tree `Session`'s synthesized
/// `Encodable` produces with seconds-since-1970 dates (absent optionals left out), written with
/// ``JSONValue/serialized()`` — the same bytes as `JSONEncoder` with sorted keys, without its
/// per-field containers (a differential test pins the two together).
enum StoredSessionWriter {
    /// The largest version a JSON number holds exactly; the store refuses to write a larger one
    /// (``StoredSessionReader`` would read it back rounded).
    static let largestExactVersion: UInt64 = 1 << 53

    /// The session's JSON object, or nil when its version is too large to be a JSON number exactly.
    static func tree(_ session: Session) -> JSONValue? {
        guard session.version <= largestExactVersion else { return nil }
        var fields: [String: JSONValue] = [
            "providerID": .string(session.providerID),
            "accountKey": .string(session.accountKey),
            "accessToken": .string(session.accessToken.revealed()),
            "tokenType": .string(session.tokenType),
            "claims": .object(session.claims),
            "extras": .object(session.extras),
            "secretExtras": .object(session.secretExtras.mapValues { .string($0.revealed()) }),
            "version": .number(Double(session.version)),
        ]
        if let idToken = session.idToken { fields["idToken"] = .string(idToken.revealed()) }
        if let refreshToken = session.refreshToken { fields["refreshToken"] = .string(refreshToken.revealed()) }
        if let expiresAt = session.expiresAt { fields["expiresAt"] = .number(expiresAt.timeIntervalSince1970) }
        if let scope = session.scope { fields["scope"] = .string(scope) }
        if let userID = session.userID { fields["userID"] = .string(userID) }
        if let issuedAt = session.issuedAt { fields["issuedAt"] = .number(issuedAt.timeIntervalSince1970) }
        return .object(fields)
    }
}
