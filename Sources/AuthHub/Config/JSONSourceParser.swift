import Foundation

/// A position in a JSON text: 1-based line and column (columns count Unicode scalars).
struct JSONSourcePosition: Sendable, Hashable, CustomStringConvertible {
    var line: Int
    var column: Int

    init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// `line L, column C`.
    var description: String { "line \(line), column \(column)" }
}

/// A JSON syntax error with the position of the offending character.
struct JSONSourceError: Error, Sendable, Hashable, CustomStringConvertible {
    var position: JSONSourcePosition
    /// What was wrong, e.g. `expected ',' or '}'`. Never contains the document's text.
    var reason: String

    init(position: JSONSourcePosition, reason: String) {
        self.position = position
        self.reason = reason
    }

    /// `line 4, column 17: expected ',' or '}'`.
    var description: String { "\(position): \(reason)" }
}

/// A parsed JSON value that remembers where it was and keeps object members in document order
/// (including duplicate keys), so that configuration problems can be reported in document order
/// and duplicates flagged.
struct JSONSourceNode: Sendable, Hashable {
    /// One member of an object, in document order.
    struct Member: Sendable, Hashable {
        var key: String
        var keyPosition: JSONSourcePosition
        var value: JSONSourceNode
    }

    /// The value itself.
    indirect enum Value: Sendable, Hashable {
        case null
        case bool(Bool)
        /// A number; `isInteger` is true when the literal had no fraction and no exponent.
        case number(Double, isInteger: Bool)
        case string(String)
        case array([JSONSourceNode])
        case object([Member])
    }

    var value: Value
    /// Where the value starts.
    var position: JSONSourcePosition

    /// The JSON type name used in messages (`string`, `number`, `object`, …).
    var typeName: String {
        switch value {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// The members when this is an object.
    var members: [Member]? { if case .object(let m) = value { return m }; return nil }
    /// The elements when this is an array.
    var elements: [JSONSourceNode]? { if case .array(let e) = value { return e }; return nil }
    /// The string when this is a string.
    var string: String? { if case .string(let s) = value { return s }; return nil }

    /// The first member named `key`, when this is an object.
    subscript(key: String) -> JSONSourceNode? { members?.first { $0.key == key }?.value }

    /// The same value without positions (the last of duplicate keys wins, as in `JSONDecoder`).
    var jsonValue: JSONValue {
        switch value {
        case .null: .null
        case .bool(let b): .bool(b)
        case .number(let d, _): .number(d)
        case .string(let s): .string(s)
        case .array(let a): .array(a.map(\.jsonValue))
        case .object(let members):
            .object(Dictionary(members.map { ($0.key, $0.value.jsonValue) }, uniquingKeysWith: { _, last in last }))
        }
    }
}

/// A strict RFC 8259 JSON parser that tracks line and column.
///
/// Foundation's parsers on Linux report at best a character offset ("around character 13") and
/// `JSONDecoder` none at all, which is no help to someone editing providers.json. This parser is the
/// source of truth for configuration files only; it is small, strict (no comments, no trailing
/// commas, no NaN) and bounded (nesting depth ``maximumDepth``).
struct JSONSourceParser: Sendable {
    /// The deepest nesting accepted, so that hostile input cannot exhaust the stack.
    static let maximumDepth = 256

    init() {}

    /// Parses one JSON document.
    /// - Throws: ``JSONSourceError`` with the line and column of the first syntax error.
    func parse(_ data: Data) throws(JSONSourceError) -> JSONSourceNode {
        var cursor = Cursor(bytes: Array(data))
        cursor.skipByteOrderMark()
        cursor.skipWhitespace()
        let node = try cursor.parseValue(depth: 0)
        cursor.skipWhitespace()
        if !cursor.atEnd {
            throw cursor.error("unexpected character after the JSON value")
        }
        return node
    }
}

private struct Cursor {
    let bytes: [UInt8]
    var index = 0
    var line = 1
    var column = 1

    init(bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { index >= bytes.count }
    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }
    var position: JSONSourcePosition { JSONSourcePosition(line: line, column: column) }

    func error(_ reason: String) -> JSONSourceError { JSONSourceError(position: position, reason: reason) }
    func error(_ reason: String, at position: JSONSourcePosition) -> JSONSourceError {
        JSONSourceError(position: position, reason: reason)
    }

    /// Moves past one byte, keeping line and column (columns advance once per Unicode scalar).
    mutating func advance() {
        guard index < bytes.count else { return }
        let byte = bytes[index]
        index += 1
        if byte == UInt8(ascii: "\n") {
            line += 1
            column = 1
        } else if byte & 0xC0 != 0x80 {
            column += 1
        }
    }

    mutating func skipByteOrderMark() {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
    }

    mutating func skipWhitespace() {
        while let b = peek, b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { advance() }
    }

    /// Describes the byte at the cursor for messages (never more than one character).
    var found: String {
        guard let b = peek else { return "end of input" }
        if b >= 0x21, b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        return "a character"
    }

    mutating func parseValue(depth: Int) throws(JSONSourceError) -> JSONSourceNode {
        guard let b = peek else { throw error("unexpected end of input; expected a value") }
        let start = position
        switch b {
        case UInt8(ascii: "{"):
            return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["):
            return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""):
            return JSONSourceNode(value: .string(try parseString()), position: start)
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return JSONSourceNode(value: .bool(true), position: start)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return JSONSourceNode(value: .bool(false), position: start)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return JSONSourceNode(value: .null, position: start)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try parseNumber()
        default:
            throw error("expected a value, found \(found)")
        }
    }

    mutating func expectLiteral(_ literal: String) throws(JSONSourceError) {
        let start = position
        for expected in literal.utf8 {
            guard peek == expected else { throw error("invalid literal; expected '\(literal)'", at: start) }
            advance()
        }
    }

    mutating func parseObject(depth: Int) throws(JSONSourceError) -> JSONSourceNode {
        let start = position
        guard depth <= JSONSourceParser.maximumDepth else { throw error("nesting is too deep") }
        advance()  // {
        var members: [JSONSourceNode.Member] = []
        skipWhitespace()
        if peek == UInt8(ascii: "}") {
            advance()
            return JSONSourceNode(value: .object(members), position: start)
        }
        while true {
            skipWhitespace()
            guard peek == UInt8(ascii: "\"") else {
                if peek == UInt8(ascii: "}"), !members.isEmpty { throw error("trailing comma before '}'") }
                throw error(atEnd ? "unexpected end of input; expected a member name" : "expected a member name in double quotes, found \(found)")
            }
            let keyPosition = position
            let key = try parseString()
            skipWhitespace()
            guard peek == UInt8(ascii: ":") else { throw error(atEnd ? "unexpected end of input; expected ':'" : "expected ':'") }
            advance()
            skipWhitespace()
            let value = try parseValue(depth: depth)
            members.append(.init(key: key, keyPosition: keyPosition, value: value))
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","):
                advance()
            case UInt8(ascii: "}"):
                advance()
                return JSONSourceNode(value: .object(members), position: start)
            case nil:
                throw error("unexpected end of input; expected ',' or '}'")
            default:
                throw error("expected ',' or '}'")
            }
        }
    }

    mutating func parseArray(depth: Int) throws(JSONSourceError) -> JSONSourceNode {
        let start = position
        guard depth <= JSONSourceParser.maximumDepth else { throw error("nesting is too deep") }
        advance()  // [
        var elements: [JSONSourceNode] = []
        skipWhitespace()
        if peek == UInt8(ascii: "]") {
            advance()
            return JSONSourceNode(value: .array(elements), position: start)
        }
        while true {
            skipWhitespace()
            if peek == UInt8(ascii: "]"), !elements.isEmpty { throw error("trailing comma before ']'") }
            elements.append(try parseValue(depth: depth))
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","):
                advance()
            case UInt8(ascii: "]"):
                advance()
                return JSONSourceNode(value: .array(elements), position: start)
            case nil:
                throw error("unexpected end of input; expected ',' or ']'")
            default:
                throw error("expected ',' or ']'")
            }
        }
    }

    /// Parses a string starting at the opening quote.
    mutating func parseString() throws(JSONSourceError) -> String {
        let start = position
        advance()  // "
        var buffer: [UInt8] = []
        while true {
            guard let b = peek else { throw error("unterminated string", at: start) }
            switch b {
            case UInt8(ascii: "\""):
                advance()
                guard let s = String(validating: buffer, as: UTF8.self) else {
                    throw error("string is not valid UTF-8", at: start)
                }
                return s
            case UInt8(ascii: "\\"):
                advance()
                try parseEscape(into: &buffer)
            case 0x00..<0x20:
                throw error(b == 0x0A ? "unterminated string (line break inside a string)" : "control character in a string; escape it")
            default:
                buffer.append(b)
                advance()
            }
        }
    }

    mutating func parseEscape(into buffer: inout [UInt8]) throws(JSONSourceError) {
        let escapePosition = JSONSourcePosition(line: line, column: column - 1)
        guard let e = peek else { throw error("unterminated string") }
        let simple: UInt8?
        switch e {
        case UInt8(ascii: "\""): simple = UInt8(ascii: "\"")
        case UInt8(ascii: "\\"): simple = UInt8(ascii: "\\")
        case UInt8(ascii: "/"): simple = UInt8(ascii: "/")
        case UInt8(ascii: "b"): simple = 0x08
        case UInt8(ascii: "f"): simple = 0x0C
        case UInt8(ascii: "n"): simple = 0x0A
        case UInt8(ascii: "r"): simple = 0x0D
        case UInt8(ascii: "t"): simple = 0x09
        case UInt8(ascii: "u"): simple = nil
        default: throw error("invalid escape sequence", at: escapePosition)
        }
        advance()
        if let simple {
            buffer.append(simple)
            return
        }
        var scalar = try parseHex4(escapePosition)
        if (0xD800...0xDBFF).contains(scalar) {
            // A high surrogate must be followed by \u and a low surrogate.
            guard peek == UInt8(ascii: "\\") else { throw error("unpaired surrogate in \\u escape", at: escapePosition) }
            advance()
            guard peek == UInt8(ascii: "u") else { throw error("unpaired surrogate in \\u escape", at: escapePosition) }
            advance()
            let low = try parseHex4(escapePosition)
            guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate in \\u escape", at: escapePosition) }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(scalar) {
            throw error("unpaired surrogate in \\u escape", at: escapePosition)
        }
        guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid \\u escape", at: escapePosition) }
        buffer.append(contentsOf: Array(String(Character(unicode)).utf8))
    }

    mutating func parseHex4(_ escapePosition: JSONSourcePosition) throws(JSONSourceError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let b = peek else { throw error("unterminated string") }
            let digit: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = b - UInt8(ascii: "A") + 10
            default: throw error("invalid \\u escape; expected four hex digits", at: escapePosition)
            }
            value = value << 4 | UInt32(digit)
            advance()
        }
        return value
    }

    mutating func parseNumber() throws(JSONSourceError) -> JSONSourceNode {
        let start = position
        let startIndex = index
        var isInteger = true
        if peek == UInt8(ascii: "-") { advance() }
        guard let first = peek, isDigit(first) else { throw error("invalid number; expected a digit") }
        if first == UInt8(ascii: "0") {
            advance()
            if let next = peek, isDigit(next) { throw error("invalid number; leading zeros are not allowed", at: start) }
        } else {
            while let d = peek, isDigit(d) { advance() }
        }
        if peek == UInt8(ascii: ".") {
            isInteger = false
            advance()
            guard let d = peek, isDigit(d) else { throw error("invalid number; expected a digit after '.'") }
            while let d = peek, isDigit(d) { advance() }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            isInteger = false
            advance()
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { advance() }
            guard let d = peek, isDigit(d) else { throw error("invalid number; expected a digit in the exponent") }
            while let d = peek, isDigit(d) { advance() }
        }
        let text = String(decoding: bytes[startIndex..<index], as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw error("number is out of range", at: start) }
        return JSONSourceNode(value: .number(value, isInteger: isInteger), position: start)
    }

    func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
}
