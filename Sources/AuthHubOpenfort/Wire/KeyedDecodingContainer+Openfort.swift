import AuthHub
import Foundation

/// Tolerant readers for the informational members of Openfort replies.
extension KeyedDecodingContainer {
    /// A string, or nil when absent, null or of another type.
    func looseString(_ key: Key) -> String? {
        (try? decodeIfPresent(String.self, forKey: key)) ?? nil
    }

    /// A boolean, or nil when absent, null or of another type.
    func looseBool(_ key: Key) -> Bool? {
        (try? decodeIfPresent(Bool.self, forKey: key)) ?? nil
    }

    /// A timestamp (ISO-8601 string or epoch number, see ``OpenfortDate``), or nil when absent, null,
    /// of another type or outside 1970–9999.
    func looseDate(_ key: Key) -> Date? {
        if let number = (try? decodeIfPresent(Double.self, forKey: key)) ?? nil { return OpenfortDate.epoch(number) }
        return looseString(key).flatMap(OpenfortDate.read)
    }

    /// A required, non-empty string.
    /// - Throws: a missing-key, null or type error, or a data-corruption error for an empty string,
    ///   each naming the key.
    func requiredString(_ key: Key) throws -> String {
        let value = try decode(String.self, forKey: key)
        guard !value.isEmpty else { throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "empty") }
        return value
    }

    /// The members of the container's object as open JSON (claims and metadata that AuthHub keeps as sent).
    static func openObject(_ decoder: any Decoder) throws -> [String: JSONValue] {
        try [String: JSONValue](from: decoder)
    }
}
