import AuthHub
import Foundation

/// Tolerant readers for Firebase replies, which send numbers as strings in some places
/// (`expiresIn`, `createdAt`) and as numbers in others (`passwordUpdatedAt`).
extension KeyedDecodingContainer {
    /// A number, or a string holding one; nil when the member is absent or null.
    /// - Throws: a type mismatch naming the key for anything else, a data-corruption error for a
    ///   string that holds no number.
    func firebaseNumber(_ key: Key) throws -> Double? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        if let number = try? decode(Double.self, forKey: key) { return number }
        let text = try decode(String.self, forKey: key)
        guard let number = Double(text.trimmingCharacters(in: .whitespaces)) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "not a number")
        }
        return number
    }

    /// A string, or a number rendered without a fractional part when it has none, or a boolean as
    /// `true`/`false`; nil when absent, null or of another type (informational members only).
    func firebaseString(_ key: Key) -> String? {
        guard contains(key), let value = try? decode(JSONValue.self, forKey: key) else { return nil }
        switch value {
        case .string(let s): return s
        case .number(let d): return d.rounded() == d && abs(d) < 1e15 ? String(Int64(d)) : String(d)
        case .bool(let b): return String(b)
        default: return nil
        }
    }

    /// A boolean, or the strings `true`/`false`; nil when absent or anything else.
    func firebaseBool(_ key: Key) -> Bool? {
        guard contains(key), let value = try? decode(JSONValue.self, forKey: key) else { return nil }
        switch value {
        case .bool(let b): return b
        case .string(let s): return s == "true" ? true : (s == "false" ? false : nil)
        default: return nil
        }
    }

    /// A string that is tolerated to be absent or of another type (informational members).
    func looseString(_ key: Key) -> String? {
        (try? decodeIfPresent(String.self, forKey: key)) ?? nil
    }

    /// A required, non-empty token string.
    /// - Throws: a missing-key, null or type error, or a data-corruption error for an empty string,
    ///   each naming the key.
    func requiredToken(_ key: Key) throws -> String {
        let value = try decode(String.self, forKey: key)
        guard !value.isEmpty else { throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "empty") }
        return value
    }

    /// A required lifetime in seconds (a number or a string holding one), positive and finite.
    func requiredLifetime(_ key: Key) throws -> TimeInterval {
        guard let seconds = try firebaseNumber(key) else {
            if contains(key) { throw DecodingError.valueNotFound(Double.self, .init(codingPath: codingPath + [key], debugDescription: "null")) }
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "missing"))
        }
        guard seconds.isFinite, seconds > 0 else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "not a positive number of seconds")
        }
        return seconds
    }
}
