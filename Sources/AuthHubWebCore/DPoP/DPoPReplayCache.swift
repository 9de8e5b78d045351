import AuthHub
import Foundation

/// Where a resource server keeps the `jti`s of the DPoP proofs it accepted, until those proofs are
/// too old to be accepted again (RFC 9449, section 11.1). Share one implementation across replicas
/// (a database) so that a proof cannot be replayed at another replica; the in-memory one guards one
/// process.
public protocol DPoPReplayCache: Sendable {
    /// Records `id` (a fixed-size digest of the key's thumbprint and the `jti`) as used until
    /// `expiresAt`.
    /// - Returns: true when `id` was not recorded before (the proof is fresh); false for a replay.
    /// - Throws: an ``AuthError`` when the cache cannot answer (the proof is then refused, never let
    ///   through).
    func firstUse(of id: String, until expiresAt: Date) async throws -> Bool
}

/// A bounded in-memory ``DPoPReplayCache`` for one process: at most ``capacity`` live entries; an
/// entry is dropped once its proof is too old to be accepted. When every slot holds a live entry
/// the proof is refused (503, ``DPoPProofVerifier/Failure/replayCacheFull``) rather than an entry
/// forgotten early (which would let its proof be replayed).
public final class InMemoryDPoPReplayCache: DPoPReplayCache {
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
                throw AuthError(.providerUnavailable, message: "Too many DPoP proofs to remember right now; please try again.",
                                details: ["reason": DPoPProofVerifier.Failure.replayCacheFull.rawValue])
            }
            state.seen[id] = expiresAt
            state.order.append((id, expiresAt))
            return true
        }
    }

    /// How many entries are live (for tests and metrics).
    public var count: Int { state.withLock { $0.seen.count } }
}
