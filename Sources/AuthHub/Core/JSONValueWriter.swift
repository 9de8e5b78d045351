import Foundation

extension JSONValue {
    /// The value as compact JSON bytes, object keys sorted and `/` not escaped — what `JSONEncoder`
    /// with `[.sortedKeys, .withoutEscapingSlashes]` writes for it, without going through the
    /// `Encoder` protocol and its per-value containers. A differential test pins the output to
    /// `JSONEncoder`'s.
    /// - Throws: `EncodingError.invalidValue` for a number that is not finite (JSON has no NaN or
    ///   infinity), as `JSONEncoder` does.
    public func serialized() throws -> Data {
        var writer = JSONValueWriter()
        try writer.write(self)
        return Data(writer.bytes)
    }
}

/// The one-pass writer behind ``JSONValue/serialized()``.
struct JSONValueWriter {
    var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(256) }

    mutating func write(_ value: JSONValue) throws {
        switch value {
        case .null: bytes.append(contentsOf: "null".utf8)
        case .bool(let flag): bytes.append(contentsOf: (flag ? "true" : "false").utf8)
        case .number(let number): try write(number)
        case .string(let text): write(text)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                try write(element)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            for (index, member) in members.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                write(member.key)
                bytes.append(UInt8(ascii: ":"))
                try write(member.value)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// Integral values below 9e15 as integers (as ``JSONValue``'s `Encodable` does), others as
    /// `JSONEncoder` writes a `Double`.
    private mutating func write(_ number: Double) throws {
        guard number.isFinite else {
            throw EncodingError.invalidValue(number, EncodingError.Context(codingPath: [],
                                                                         debugDescription: "JSON has no NaN or infinity"))
        }
        if number.rounded() == number, abs(number) < 9.0e15 {
            bytes.append(contentsOf: String(Int64(number)).utf8)
        } else {
            // Shortest round-trip form; `JSONEncoder` drops a trailing ".0" (9e15 → 9000000000000000).
            let text = number.description.utf8
            bytes.append(contentsOf: text.count > 2 && text.suffix(2).elementsEqual(".0".utf8) ? text.dropLast(2) : text[...])
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private mutating func write(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x00..<0x20:
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                          Self.hexDigits[Int(byte >> 4)], Self.hexDigits[Int(byte & 0x0F)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
