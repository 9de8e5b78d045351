import AuthHub

/// Reads CBOR (RFC 8949) from untrusted bytes: definite-length items only (CTAP2 canonical CBOR
/// has no indefinite lengths), nesting at most ``maximumDepth`` deep, no length beyond the input,
/// valid UTF-8 text, no duplicate map keys.
///
/// Every problem throws ``AuthErrorCode/invalidRequest`` with the byte offset; nothing traps.
public struct CBORDecoder {
    /// How deep arrays, maps and tags may nest.
    public static let maximumDepth = 16

    private let bytes: [UInt8]
    /// The offset of the next unread byte.
    public private(set) var offset: Int

    /// Starts reading `bytes` at `offset` (clamped to `0...bytes.count`, so an offset past the end
    /// reads as "unexpected end of data", never a trap).
    public init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        self.offset = Swift.min(Swift.max(offset, 0), bytes.count)
    }

    /// Decodes one item that must span all of `bytes`.
    /// - Throws: ``AuthErrorCode/invalidRequest`` for malformed CBOR or trailing bytes.
    public static func decode(_ bytes: [UInt8]) throws -> CBORValue {
        var decoder = CBORDecoder(bytes)
        let value = try decoder.decodeItem()
        guard decoder.offset == bytes.count else {
            throw decoder.failure("\(bytes.count - decoder.offset) trailing bytes after the item")
        }
        return value
    }

    /// Decodes the next item and moves past it (more bytes may follow).
    public mutating func decodeItem() throws -> CBORValue {
        try item(depth: 0)
    }

    private func failure(_ text: String) -> AuthError {
        AuthError(.invalidRequest, message: "Malformed CBOR at byte \(offset): \(text).")
    }

    private mutating func byte() throws -> UInt8 {
        guard offset < bytes.count else { throw failure("unexpected end of data") }
        defer { offset += 1 }
        return bytes[offset]
    }

    private mutating func take(_ count: UInt64) throws -> ArraySlice<UInt8> {
        guard count <= UInt64(bytes.count - offset) else {
            throw failure("a length of \(count) runs past the end of the data")
        }
        let start = offset
        offset += Int(count)
        return bytes[start..<offset]
    }

    private mutating func argument(_ info: UInt8) throws -> UInt64 {
        switch info {
        case 0..<24: return UInt64(info)
        case 24, 25, 26, 27:
            let width = 1 << Int(info - 24)
            return try take(UInt64(width)).reduce(0) { $0 << 8 | UInt64($1) }
        case 31: throw failure("indefinite-length items are not supported")
        default: throw failure("reserved additional information \(info)")
        }
    }

    private mutating func item(depth: Int) throws -> CBORValue {
        guard depth <= CBORDecoder.maximumDepth else { throw failure("nesting deeper than \(CBORDecoder.maximumDepth)") }
        let initial = try byte()
        let major = initial >> 5
        let info = initial & 0x1f
        if major == 7 { return try simple(info) }
        let arg = try argument(info)
        switch major {
        case 0: return .unsigned(arg)
        case 1: return .negative(arg)
        case 2: return .bytes(Array(try take(arg)))
        case 3:
            let raw = try take(arg)
            guard let text = String(validating: raw, as: UTF8.self) else { throw failure("text string is not valid UTF-8") }
            return .text(text)
        case 4:
            // Every item takes at least one byte: a count beyond the remaining bytes is malformed.
            guard arg <= UInt64(bytes.count - offset) else { throw failure("array of \(arg) items runs past the end") }
            var items: [CBORValue] = []
            items.reserveCapacity(Int(arg))
            for _ in 0..<arg { items.append(try item(depth: depth + 1)) }
            return .array(items)
        case 5:
            guard arg <= UInt64(bytes.count - offset) / 2 else { throw failure("map of \(arg) entries runs past the end") }
            var entries: [CBORMapEntry] = []
            var seen = Set<CBORValue>()
            for _ in 0..<arg {
                let key = try item(depth: depth + 1)
                guard seen.insert(key).inserted else { throw failure("duplicate map key") }
                entries.append(CBORMapEntry(key, try item(depth: depth + 1)))
            }
            return .map(entries)
        default:
            return .tagged(arg, try item(depth: depth + 1))
        }
    }

    private mutating func simple(_ info: UInt8) throws -> CBORValue {
        switch info {
        case 20: return .bool(false)
        case 21: return .bool(true)
        case 22: return .null
        case 23: return .undefined
        case 0..<20: return .simple(info)
        case 24:
            let value = try byte()
            guard value >= 32 else { throw failure("simple value \(value) must use the one-byte form") }
            return .simple(value)
        case 25:
            let bits = UInt16(try take(2).reduce(0) { $0 << 8 | UInt64($1) })
            return .float(CBORDecoder.halfToDouble(bits))
        case 26:
            let bits = UInt32(try take(4).reduce(0) { $0 << 8 | UInt64($1) })
            return .float(Double(Float(bitPattern: bits)))
        case 27:
            return .float(Double(bitPattern: try take(8).reduce(0) { $0 << 8 | UInt64($1) }))
        case 31: throw failure("unexpected break code")
        default: throw failure("reserved simple value encoding \(info)")
        }
    }

    /// IEEE 754 half precision to double (RFC 8949 Appendix D), without relying on `Float16`,
    /// which not every platform has.
    static func halfToDouble(_ half: UInt16) -> Double {
        let exponent = Int((half >> 10) & 0x1f)
        let mantissa = Double(half & 0x3ff)
        let value: Double
        switch exponent {
        case 0: value = mantissa * 0x1p-24
        case 31: value = mantissa == 0 ? .infinity : .nan
        default: value = (mantissa + 1024) * Double(sign: .plus, exponent: exponent - 25, significand: 1)
        }
        return half & 0x8000 != 0 ? -value : value
    }
}
