import Foundation
import HTTPTypes

extension HTTPFields {
    /// The longest `Retry-After` reported: one day. A larger value (a proxy's `1e300`, a date in the
    /// year 9999) is capped to it; ``APIClient`` never waits longer than its own limits anyway.
    public static let maxRetryAfter: Duration = .seconds(86_400)

    /// The `Retry-After` field as a duration: delay-seconds, or an HTTP date in the IMF-fixdate form
    /// (`Sun, 06 Nov 1994 08:49:37 GMT`, read by ``HTTPDate``) relative to `now`.
    ///
    /// The field comes from outside and is range-checked before it becomes a `Duration`: a delay that
    /// is negative or not a number, or a date in any other form, gives nil (no advice); a delay or
    /// date further away than ``maxRetryAfter`` is capped to it; a date in the past is zero.
    public func retryAfter(now: Date = Date()) -> Duration? {
        guard let raw = self[.retryAfter]?.trimmingCharacters(in: .whitespaces), !raw.isEmpty, raw.utf8.count <= 64 else {
            return nil
        }
        let cap = Double(Self.maxRetryAfter.components.seconds)
        if let seconds = Double(raw) {
            guard seconds.isFinite, seconds >= 0 else { return nil }
            return .milliseconds(Int64((Swift.min(seconds, cap) * 1000).rounded()))
        }
        guard let date = HTTPDate.parse(raw) else { return nil }
        let delta = date.timeIntervalSince(now)
        guard delta.isFinite else { return nil }
        return .milliseconds(Int64((Swift.min(Swift.max(0, delta), cap) * 1000).rounded()))
    }
}
