import enum AuthHub.JSONValue
import Foundation
import Hummingbird

/// The fields of one Firebase request body, read the way the Auth Emulator reads them
/// (AuthHubFirebase docs, FirebaseEndpoints: “Emulator”): JSON, or `application/x-www-form-urlencoded` (used by `/v1/token`),
/// with every object key converted to camelCase first, so `grant_type` and `grantType` are the
/// same field.
struct FirebaseRequestBody: Sendable {
    /// The largest body the emulator reads.
    static let maximumBodySize = 1 << 20

    /// The fields by camelCase name.
    var values: [String: JSONValue]

    init(_ values: [String: JSONValue] = [:]) {
        self.values = Self.camelCased(.object(values)).objectValue ?? [:]
    }

    /// Reads the body of `request`. An empty body is an empty object. A body starting with `{` or
    /// `[` is JSON whatever the content type claims (HTTP stacks label bodies without a declared
    /// type as a form); otherwise a body declared JSON is JSON and anything else a form.
    /// - Throws: ``FirebaseFailure/parseError(_:)`` for a body that is too large, not JSON or not
    ///   a JSON object.
    static func read(_ request: Request) async throws -> FirebaseRequestBody {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: maximumBodySize)
        } catch {
            throw FirebaseFailure.parseError("The request body is too large.")
        }
        let data = Data(buffer.readableBytesView)
        if data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return FirebaseRequestBody() }
        let contentType = request.headers[.contentType]?.lowercased() ?? ""
        let first = data.first { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }
        let looksLikeJSON = first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
        if !looksLikeJSON && !contentType.hasPrefix("application/json") {
            return FirebaseRequestBody(form: String(decoding: data, as: UTF8.self))
        }
        guard let value = try? JSONValue.parse(data) else {
            throw FirebaseFailure.parseError("The body is not valid JSON.")
        }
        guard let object = value.objectValue else {
            throw FirebaseFailure.parseError("The body must be a JSON object.")
        }
        return FirebaseRequestBody(object)
    }

    /// Parses `a=b&c=d` (`+` is a space, percent-escapes decoded; the first of repeated names wins).
    init(form: String) {
        self.init(Self.form(form).mapValues(JSONValue.string))
    }

    /// The pairs of a form or query string; the first of repeated names wins.
    static func form(_ text: String) -> [String: String] {
        var values: [String: String] = [:]
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = decode(parts[0])
            let value = parts.count > 1 ? decode(parts[1]) : ""
            if !name.isEmpty, values[name] == nil { values[name] = value }
        }
        return values
    }

    private static func decode(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    /// `snake_case` → `snakeCase`; a key without underscores is unchanged.
    static func camelCase(_ key: String) -> String {
        guard key.contains("_") else { return key }
        let parts = key.split(separator: "_", omittingEmptySubsequences: true)
        guard let first = parts.first else { return key }
        return String(first) + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    /// `value` with the keys of every nested object camelCased.
    static func camelCased(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let object):
            var result: [String: JSONValue] = [:]
            for (key, member) in object {
                let name = camelCase(key)
                if result[name] == nil || name == key { result[name] = camelCased(member) }
            }
            return .object(result)
        case .array(let items):
            return .array(items.map(camelCased))
        default:
            return value
        }
    }

    /// The raw value of `name`.
    subscript(name: String) -> JSONValue? { values[name] }

    /// The string `name`; nil when absent, null or empty.
    /// - Throws: `400 INVALID_ARGUMENT` when the field is not a string.
    func string(_ name: String) throws -> String? {
        switch values[name] {
        case nil, .null: return nil
        case .string(let text): return text.isEmpty ? nil : text
        case .some(let other):
            throw FirebaseFailure.invalidArgument("Invalid value at '\(name)' (TYPE_STRING), \(other.typeName)")
        }
    }

    /// The object `name` as a body of its own (e.g. `totpVerificationInfo`); nil when absent or null.
    /// - Throws: `400 INVALID_ARGUMENT` when the field is not an object.
    func object(_ name: String) throws -> FirebaseRequestBody? {
        switch values[name] {
        case nil, .null: return nil
        case .object(let members): return FirebaseRequestBody(members)
        case .some(let other):
            throw FirebaseFailure.invalidArgument("Invalid value at '\(name)' (TYPE_MESSAGE), \(other.typeName)")
        }
    }

    /// The boolean `name` (`"true"`/`"false"` strings of a form body count); nil when absent.
    /// - Throws: `400 INVALID_ARGUMENT` when the field is not a boolean.
    func bool(_ name: String) throws -> Bool? {
        switch values[name] {
        case nil, .null: return nil
        case .bool(let flag): return flag
        case .string("true"): return true
        case .string("false"): return false
        case .some(let other):
            throw FirebaseFailure.invalidArgument("Invalid value at '\(name)' (TYPE_BOOL), \(other.typeName)")
        }
    }

    /// The strings of the repeated field `name` (a single string counts as one); empty when absent.
    /// - Throws: `400 INVALID_ARGUMENT` when the field holds something else.
    func strings(_ name: String) throws -> [String] {
        switch values[name] {
        case nil, .null: return []
        case .string(let text): return [text]
        case .array(let items):
            return try items.map { item in
                guard let text = item.stringValue else {
                    throw FirebaseFailure.invalidArgument("Invalid value at '\(name)' (TYPE_STRING), \(item.typeName)")
                }
                return text
            }
        case .some(let other):
            throw FirebaseFailure.invalidArgument("Invalid value at '\(name)' (TYPE_STRING), \(other.typeName)")
        }
    }
}
