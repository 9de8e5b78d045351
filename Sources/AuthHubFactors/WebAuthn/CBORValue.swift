/// A CBOR data item (RFC 8949), as WebAuthn uses CBOR: attestation objects, COSE keys and
/// authenticator extensions.
///
/// Only what WebAuthn needs is modelled; ``CBOREncoder`` writes the CTAP2 canonical form and
/// ``CBORDecoder`` reads definite-length items with bounds on depth and size.
public indirect enum CBORValue: Sendable, Hashable {
    /// Major type 0: an unsigned integer.
    case unsigned(UInt64)
    /// Major type 1: the negative integer `-1 - n`.
    case negative(UInt64)
    /// Major type 2: a byte string.
    case bytes([UInt8])
    /// Major type 3: a UTF-8 text string.
    case text(String)
    /// Major type 4: an array.
    case array([CBORValue])
    /// Major type 5: a map, in the order the entries were written or read.
    case map([CBORMapEntry])
    /// Major type 6: a tagged item.
    case tagged(UInt64, CBORValue)
    /// `true` or `false`.
    case bool(Bool)
    /// `null`.
    case null
    /// `undefined`.
    case undefined
    /// Another simple value (major type 7, 0–19 or 32–255).
    case simple(UInt8)
    /// A floating-point number (half, single or double precision on the wire).
    case float(Double)

    /// An integer item: unsigned for `value >= 0`, negative otherwise.
    public static func int(_ value: Int) -> CBORValue {
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-(value + 1)))
    }

    /// The value as an `Int`, when it is an integer that fits.
    public var intValue: Int? {
        switch self {
        case .unsigned(let n): n <= UInt64(Int.max) ? Int(n) : nil
        case .negative(let n): n <= UInt64(Int.max) ? -1 - Int(n) : nil
        default: nil
        }
    }

    /// The bytes, when this is a byte string.
    public var bytesValue: [UInt8]? { if case .bytes(let b) = self { return b }; return nil }
    /// The text, when this is a text string.
    public var textValue: String? { if case .text(let t) = self { return t }; return nil }
    /// The entries, when this is a map.
    public var mapValue: [CBORMapEntry]? { if case .map(let m) = self { return m }; return nil }

    /// The value stored under `key`, when this is a map.
    public subscript(key: CBORValue) -> CBORValue? {
        mapValue?.first(where: { $0.key == key })?.value
    }

    /// The value stored under a text key, when this is a map.
    public subscript(text key: String) -> CBORValue? { self[.text(key)] }

    /// The value stored under an integer key (as COSE keys use), when this is a map.
    public subscript(int key: Int) -> CBORValue? { self[.int(key)] }

    /// A short name of the item's type, for messages.
    public var typeName: String {
        switch self {
        case .unsigned, .negative: "integer"
        case .bytes: "byte string"
        case .text: "text string"
        case .array: "array"
        case .map: "map"
        case .tagged: "tagged item"
        case .bool: "boolean"
        case .null: "null"
        case .undefined: "undefined"
        case .simple: "simple value"
        case .float: "float"
        }
    }
}

/// One key/value pair of a CBOR map.
public struct CBORMapEntry: Sendable, Hashable {
    /// The key.
    public var key: CBORValue
    /// The value.
    public var value: CBORValue

    /// Creates an entry.
    public init(_ key: CBORValue, _ value: CBORValue) {
        self.key = key
        self.value = value
    }
}
