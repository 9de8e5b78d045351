import Foundation

/// A direct JSON (RFC 8259) reader for ``JSONValue/parse(_:)``.
///
/// Decoding `JSONValue` through `JSONDecoder` probes each value's type with `try?` (Bool, then
/// Double, String, array, object), and every failed probe builds and throws a `DecodingError`
/// (BENCHMARKS.md, the `json.parse.claims` row and the `idtoken.*` rows, has the cost). This reader makes one pass over the bytes instead. It accepts what `JSONDecoder` accepts for `JSONValue`:
/// any value at the top level, surrounding whitespace, strict number and string grammar, valid
/// UTF-8, `\u` escapes with surrogate pairs; numbers that do not fit a finite `Double` and nesting
/// deeper than 512 are errors; like `JSONDecoder`, a repeated object key keeps its first value and
/// one trailing comma in an array or object is tolerated.
struct JSONValueParser {
    private let bytes: UnsafeRawBufferPointer
    private var index = 0
    private var depth = 0
    private static let maxDepth = 512

    private init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    static func parse(_ data: Data) throws -> JSONValue {
        try data.withUnsafeBytes { buffer in
            var parser = JSONValueParser(buffer)
            parser.skipWhitespace()
            let value = try parser.value()
            parser.skipWhitespace()
            guard parser.index == buffer.count else { throw parser.error("unexpected data after the JSON value") }
            return value
        }
    }

    private func error(_ message: String) -> DecodingError {
        DecodingError.dataCorrupted(DecodingError.Context(codingPath: [], debugDescription: "\(message) at byte \(index)."))
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func value() throws -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of data") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw error("unexpected character")
        }
    }

    private mutating func literal(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw error("unexpected end of data") }
        let start = index
        let matches = word.withUTF8Buffer { expected in
            (0..<count).allSatisfy { bytes[start + $0] == expected[$0] }
        }
        guard matches else { throw error("invalid literal") }
        index += count
    }

    private mutating func enter() throws {
        depth += 1
        guard depth <= Self.maxDepth else { throw error("nesting deeper than \(Self.maxDepth)") }
    }

    private mutating func object() throws -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        // Room for a JWT's claims without growing (growing rehashes every key).
        var members = [String: JSONValue](minimumCapacity: 8)
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a member name") }
            let key = try string()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
            index += 1
            skipWhitespace()
            let member = try value()
            if members[key] == nil { members[key] = member }
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of data") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                skipWhitespace()
                // JSONDecoder tolerates one trailing comma; so does this reader.
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return .object(members)
                }
                continue
            }
            guard bytes[index] == UInt8(ascii: "}") else { throw error("expected ',' or '}'") }
            index += 1
            return .object(members)
        }
    }

    private mutating func array() throws -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try value())
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of data") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return .array(elements)
                }
                continue
            }
            guard bytes[index] == UInt8(ascii: "]") else { throw error("expected ',' or ']'") }
            index += 1
            return .array(elements)
        }
    }

    private mutating func number() throws -> Double {
        let start = index
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
        let digitsStart = index
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        // An integer of at most 15 digits (every time claim) is exact in a Double: computed here
        // rather than through a String and strtod.
        if index - digitsStart <= 15, index == bytes.count || (bytes[index] != UInt8(ascii: ".") && bytes[index] | 0x20 != UInt8(ascii: "e")) {
            var integer = 0
            for position in digitsStart..<index { integer = integer * 10 + Int(bytes[position] &- UInt8(ascii: "0")) }
            return negative ? -Double(integer) : Double(integer)
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let number = Double(text), number.isFinite else { throw error("number \(text) does not fit in a Double") }
        return number
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private mutating func string() throws -> String {
        index += 1  // the opening quote
        let start = index
        // Fast path: no escapes.
        var ascii = true
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                // ASCII needs no validation: copied as it is (the generic validating initializer
                // was the parser's largest cost on a JWT payload).
                let text = ascii ? String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]).assumingMemoryBound(to: UInt8.self), as: UTF8.self)
                                 : try utf8(start..<index)
                index += 1
                return text
            }
            ascii = ascii && byte < 0x80
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw error("unescaped control character in a string") }
            index += 1
        }
        guard index < bytes.count else { throw error("unterminated string") }
        // Slow path: unescape into a byte buffer.
        var buffer = [UInt8](UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                guard let text = String(validating: buffer, as: UTF8.self) else { throw error("invalid UTF-8 in a string") }
                return text
            }
            if byte == UInt8(ascii: "\\") {
                index += 1
                guard index < bytes.count else { throw error("unterminated string") }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "\""): buffer.append(0x22)
                case UInt8(ascii: "\\"): buffer.append(0x5C)
                case UInt8(ascii: "/"): buffer.append(0x2F)
                case UInt8(ascii: "b"): buffer.append(0x08)
                case UInt8(ascii: "f"): buffer.append(0x0C)
                case UInt8(ascii: "n"): buffer.append(0x0A)
                case UInt8(ascii: "r"): buffer.append(0x0D)
                case UInt8(ascii: "t"): buffer.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = UInt32(try hex4())
                    if (0xD800...0xDBFF).contains(scalar) {
                        // A high surrogate must be followed by an escaped low surrogate.
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw error("unpaired surrogate in a \\u escape")
                        }
                        index += 2
                        let low = UInt32(try hex4())
                        guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate in a \\u escape") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw error("unpaired surrogate in a \\u escape")
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
                    guard let encoded = UTF8.encode(unicode) else { throw error("invalid \\u escape") }
                    buffer.append(contentsOf: encoded)
                default:
                    throw error("invalid escape")
                }
                continue
            }
            guard byte >= 0x20 else { throw error("unescaped control character in a string") }
            buffer.append(byte)
            index += 1
        }
        throw error("unterminated string")
    }

    private mutating func hex4() throws -> UInt16 {
        guard index + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("invalid \\u escape")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    private func utf8(_ range: Range<Int>) throws -> String {
        guard let text = String(validating: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self) else {
            throw error("invalid UTF-8 in a string")
        }
        return text
    }
}
