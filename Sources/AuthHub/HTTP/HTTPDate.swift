import Foundation

/// Reads an HTTP date in the IMF-fixdate form (RFC 9110, section 5.6.7), e.g. `Sun, 06 Nov 1994 08:49:37 GMT`,
/// the one form senders generate.
///
/// Parsed by hand, byte by byte, instead of with `DateFormatter`: the header comes from a server or a
/// proxy, and swift-corelibs-foundation's `DateFormatter.date(from:)` traps on some non-ASCII text
/// (a combining mark after a digit: "Incorrect range CFRange…", found by fuzzing). Anything that is
/// not exactly the fixed form — 29 ASCII characters, a valid calendar date and time, year 0000–9999,
/// `GMT` — is nil. The day name is checked for spelling, not against the date.
package enum HTTPDate {
    private static let dayNames: [[UInt8]] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].map { Array($0.utf8) }
    private static let monthNames: [[UInt8]] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        .map { Array($0.utf8) }

    /// The date, or nil when `text` is not an IMF-fixdate.
    package static func parse(_ text: String) -> Date? {
        let b = Array(text.utf8)
        guard b.count == 29, b[3] == UInt8(ascii: ","), b[4] == UInt8(ascii: " "), b[7] == UInt8(ascii: " "),
              b[11] == UInt8(ascii: " "), b[16] == UInt8(ascii: " "), b[19] == UInt8(ascii: ":"), b[22] == UInt8(ascii: ":"),
              b[25] == UInt8(ascii: " "), Array(b[26...]) == Array("GMT".utf8), dayNames.contains(Array(b[0..<3])),
              let monthIndex = monthNames.firstIndex(of: Array(b[8..<11])),
              let day = digits(b[5..<7]), let year = digits(b[12..<16]), let hour = digits(b[17..<19]),
              let minute = digits(b[20..<22]), let second = digits(b[23..<25]) else { return nil }
        let month = monthIndex + 1
        guard day >= 1, day <= daysIn(month: month, year: year), hour <= 23, minute <= 59, second <= 60 else { return nil }
        let seconds = daysSince1970(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// The value of ASCII decimal digits (at most four here), nil for any other byte.
    private static func digits(_ bytes: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    private static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to the given proleptic Gregorian date, counted in 400-year eras of
    /// 146,097 days with the year starting in March (so February's length only matters at the end);
    /// `year` is 0…9999 here, so nothing overflows.
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
