import Foundation

/// A change of a session, published by ``SessionManager/events()`` and ``AuthHub/events()``.
public enum AuthEvent: Sendable, Equatable, CustomStringConvertible {
    /// The current state when a subscriber starts listening (nil: signed out).
    case initialSession(SessionKey, Session?)
    case signedIn(Session)
    case tokenRefreshed(Session)
    case signedOut(SessionKey)
    /// The session ended because the provider rejected its refresh token, or it expired without one.
    case sessionExpired(SessionKey)

    /// The key the event is about.
    public var key: SessionKey {
        switch self {
        case .initialSession(let k, _), .signedOut(let k), .sessionExpired(let k): k
        case .signedIn(let s), .tokenRefreshed(let s): s.key
        }
    }

    /// `signedIn(auth0/default)` etc.; never a token.
    public var description: String {
        switch self {
        case .initialSession(let k, let s): "initialSession(\(k), \(s == nil ? "signed out" : "signed in"))"
        case .signedIn(let s): "signedIn(\(s.key))"
        case .tokenRefreshed(let s): "tokenRefreshed(\(s.key))"
        case .signedOut(let k): "signedOut(\(k))"
        case .sessionExpired(let k): "sessionExpired(\(k))"
        }
    }
}

/// Fans events out to any number of `AsyncStream` subscribers.
final class EventBroadcaster: Sendable {
    private let state = Mutex<[UInt64: AsyncStream<AuthEvent>.Continuation]>([:])
    private let counter = Mutex<UInt64>(0)

    func subscribe(initial: AuthEvent? = nil) -> AsyncStream<AuthEvent> {
        let (stream, continuation) = AsyncStream<AuthEvent>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let id = counter.withLock { $0 += 1; return $0 }
        if let initial { continuation.yield(initial) }
        state.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.removeValue(forKey: id) }
        }
        return stream
    }

    /// Whether anyone listens.
    var hasSubscribers: Bool { state.withLock { !$0.isEmpty } }

    func publish(_ event: AuthEvent) {
        let subscribers = state.withLock { Array($0.values) }
        for c in subscribers { c.yield(event) }
    }

    func finish() {
        let subscribers = state.withLock { s in defer { s.removeAll() }; return Array(s.values) }
        for c in subscribers { c.finish() }
    }
}
