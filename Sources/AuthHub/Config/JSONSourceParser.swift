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

/// providers.json's reader: ``JSONReader`` building nodes that know their line and column, strict
/// (no comments, no trailing commas, no NaN), a leading byte-order mark skipped, nesting bounded by
/// ``maximumDepth``.
///
/// Foundation's parsers on Linux report at best a character offset ("around character 13") and
/// `JSONDecoder` none at all, which is no help to someone editing providers.json.
struct JSONSourceParser: Sendable {
    /// The deepest nesting accepted, so that hostile input cannot exhaust the stack.
    static let maximumDepth = 256

    init() {}

    /// Parses one JSON document.
    /// - Throws: ``JSONSourceError`` with the line and column of the first syntax error.
    func parse(_ data: Data) throws(JSONSourceError) -> JSONSourceNode {
        let result: Result<JSONSourceNode, JSONSourceError> = data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            let options = JSONReader<NodeBuilder>.Options(allowsTrailingComma: false, maximumDepth: Self.maximumDepth, skipsByteOrderMark: true)
            do throws(JSONReadError) {
                return .success(try JSONReader.read(buffer, builder: NodeBuilder(buffer), options: options))
            } catch {
                var lines = LineCounter(buffer)
                return .failure(JSONSourceError(position: lines.position(at: error.offset), reason: error.reason))
            }
        }
        return try result.get()
    }
}

/// Line and column of byte offsets, counted forward from the last offset asked for (offsets asked
/// in increasing order cost one pass over the document in all). Columns count Unicode scalars; a
/// leading byte-order mark is not a column.
private struct LineCounter {
    let bytes: UnsafeRawBufferPointer
    var offset: Int
    var line = 1
    var column = 1

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        offset = JSONReader<NodeBuilder>.byteOrderMarkLength(bytes)
    }

    mutating func position(at target: Int) -> JSONSourcePosition {
        if target < offset { self = LineCounter(bytes) }
        while offset < target, offset < bytes.count {
            let byte = bytes[offset]
            offset += 1
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return JSONSourcePosition(line: line, column: column)
    }
}

/// Builds ``JSONSourceNode``s: members in document order, duplicates kept.
private struct NodeBuilder: JSONReaderBuilder {
    var lines: LineCounter

    init(_ bytes: UnsafeRawBufferPointer) { lines = LineCounter(bytes) }

    mutating func position(at offset: Int) -> JSONSourcePosition { lines.position(at: offset) }
    func null(at position: JSONSourcePosition) -> JSONSourceNode { JSONSourceNode(value: .null, position: position) }
    func bool(_ value: Bool, at position: JSONSourcePosition) -> JSONSourceNode { JSONSourceNode(value: .bool(value), position: position) }
    func number(_ value: Double, isInteger: Bool, at position: JSONSourcePosition) -> JSONSourceNode {
        JSONSourceNode(value: .number(value, isInteger: isInteger), position: position)
    }
    func string(_ value: String, at position: JSONSourcePosition) -> JSONSourceNode { JSONSourceNode(value: .string(value), position: position) }
    func array(_ elements: [JSONSourceNode], at position: JSONSourcePosition) -> JSONSourceNode {
        JSONSourceNode(value: .array(elements), position: position)
    }
    func members() -> [JSONSourceNode.Member] { [] }
    func add(_ key: String, at position: JSONSourcePosition, value: JSONSourceNode, to members: inout [JSONSourceNode.Member]) {
        members.append(JSONSourceNode.Member(key: key, keyPosition: position, value: value))
    }
    func object(_ members: [JSONSourceNode.Member], at position: JSONSourcePosition) -> JSONSourceNode {
        JSONSourceNode(value: .object(members), position: position)
    }
}
