import Crypto
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
    /// Live entries by name with their expiry (seconds since 1970), and every entry in the order it came.
    private let state = Mutex<(seen: [Key: Double], order: [(key: Key, expiresAt: Double)], head: Int)>(([:], [], 0))

    /// An entry's name: a SHA-256 digest held inline, so that an entry is no object of its own (a
    /// busy API keeps hundreds of thousands: one allocation and one pointer chase fewer each).
    package struct Key: Hashable, Sendable {
        let a: UInt64, b: UInt64, c: UInt64, d: UInt64

        package init(_ digest: SHA256Digest) {
            (a, b, c, d) = digest.withUnsafeBytes { raw in
                (raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
                 raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
            }
        }

        /// The SHA-256 of `id`'s UTF-8 bytes.
        init(hashing id: String) {
            var id = id
            self.init(id.withUTF8 { SHA256.hash(data: UnsafeRawBufferPointer($0)) })
        }

        /// Half the digest is plenty for the table (Swift's hasher is seeded per process).
        package func hash(into hasher: inout Hasher) {
            hasher.combine(a)
            hasher.combine(b)
        }
    }

    public init(capacity: Int = 200_000, clock: any AuthClock = SystemClock()) {
        self.capacity = min(max(capacity, 1), 10_000_000)
        self.clock = clock
    }

    public func firstUse(of id: String, until expiresAt: Date) async throws -> Bool {
        try record(id, until: expiresAt)
    }

    /// ``firstUse(of:until:)`` without suspending (the entry is named by the SHA-256 of `id`).
    public func record(_ id: String, until expiresAt: Date) throws -> Bool {
        try record(Key(hashing: id), until: expiresAt)
    }

    /// ``record(_:until:)`` of a value already named by a digest (a DPoP proof's key and `jti`).
    package func record(digest: SHA256Digest, until expiresAt: Date) throws -> Bool {
        try record(Key(digest), until: expiresAt)
    }

    private func record(_ key: Key, until expiresAt: Date) throws -> Bool {
        let now = clock.now.timeIntervalSince1970
        let expiry = expiresAt.timeIntervalSince1970
        return try state.withLock { state in
            // Entries leave in the order they came; expiries of accepted proofs are close to that
            // order (iat within the verifier's window), and one that lives longer than the one
            // before it only keeps the later ones a little longer.
            while state.head < state.order.count, state.order[state.head].expiresAt <= now {
                let gone = state.order[state.head]
                if state.seen[gone.key] == gone.expiresAt { state.seen[gone.key] = nil }
                state.head += 1
            }
            if state.head > 1_024, state.head * 2 > state.order.count {
                state.order.removeFirst(state.head)
                state.head = 0
            }
            // One lookup for the usual case (a new value): written first, put back if it was live.
            let kept = state.seen.updateValue(expiry, forKey: key)
            if let kept, kept > now {
                state.seen[key] = kept
                return false
            }
            if kept == nil, state.seen.count > capacity {
                state.seen[key] = nil
                throw AuthError(.providerUnavailable, message: "Too many one-time values to remember right now; please try again.",
                                details: ["reason": Self.replayCacheFullReason])
            }
            state.order.append((key, expiry))
            return true
        }
    }

    /// How many entries are live (for tests and metrics).
    public var count: Int { state.withLock { $0.seen.count } }
}
