import Foundation

/// A change another user of a shared store made to it: another replica's sign-in, renewal or
/// sign-out, as a store's change feed reports it (``ObservableSessionStore``).
///
/// The feed tells *that* a key changed, never the session itself (a notification channel is no place
/// for tokens): whoever caches the session reads it again from the store.
public enum SessionStoreChange: Sendable, Equatable, CustomStringConvertible {
    /// `key` was written, now at `version`. `signIn` is true for an unconditional write (a sign-in
    /// replacing whatever was stored) and false for a compare-and-swap on the previous version (a
    /// renewal).
    case saved(SessionKey, version: UInt64, signIn: Bool)
    /// `key` was removed (a sign-out, an account deletion, a session the provider ended).
    case removed(SessionKey)
    /// Changes may have been missed — the feed was disconnected and is listening again —, so every
    /// cached session may be stale and must be read again.
    case resynchronize

    /// The key changed, or nil for ``resynchronize``.
    public var key: SessionKey? {
        switch self {
        case .saved(let key, _, _), .removed(let key): key
        case .resynchronize: nil
        }
    }

    /// `saved(auth0/default, version 3, renewal)` etc.
    public var description: String {
        switch self {
        case .saved(let key, let version, let signIn): "saved(\(key), version \(version), \(signIn ? "sign-in" : "renewal"))"
        case .removed(let key): "removed(\(key))"
        case .resynchronize: "resynchronize"
        }
    }
}

/// A ``SessionStore`` shared by several processes or machines that reports the changes the others
/// make, so that every ``AuthHub`` on it keeps its cached sessions current and publishes every
/// replica's sign-ins, renewals and sign-outs on ``AuthHub/events()``.
///
/// A hub subscribes when it is built. A store reports the writes of *other* users of the database
/// (another store instance, in this process or elsewhere), not its own: its own hub has already
/// published those. Notifications of a feed may be lost while it is disconnected; it then yields
/// ``SessionStoreChange/resynchronize`` once it listens again, and subscribers read their sessions
/// again.
public protocol ObservableSessionStore: SessionStore {
    /// A stream of the changes other users of the store make, from now on. Each call returns a new
    /// stream; ending the iteration unsubscribes.
    func changes() -> AsyncStream<SessionStoreChange>
}
