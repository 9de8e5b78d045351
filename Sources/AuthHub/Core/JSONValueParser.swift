import Foundation

/// ``JSONValue/parse(_:)``'s reader: ``JSONReader`` building plain values. It accepts what
/// `JSONDecoder` accepts for `JSONValue`: any value at the top level, surrounding whitespace, strict
/// number and string grammar, valid UTF-8, `\u` escapes with surrogate pairs; numbers that do not fit
/// a finite `Double` and nesting deeper than 512 are errors; like `JSONDecoder`, a repeated object key
/// keeps its first value and one trailing comma in an array or object is tolerated.
struct JSONValueParser: JSONReaderBuilder {
    static let options = JSONReader<JSONValueParser>.Options(allowsTrailingComma: true, maximumDepth: 512, skipsByteOrderMark: false)

    static func parse(_ data: Data) throws -> JSONValue {
        let result: Result<JSONValue, JSONReadError> = data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            do throws(JSONReadError) {
                return .success(try JSONReader.read(buffer, builder: JSONValueParser(), options: options))
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(let value): return value
        case .failure(let error):
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: [], debugDescription: "\(error.reason) at byte \(error.offset)."))
        }
    }

    func position(at offset: Int) {}
    func null(at position: Void) -> JSONValue { .null }
    func bool(_ value: Bool, at position: Void) -> JSONValue { .bool(value) }
    func number(_ value: Double, isInteger: Bool, at position: Void) -> JSONValue { .number(value) }
    func string(_ value: String, at position: Void) -> JSONValue { .string(value) }
    func array(_ elements: [JSONValue], at position: Void) -> JSONValue { .array(elements) }
    /// Room for a JWT's claims without growing (growing rehashes every key).
    func members() -> [String: JSONValue] { [String: JSONValue](minimumCapacity: 8) }
    func add(_ key: String, at position: Void, value: JSONValue, to members: inout [String: JSONValue]) {
        if members[key] == nil { members[key] = value }
    }
    func object(_ members: [String: JSONValue], at position: Void) -> JSONValue { .object(members) }
}
