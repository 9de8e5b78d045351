import Foundation

/// What ``JSONReader`` builds: plain ``JSONValue``s for claims and replies, or position-keeping
/// nodes for providers.json (``JSONSourceParser``). One reader, two builders, so the grammar, the
/// limits and the error messages exist once.
protocol JSONReaderBuilder {
    associatedtype Value
    associatedtype Members
    associatedtype Position
    /// Called at the start of every value and member name, in document order (offsets only grow).
    mutating func position(at offset: Int) -> Position
    func null(at position: Position) -> Value
    func bool(_ value: Bool, at position: Position) -> Value
    /// A number; `isInteger` when the literal had no fraction and no exponent.
    func number(_ value: Double, isInteger: Bool, at position: Position) -> Value
    func string(_ value: String, at position: Position) -> Value
    func array(_ elements: [Value], at position: Position) -> Value
    func members() -> Members
    func add(_ key: String, at position: Position, value: Value, to members: inout Members)
    func object(_ members: Members, at position: Position) -> Value
}

/// A JSON syntax error at a byte offset, with a reason that never contains the document's text.
struct JSONReadError: Error, Sendable {
    var offset: Int
    var reason: String
}

/// The one byte-level JSON (RFC 8259) reader: one pass over UTF-8 bytes, strict number and string
/// grammar, valid UTF-8, `\u` escapes with surrogate pairs, numbers that fit a finite `Double`,
/// bounded nesting. Options choose what differs between its users: ``JSONValue/parse(_:)`` tolerates
/// one trailing comma (as `JSONDecoder` does); providers.json does not, and may start with a
/// byte-order mark.
///
/// Decoding `JSONValue` through `JSONDecoder` probes each value's type with `try?` (Bool, then
/// Double, String, array, object), and every failed probe builds and throws a `DecodingError`
/// (BENCHMARKS.md, the `json.parse.claims` row and the `idtoken.*` rows, has the cost); this reader
/// is generic over its builder, so each use is specialised and pays nothing for the other's needs.
struct JSONReader<Builder: JSONReaderBuilder> {
    struct Options {
        var allowsTrailingComma: Bool
        var maximumDepth: Int
        var skipsByteOrderMark: Bool
    }

    private let bytes: UnsafeRawBufferPointer
    private var index = 0
    private var depth = 0
    private var builder: Builder
    private let options: Options

    private init(_ bytes: UnsafeRawBufferPointer, builder: Builder, options: Options) {
        self.bytes = bytes
        self.builder = builder
        self.options = options
    }

    /// The length of a UTF-8 byte-order mark at the start of `bytes` (0 or 3).
    static func byteOrderMarkLength(_ bytes: UnsafeRawBufferPointer) -> Int {
        bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0
    }

    /// Reads one document from `bytes`.
    static func read(_ bytes: UnsafeRawBufferPointer, builder: Builder, options: Options) throws(JSONReadError) -> Builder.Value {
        var reader = JSONReader(bytes, builder: builder, options: options)
        if options.skipsByteOrderMark { reader.index = byteOrderMarkLength(bytes) }
        reader.skipWhitespace()
        let value = try reader.value()
        reader.skipWhitespace()
        guard reader.index == bytes.count else { throw reader.error("unexpected character after the JSON value") }
        return value
    }

    private func error(_ reason: String, at offset: Int? = nil) -> JSONReadError {
        JSONReadError(offset: offset ?? index, reason: reason)
    }

    private var atEnd: Bool { index >= bytes.count }

    /// The byte at the cursor for messages (never more than one character).
    private var found: String {
        guard index < bytes.count else { return "end of input" }
        let byte = bytes[index]
        if byte >= 0x21, byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "a character"
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func value() throws(JSONReadError) -> Builder.Value {
        guard index < bytes.count else { throw error("unexpected end of input; expected a value") }
        let position = builder.position(at: index)
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(at: position)
        case UInt8(ascii: "["): return try array(at: position)
        case UInt8(ascii: "\""): return builder.string(try string(), at: position)
        case UInt8(ascii: "t"): try literal("true"); return builder.bool(true, at: position)
        case UInt8(ascii: "f"): try literal("false"); return builder.bool(false, at: position)
        case UInt8(ascii: "n"): try literal("null"); return builder.null(at: position)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let (number, isInteger) = try number()
            return builder.number(number, isInteger: isInteger, at: position)
        default: throw error("expected a value, found \(found)")
        }
    }

    private mutating func literal(_ word: StaticString) throws(JSONReadError) {
        let count = word.utf8CodeUnitCount
        let start = index
        let matches = index + count <= bytes.count && word.withUTF8Buffer { expected in
            (0..<count).allSatisfy { bytes[start + $0] == expected[$0] }
        }
        guard matches else { throw error("invalid literal; expected '\(word)'", at: start) }
        index += count
    }

    private mutating func enter() throws(JSONReadError) {
        depth += 1
        guard depth <= options.maximumDepth else { throw error("nesting is too deep") }
    }

    private mutating func object(at position: Builder.Position) throws(JSONReadError) -> Builder.Value {
        try enter()
        defer { depth -= 1 }
        index += 1
        var members = builder.members()
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return builder.object(members, at: position)
        }
        var first = true
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                if !first, index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                    // A trailing comma: JSONDecoder (and so JSONValue.parse) tolerates one.
                    guard options.allowsTrailingComma else { throw error("trailing comma before '}'") }
                    index += 1
                    return builder.object(members, at: position)
                }
                throw error(atEnd ? "unexpected end of input; expected a member name" : "expected a member name in double quotes, found \(found)")
            }
            first = false
            let keyPosition = builder.position(at: index)
            let key = try string()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw error(atEnd ? "unexpected end of input; expected ':'" : "expected ':'")
            }
            index += 1
            skipWhitespace()
            let member = try value()
            builder.add(key, at: keyPosition, value: member, to: &members)
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input; expected ',' or '}'") }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return builder.object(members, at: position)
            default: throw error("expected ',' or '}'")
            }
        }
    }

    private mutating func array(at position: Builder.Position) throws(JSONReadError) -> Builder.Value {
        try enter()
        defer { depth -= 1 }
        index += 1
        var elements: [Builder.Value] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return builder.array(elements, at: position)
        }
        while true {
            skipWhitespace()
            if !elements.isEmpty, index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                guard options.allowsTrailingComma else { throw error("trailing comma before ']'") }
                index += 1
                return builder.array(elements, at: position)
            }
            elements.append(try value())
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input; expected ',' or ']'") }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return builder.array(elements, at: position)
            default: throw error("expected ',' or ']'")
            }
        }
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private mutating func number() throws(JSONReadError) -> (Double, isInteger: Bool) {
        let start = index
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number; expected a digit") }
        let digitsStart = index
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw error("invalid number; leading zeros are not allowed", at: start) }
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let integerEnds = index == bytes.count || (bytes[index] != UInt8(ascii: ".") && bytes[index] | 0x20 != UInt8(ascii: "e"))
        // An integer of at most 15 digits (every time claim) is exact in a Double: computed here
        // rather than through a String and strtod.
        if integerEnds, index - digitsStart <= 15 {
            var integer = 0
            for position in digitsStart..<index { integer = integer * 10 + Int(bytes[position] &- UInt8(ascii: "0")) }
            return (negative ? -Double(integer) : Double(integer), true)
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number; expected a digit after '.'") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number; expected a digit in the exponent") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let number = Double(text), number.isFinite else { throw error("number is out of range", at: start) }
        return (number, integerEnds)
    }

    /// A string, from its opening quote.
    private mutating func string() throws(JSONReadError) -> String {
        let quote = index
        index += 1
        let start = index
        // Fast path: no escapes.
        var ascii = true
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                // ASCII needs no validation: copied as it is (the generic validating initializer
                // was the reader's largest cost on a JWT payload).
                let text: String
                if ascii {
                    text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]).assumingMemoryBound(to: UInt8.self), as: UTF8.self)
                } else {
                    guard let valid = String(validating: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self) else {
                        throw error("string is not valid UTF-8", at: quote)
                    }
                    text = valid
                }
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw controlCharacter(byte) }
            ascii = ascii && byte < 0x80
            index += 1
        }
        guard index < bytes.count else { throw error("unterminated string", at: quote) }
        // Slow path: unescape into a byte buffer.
        var buffer = [UInt8](UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                guard let text = String(validating: buffer, as: UTF8.self) else { throw error("string is not valid UTF-8", at: quote) }
                return text
            }
            if byte == UInt8(ascii: "\\") {
                try escape(into: &buffer)
                continue
            }
            guard byte >= 0x20 else { throw controlCharacter(byte) }
            buffer.append(byte)
            index += 1
        }
        throw error("unterminated string", at: quote)
    }

    private func controlCharacter(_ byte: UInt8) -> JSONReadError {
        error(byte == 0x0A ? "unterminated string (line break inside a string)" : "control character in a string; escape it")
    }

    /// One escape sequence, from its backslash.
    private mutating func escape(into buffer: inout [UInt8]) throws(JSONReadError) {
        let backslash = index
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
            var scalar = try hex4(backslash)
            if (0xD800...0xDBFF).contains(scalar) {
                // A high surrogate must be followed by an escaped low surrogate.
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw error("unpaired surrogate in \\u escape", at: backslash)
                }
                index += 2
                let low = try hex4(backslash)
                guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate in \\u escape", at: backslash) }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw error("unpaired surrogate in \\u escape", at: backslash)
            }
            guard let unicode = Unicode.Scalar(scalar), let encoded = UTF8.encode(unicode) else {
                throw error("invalid \\u escape", at: backslash)
            }
            buffer.append(contentsOf: encoded)
        default:
            throw error("invalid escape sequence", at: backslash)
        }
    }

    private mutating func hex4(_ backslash: Int) throws(JSONReadError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count else { throw error("unterminated string") }
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("invalid \\u escape; expected four hex digits", at: backslash)
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }
}
