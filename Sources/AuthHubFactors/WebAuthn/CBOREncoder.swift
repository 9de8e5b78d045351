/// Writes CBOR in the CTAP2 canonical form: shortest integer and length encodings, definite
/// lengths only, and map keys sorted by their encoded bytes (shorter first, then bytewise), so the
/// same value always yields the same bytes.
public enum CBOREncoder {
    /// The encoding of `value`.
    public static func encode(_ value: CBORValue) -> [UInt8] {
        var out: [UInt8] = []
        append(value, to: &out)
        return out
    }

    private static func head(_ major: UInt8, _ argument: UInt64, to out: inout [UInt8]) {
        let type = major << 5
        switch argument {
        case 0..<24:
            out.append(type | UInt8(argument))
        case 24...0xff:
            out.append(type | 24)
            out.append(UInt8(argument))
        case 0x100...0xffff:
            out.append(type | 25)
            out.append(contentsOf: bigEndian(argument, bytes: 2))
        case 0x1_0000...0xffff_ffff:
            out.append(type | 26)
            out.append(contentsOf: bigEndian(argument, bytes: 4))
        default:
            out.append(type | 27)
            out.append(contentsOf: bigEndian(argument, bytes: 8))
        }
    }

    private static func bigEndian(_ value: UInt64, bytes: Int) -> [UInt8] {
        (0..<bytes).reversed().map { UInt8(truncatingIfNeeded: value >> (UInt64($0) * 8)) }
    }

    private static func append(_ value: CBORValue, to out: inout [UInt8]) {
        switch value {
        case .unsigned(let n): head(0, n, to: &out)
        case .negative(let n): head(1, n, to: &out)
        case .bytes(let b):
            head(2, UInt64(b.count), to: &out)
            out.append(contentsOf: b)
        case .text(let t):
            let utf8 = Array(t.utf8)
            head(3, UInt64(utf8.count), to: &out)
            out.append(contentsOf: utf8)
        case .array(let items):
            head(4, UInt64(items.count), to: &out)
            for item in items { append(item, to: &out) }
        case .map(let entries):
            let encoded = entries.map { (key: encode($0.key), value: encode($0.value)) }
                .sorted { a, b in a.key.count != b.key.count ? a.key.count < b.key.count : a.key.lexicographicallyPrecedes(b.key) }
            head(5, UInt64(encoded.count), to: &out)
            for entry in encoded {
                out.append(contentsOf: entry.key)
                out.append(contentsOf: entry.value)
            }
        case .tagged(let tag, let item):
            head(6, tag, to: &out)
            append(item, to: &out)
        case .bool(let b): out.append(b ? 0xf5 : 0xf4)
        case .null: out.append(0xf6)
        case .undefined: out.append(0xf7)
        case .simple(let s):
            if s < 24 { out.append(0xe0 | s) } else { out.append(0xf8); out.append(s) }
        case .float(let d):
            out.append(0xfb)
            out.append(contentsOf: bigEndian(d.bitPattern, bytes: 8))
        }
    }
}
