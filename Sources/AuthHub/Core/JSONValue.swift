import Foundation

/// A JSON value: used for configuration, user claims and provider extras, where the shape is open.
public enum JSONValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        // Every failed probe builds and throws a DecodingError, so the commonest kind of value in
        // claims and extras (strings) is tried first; Bool stays before Double (a decoder may read
        // `true` as 1).
        if c.decodeNil() {
            self = .null
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let d = try? c.decode(Double.self) {
            self = .number(d)
        } else if let o = try? c.decode([String: JSONValue].self) {
            self = .object(o)
        } else if let a = try? c.decode([JSONValue].self) {
            self = .array(a)
        } else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "not a JSON value")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .number(let d):
            if d.rounded() == d, abs(d) < 9.0e15 { try c.encode(Int64(d)) } else { try c.encode(d) }
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }

    /// The string, when this is a string.
    public var stringValue: String? { if case .string(let s) = self { return s }; return nil }
    /// The number, when this is a number.
    public var doubleValue: Double? { if case .number(let d) = self { return d }; return nil }
    /// The number as an integer, when this is a whole number.
    public var intValue: Int? {
        if case .number(let d) = self, d.rounded() == d, abs(d) < 9.0e15 { return Int(d) }
        return nil
    }
    /// The boolean, when this is a boolean.
    public var boolValue: Bool? { if case .bool(let b) = self { return b }; return nil }
    /// The members, when this is an object.
    public var objectValue: [String: JSONValue]? { if case .object(let o) = self { return o }; return nil }
    /// The elements, when this is an array.
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a }; return nil }

    /// A member of an object, or nil.
    public subscript(key: String) -> JSONValue? { objectValue?[key] }

    /// A short name of the JSON type, for messages (`string`, `number`, …).
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// Parses JSON bytes into a value, in one pass (``JSONReader`` with the `JSONValueParser` builder: decoding `JSONValue` with
    /// `JSONDecoder` throws and discards an error for every type probe of every value).
    /// - Throws: `DecodingError.dataCorrupted` for bytes that are not one JSON value.
    public static func parse(_ data: Data) throws -> JSONValue {
        try JSONValueParser.parse(data)
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(nilLiteral: ()) { self = .null }
}
