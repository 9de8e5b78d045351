import AuthHub
import Foundation

/// Timestamps as Openfort sends them: ISO-8601 strings (with or without fractional seconds) or
/// epoch numbers (milliseconds when larger than 10^11, else seconds) — the Swift SDK accepts
/// Int, Double and String, and so does this.
enum OpenfortDate {
    /// A timestamp sent as a string: an epoch number or ISO-8601.
    static func read(_ s: String) -> Date? {
        if let n = Double(s) { return epoch(n) }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let date = fractional.date(from: s) ?? ISO8601DateFormatter().date(from: s)
        return date.flatMap { SessionTimeLimits.isValidDate($0.timeIntervalSince1970) ? $0 : nil }
    }

    /// An epoch number as a date, or nil when it is not a date between 1970 and 9999 (NaN, `1e300`):
    /// a value from outside that must not become a session's expiry.
    static func epoch(_ n: Double) -> Date? {
        let seconds = n > 100_000_000_000 ? n / 1000 : n
        return SessionTimeLimits.isValidDate(seconds) ? Date(timeIntervalSince1970: seconds) : nil
    }

    /// A date as Openfort writes it (ISO-8601 with milliseconds).
    static func string(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
