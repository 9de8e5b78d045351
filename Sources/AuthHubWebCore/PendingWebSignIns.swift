import AuthHub
import AuthHubOIDC
import Foundation

/// Sign-ins started by ``AuthHubWeb``'s login route and not finished yet, by the opaque id of the
/// browser's pre-session cookie: the provider, the transaction (PKCE verifier, `state`, `nonce`,
/// kept server-side only) and the return path — or, for a provider signed in through the web core's
/// own form (email and password), the form's CSRF token instead of a transaction.
///
/// Each entry is taken once (a replayed callback finds nothing), expires after the configured
/// lifetime, and the table holds at most ``capacity`` entries (the oldest go first), so a flood of
/// login requests cannot grow it without bound. It lives in the process: behind a load balancer the
/// callback must reach the replica that served the login (sticky sessions), or the app passes its
/// own shared table.
actor PendingWebSignIns {
    struct Entry: Sendable {
        var provider: String
        /// The redirect's transaction; nil for the sign-in form.
        var transaction: OIDCAuthorizationTransaction?
        var returnPath: String
        var createdAt: Date
        /// For a re-authentication (step-up), the user who must sign in again: a sign-in as anyone
        /// else is refused and the browser's session kept.
        var stepUpUser: String? = nil
        /// The sign-in form's CSRF token (its hidden `csrf` field), bound to this pre-session.
        var csrf: String? = nil
        /// A passkey sign-in's challenge (its provider's state kept here, never in the page).
        var passkey: PasskeySignInChallenge? = nil
    }

    static let capacity = 10_000
    private var entries: [String: Entry] = [:]
    private var order: [String] = []

    /// Adds a started sign-in; entries older than `lifetime` (their callback would be refused) go first.
    func put(_ entry: Entry, id: String, lifetime: Duration) {
        while let oldest = order.first, let kept = entries[oldest],
              entry.createdAt.timeIntervalSince(kept.createdAt) > lifetime.seconds {
            entries[oldest] = nil
            order.removeFirst()
        }
        if entries.count >= Self.capacity, let oldest = order.first {
            entries[oldest] = nil
            order.removeFirst()
        }
        entries[id] = entry
        order.append(id)
    }

    /// The entry, removed: a second call with the same id gets nil.
    func take(_ id: String) -> Entry? {
        guard let entry = entries.removeValue(forKey: id) else { return nil }
        order.removeAll { $0 == id }
        return entry
    }
}
