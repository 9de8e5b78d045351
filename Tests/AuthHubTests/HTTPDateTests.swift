@testable import AuthHub
import Foundation
import Testing

/// `Retry-After` HTTP dates (RFC 9110 §5.6.7 IMF-fixdate), read by hand since fuzzing (issue 16)
/// found that swift-corelibs-foundation's `DateFormatter` traps on some non-ASCII header text.
@Suite struct HTTPDateTests {
    let now = Date(timeIntervalSince1970: 1_767_225_600)  // Thu, 01 Jan 2026 00:00:00 GMT

    func retryAfter(_ value: String) -> Duration? { HTTPFields([HTTPField(name: .retryAfter, value: value)]).retryAfter(now: now) }

    @Test func readsIMFFixdate() {
        #expect(HTTPDate.parse("Thu, 01 Jan 2026 00:00:00 GMT") == now)
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == Date(timeIntervalSince1970: 784_111_777))
        #expect(HTTPDate.parse("Thu, 29 Feb 2024 23:59:59 GMT") == Date(timeIntervalSince1970: 1_709_251_199))
        #expect(HTTPDate.parse("Thu, 01 Jan 1970 00:00:00 GMT") == Date(timeIntervalSince1970: 0))
        #expect(retryAfter("Thu, 01 Jan 2026 00:00:05 GMT") == .seconds(5))
        #expect(retryAfter("Wed, 31 Dec 2025 23:00:00 GMT") == .zero)
        #expect(retryAfter("  Thu, 01 Jan 2026 00:01:00 GMT ") == .seconds(60))
    }

    /// The fuzzer's input: `DateFormatter.date(from:)` died with "Incorrect range CFRange(location: 0,
    /// length: 4)" on it (a combining mark after a digit).
    @Test func nonASCIITextIsNotADateNotATrap() {
        let fuzzed = "t  2\u{064B}ypeOct  t07   2 Oc206\u{3}4  2 typeOct  t07   2 Oc2 A p"
        #expect(retryAfter(fuzzed) == nil)
        #expect(retryAfter("Thu, 01 Jan 2026 00:00:0\u{064B}5 GMT") == nil)
        #expect(retryAfter("Thu, 01 J\u{00E1}n 2026 00:00:05 GMT") == nil)
    }

    @Test(arguments: [
        "Thu, 32 Jan 2026 00:00:00 GMT", "Fri, 29 Feb 2025 00:00:00 GMT", "Thu, 31 Apr 2026 00:00:00 GMT",
        "Thu, 01 Jan 2026 24:00:00 GMT", "Thu, 01 Jan 2026 00:60:00 GMT", "Thu, 01 Jan 2026 00:00:61 GMT",
        "Thu, 01 jan 2026 00:00:00 GMT", "Xyz, 01 Jan 2026 00:00:00 GMT", "Thu, 01 Jan 2026 00:00:00 UTC",
        "Thu, 1 Jan 2026 00:00:00 GMT", "Thu, 01 Jan 26 00:00:00 GMT", "Thu, 01 Jan 2026 00:00:00 GMT+1",
        "Thu, 01 Jan 20260 00:00:00 GMT", "Thursday, 01-Jan-26 00:00:00 GMT", "Thu Jan  1 00:00:00 2026", "",
        "Thu, 00 Jan 2026 00:00:00 GMT", "Thu, 01 Jan -026 00:00:00 GMT",
    ])
    func anythingElseIsNotADate(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test func theYearRangeKeepsTheDelayFinite() {
        #expect(HTTPDate.parse("Fri, 31 Dec 9999 23:59:59 GMT") == Date(timeIntervalSince1970: 253_402_300_799))
        #expect(HTTPDate.parse("Sat, 01 Jan 0000 00:00:00 GMT") == Date(timeIntervalSince1970: -62_167_219_200))
        // The delay itself is then capped at a day (HostileHeaderAndConfigTests).
        #expect(retryAfter("Fri, 31 Dec 9999 23:59:59 GMT") == HTTPFields.maxRetryAfter)
    }
}
