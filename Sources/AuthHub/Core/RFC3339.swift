import Foundation

/// Timestamps as identity providers write them in JSON (`2026-01-01T00:00:00Z`, with or without
/// fractional seconds: Auth0's `created_at`, Identity Platform's `enrolledAt`).
package enum RFC3339 {
    /// The date `text` names, or nil when it is no RFC 3339 timestamp.
    package static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
