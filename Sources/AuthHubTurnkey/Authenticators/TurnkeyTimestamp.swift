import AuthHub
import Foundation

/// Turnkey's timestamp `{"seconds": "…", "nanos": "…"}` (protobuf `Timestamp`, both members decimal
/// strings; a JSON number is read too), range-checked before it becomes a date: seconds 0 through
/// 253402300799 (the last second of year 9999), nanos 0 through 999999999 (absent reads as 0).
struct TurnkeyTimestamp: Decodable, Sendable, Equatable {
    /// The latest second accepted (9999-12-31T23:59:59Z).
    static let maximumSeconds: Int64 = 253_402_300_799

    /// The instant.
    var date: Date

    enum CodingKeys: String, CodingKey { case seconds, nanos }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let seconds = try Self.integer(c, .seconds, within: 0...Self.maximumSeconds)
        let nanos = c.contains(.nanos) && (try? c.decodeNil(forKey: .nanos)) == false
            ? try Self.integer(c, .nanos, within: 0...999_999_999) : 0
        date = Date(timeIntervalSince1970: TimeInterval(seconds) + TimeInterval(nanos) / 1_000_000_000)
    }

    /// A member that is a decimal string (at most 19 digits) or a whole JSON number, within `range`.
    static func integer(_ c: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys, within range: ClosedRange<Int64>) throws -> Int64 {
        let value: Int64?
        if let text = try? c.decode(String.self, forKey: key) {
            value = text.utf8.count <= 19 && !text.isEmpty && text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) ? Int64(text) : nil
        } else {
            let number = try c.decode(Double.self, forKey: key)
            value = number.isFinite && number.rounded() == number && abs(number) < 1e18 ? Int64(number) : nil
        }
        guard let value, range.contains(value) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: c,
                                                   debugDescription: "not a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }
}
