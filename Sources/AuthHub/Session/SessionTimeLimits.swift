import Foundation

/// The range checks every time value from outside (a token reply's `expires_in`, a JWT's `exp`, a
/// stored `expiresAt`) passes before AuthHub converts, stores or waits on it.
///
/// Rules (<doc:SecurityModel>: outside input is hostile):
/// - An absolute date is accepted between 1970-01-01 and 9999-12-31 (``dateRange``); anything else,
///   NaN and infinities included, is refused — in a stored session file as a "cannot read session
///   file" error naming the file.
/// - A lifetime in seconds (`expires_in`) must be finite and positive; a lifetime longer than
///   ``maxLifetime`` (ten years) is clamped to it, as no identity provider issues longer tokens and a
///   larger value would only push the expiry out of ``dateRange``. Negative, zero and non-finite
///   lifetimes are refused with ``AuthErrorCode/invalidRequest`` naming the provider and the field.
public enum SessionTimeLimits {
    /// Seconds since 1970 of the earliest and latest absolute date accepted (1970-01-01 … 9999-12-31).
    public static let dateRange: ClosedRange<TimeInterval> = 0...253_402_300_799
    /// The longest token lifetime kept: ten years, in seconds; longer ones are clamped to it.
    public static let maxLifetime: TimeInterval = 315_360_000

    /// Whether `seconds` since 1970 is a date AuthHub accepts.
    public static func isValidDate(_ seconds: TimeInterval) -> Bool {
        seconds.isFinite && dateRange.contains(seconds)
    }

    /// The expiry `lifetime` seconds after `now`, with the rules above.
    /// - Parameters:
    ///   - lifetime: the reply's lifetime in seconds (e.g. `expires_in`).
    ///   - now: the moment the reply was received.
    ///   - provider: the provider id, named in the error.
    ///   - field: the reply's field, named in the error.
    /// - Throws: ``AuthErrorCode/invalidRequest`` for a negative, zero or non-finite lifetime.
    public static func expiry(afterSeconds lifetime: Double, from now: Date, provider: String, field: String = "expires_in") throws -> Date {
        guard lifetime.isFinite, lifetime > 0 else {
            throw AuthError(.invalidRequest,
                            message: "The reply from '\(provider)' has an invalid \(field) (expected a positive number of seconds).",
                            provider: provider, details: ["field": field])
        }
        let expiry = now.addingTimeInterval(min(lifetime, maxLifetime))
        guard isValidDate(expiry.timeIntervalSince1970) else {
            throw AuthError(.invalidRequest, message: "The reply from '\(provider)' has an expiry outside the years 1970–9999.",
                            provider: provider, details: ["field": field])
        }
        return expiry
    }

    /// Checks that a token expiring at `expiresAt` lives at least `minTTL` seconds after `now` (the
    /// caller asked for that much; a renewal that yields less is an error the caller can act on).
    /// - Parameters:
    ///   - token: what the message calls the token (`renewed token`, `API token`).
    /// - Throws: ``AuthErrorCode/invalidRequest`` with `details` `minTTL` and `lifetime` (whole
    ///   seconds, clamped: neither value is trusted to fit an `Int`).
    public static func requireLifetime(_ minTTL: TimeInterval, of token: String, expiresAt: Date, now: Date, provider: String) throws {
        guard expiresAt < now.addingTimeInterval(minTTL) else { return }
        let lifetime = wholeSeconds(from: now, to: expiresAt)
        let wanted = wholeSeconds(from: now, to: now.addingTimeInterval(minTTL))
        throw AuthError(.invalidRequest, message: "The requested minimum lifetime (\(wanted)s) is longer than the \(token)'s (\(lifetime)s).",
                        provider: provider, details: ["minTTL": String(wanted), "lifetime": String(lifetime)])
    }

    /// Whole seconds from `now` until `date`, clamped to ±``maxLifetime`` beyond it, so that a display
    /// or a log line can convert it to `Int` whatever the date.
    public static func wholeSeconds(from now: Date, to date: Date) -> Int {
        let interval = date.timeIntervalSince(now)
        guard interval.isFinite else { return 0 }
        let bound = dateRange.upperBound
        return Int(max(-bound, min(bound, interval)).rounded(.towardZero))
    }
}
