import AuthHub
import Foundation

/// Browser sign-ins waiting for their second step — AuthHub-held factors, or the provider's own
/// (Firebase's TOTP after the sign-in form) — by the opaque id of the browser's second-step cookie:
/// the hub's token for the waiting sign-in or the provider's requirement (secret), the browser
/// session it becomes, where to go after, a CSRF token for the page's forms, and the session
/// cookie it replaces.
/// Bounded (``capacity``, oldest first) and short-lived (the hub's five minutes); kept in the process,
/// as the hub keeps the waiting sign-in.
final class PendingSecondSteps: Sendable {
    struct Entry: Sendable {
        let token: Secret<String>
        let id: WebSessionID
        let returnPath: String
        let csrf: String
        let createdAt: Date
        let replacing: String?
        /// The provider's own second step (its `mfaRequired` requirement); nil for AuthHub-held factors.
        var requirement: MFARequirement? = nil
        /// For a re-authentication (step-up), the user who must finish it.
        var stepUpUser: String? = nil
        /// Wrong answers so far (the provider's step ends after ``maximumFailures``; the hub counts
        /// its own).
        var failures = 0
    }

    static let maximumFailures = 5

    static let capacity = 10_000
    static let lifetime: TimeInterval = 300
    private let entries = Mutex<[String: Entry]>([:])

    func put(_ entry: Entry, id: String) {
        entries.withLock { table in
            if table.count >= Self.capacity {
                table = table.filter { entry.createdAt.timeIntervalSince($0.value.createdAt) <= Self.lifetime }
                if table.count >= Self.capacity, let oldest = table.min(by: { $0.value.createdAt < $1.value.createdAt })?.key {
                    table[oldest] = nil
                }
            }
            table[id] = entry
        }
    }

    /// The entry while it is young enough, nil otherwise (an old one is dropped).
    func get(_ id: String, now: Date) -> Entry? {
        entries.withLock { table in
            guard let entry = table[id] else { return nil }
            guard now.timeIntervalSince(entry.createdAt) <= Self.lifetime else {
                table[id] = nil
                return nil
            }
            return entry
        }
    }

    /// Counts a wrong answer; false (and the entry gone) once there were ``maximumFailures``.
    func recordFailure(_ id: String) -> Bool {
        entries.withLock { table in
            guard var entry = table[id] else { return false }
            entry.failures += 1
            guard entry.failures < Self.maximumFailures else {
                table[id] = nil
                return false
            }
            table[id] = entry
            return true
        }
    }

    func remove(_ id: String) { _ = entries.withLock { $0.removeValue(forKey: id) } }
}
