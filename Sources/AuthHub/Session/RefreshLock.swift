import Foundation

/// Serialises token refreshes for one session key among everyone who shares a store.
///
/// The in-process lock covers one process; `FileRefreshLock` (used by `FileSessionStore`) covers
/// every process on the machine with `flock`; a distributed lock (database advisory lock, Redis)
/// can implement the same protocol for several machines.
public protocol RefreshLock: Sendable {
    /// Runs `body` while holding the lock for `key`.
    func withLock<T: Sendable>(_ key: SessionKey, _ body: @Sendable () async throws -> T) async throws -> T
}

/// A fair (FIFO) per-key lock within one process.
public actor InProcessRefreshLock: RefreshLock {
    private var holders: Set<SessionKey> = []
    private var waiters: [SessionKey: [CheckedContinuation<Void, Never>]] = [:]

    public init() {}

    public func withLock<T: Sendable>(_ key: SessionKey, _ body: @Sendable () async throws -> T) async throws -> T {
        await acquire(key)
        defer { release(key) }
        return try await body()
    }

    private func acquire(_ key: SessionKey) async {
        if !holders.contains(key) {
            holders.insert(key)
            return
        }
        await withCheckedContinuation { waiters[key, default: []].append($0) }
    }

    private func release(_ key: SessionKey) {
        if var queue = waiters[key], !queue.isEmpty {
            let next = queue.removeFirst()
            waiters[key] = queue.isEmpty ? nil : queue
            next.resume()  // ownership passes directly to the next waiter
        } else {
            holders.remove(key)
        }
    }
}
