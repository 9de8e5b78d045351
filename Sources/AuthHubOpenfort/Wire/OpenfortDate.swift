import AuthHub
import Foundation

/// Timestamps as Openfort sends them: ISO-8601 strings (with or without fractional seconds) or
/// epoch numbers (milliseconds when larger than 10^11, else seconds) — the Swift SDK accepts
/// Int, Double and String, and so does this.
enum OpenfortDate {
    static func read(_ value: JSONValue) -> Date? {
        switch value {
        case .number(let n): return epoch(n)
        case .string(let s):
            if let n = Double(s) { return epoch(n) }
            let fractional = ISO8601DateFormatter()
            fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            if let date = fractional.date(from: s) { return date }
            return ISO8601DateFormatter().date(from: s)
        default: return nil
        }
    }

    private static func epoch(_ n: Double) -> Date {
        Date(timeIntervalSince1970: n > 100_000_000_000 ? n / 1000 : n)
    }
}
