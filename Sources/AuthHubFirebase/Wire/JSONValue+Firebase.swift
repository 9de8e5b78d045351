import AuthHub
import Foundation

/// Tolerant readers for Firebase replies, which send numbers as strings in some places
/// (`expiresIn`, `createdAt`) and as numbers in others (`passwordUpdatedAt`).
extension JSONValue {
    /// A string, or a number rendered without a fractional part when it has none.
    var firebaseString: String? {
        switch self {
        case .string(let s): s
        case .number(let d): d.rounded() == d && abs(d) < 1e15 ? String(Int64(d)) : String(d)
        case .bool(let b): String(b)
        default: nil
        }
    }

    /// A number, or a string holding one.
    var firebaseNumber: Double? {
        switch self {
        case .number(let d): d
        case .string(let s): Double(s.trimmingCharacters(in: .whitespaces))
        default: nil
        }
    }

    /// A boolean, or the strings `true`/`false`.
    var firebaseBool: Bool? {
        switch self {
        case .bool(let b): b
        case .string(let s): s == "true" ? true : (s == "false" ? false : nil)
        default: nil
        }
    }
}

/// Reading a required member of a Firebase reply.
enum FirebaseReply {
    /// The reply as a JSON object, or ``AuthErrorCode/invalidRequest`` naming what was expected.
    static func object(_ data: Data, provider: String, what: String) throws -> [String: JSONValue] {
        guard let object = (try? JSONValue.parse(data))?.objectValue else {
            throw AuthError(.invalidRequest, message: "The \(what) reply from '\(provider)' is not a JSON object.", provider: provider)
        }
        return object
    }

    /// A required string member, or ``AuthErrorCode/invalidRequest`` naming it (never its value).
    static func string(_ key: String, in object: [String: JSONValue], provider: String, what: String) throws -> String {
        guard let value = object[key]?.firebaseString, !value.isEmpty else {
            throw AuthError(.invalidRequest, message: "The \(what) reply from '\(provider)' has no \(key).", provider: provider)
        }
        return value
    }
}
