import Foundation

/// Where a server keeps the one-time values it accepted — the `jti`s of DPoP proofs (RFC 9449,
/// section 11.1) and of back-channel logout tokens — until the messages carrying them are too old to
/// be accepted again. Share one implementation across replicas (a database) so that a message cannot
/// be replayed at another replica; ``InMemoryReplayCache`` guards one process.
public protocol ReplayCache: Sendable {
    /// Records `id` (a fixed-size digest naming the value) as used until `expiresAt`.
    /// - Returns: true when `id` was not recorded before (the message is fresh); false for a replay.
    /// - Throws: an ``AuthError`` when the cache cannot answer (the message is then refused, never
    ///   let through).
    func firstUse(of id: String, until expiresAt: Date) async throws -> Bool
}

/// A bounded in-memory ``ReplayCache`` for one process: at most ``capacity`` live entries; an entry
/// is dropped once its message is too old to be accepted. When every slot holds a live entry the
/// message is refused (``AuthErrorCode/providerUnavailable``, `details["reason"]`
/// ``replayCacheFullReason``; a server answers 503) rather than an entry forgotten early (which would
/// let its message be replayed).
public final class InMemoryReplayCache: ReplayCache {
    /// `details["reason"]` of the error when the cache is full.
    public static let replayCacheFullReason = "replayCacheFull"

    /// The most live entries kept (1…10,000,000).
    public let capacity: Int
    private let clock: any AuthClock
    private let state = Mutex<(seen: [String: Date], order: [(id: String, expiresAt: Date)], head: Int)>(([:], [], 0))

    public init(capacity: Int = 200_000, clock: any AuthClock = SystemClock()) {
        self.capacity = min(max(capacity, 1), 10_000_000)
        self.clock = clock
    }

    public func firstUse(of id: String, until expiresAt: Date) async throws -> Bool {
        try record(id, until: expiresAt)
    }

    /// ``firstUse(of:until:)`` without suspending.
    public func record(_ id: String, until expiresAt: Date) throws -> Bool {
        let now = clock.now
        return try state.withLock { state in
            // Entries leave in the order they came; expiries of accepted proofs are close to that
            // order (iat within the verifier's window), and one that lives longer than the one
            // before it only keeps the later ones a little longer.
            while state.head < state.order.count, state.order[state.head].expiresAt <= now {
                let gone = state.order[state.head]
                if state.seen[gone.id] == gone.expiresAt { state.seen[gone.id] = nil }
                state.head += 1
            }
            if state.head > 1_024, state.head * 2 > state.order.count {
                state.order.removeFirst(state.head)
                state.head = 0
            }
            if let kept = state.seen[id], kept > now { return false }
            guard state.seen.count < capacity else {
                throw AuthError(.providerUnavailable, message: "Too many one-time values to remember right now; please try again.",
                                details: ["reason": Self.replayCacheFullReason])
            }
            state.seen[id] = expiresAt
            state.order.append((id, expiresAt))
            return true
        }
    }

    /// How many entries are live (for tests and metrics).
    public var count: Int { state.withLock { $0.seen.count } }
}
