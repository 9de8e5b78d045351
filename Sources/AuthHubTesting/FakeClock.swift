import AuthHub
import Foundation

/// A clock tests control: time moves only when ``advance(by:)`` is called — or, in
/// ``Mode/autoAdvance`` mode, when someone sleeps (the sleep returns at once and moves time on),
/// which makes back-off and retry logic run instantly and deterministically.
public final class FakeClock: AuthClock, Sendable {
    /// How sleeps behave.
    public enum Mode: Sendable {
        /// A sleep moves time forward by its duration and returns at once.
        case autoAdvance
        /// A sleep suspends until ``advance(by:)`` moves time past its deadline.
        case manual
    }

    private struct Sleeper {
        var deadline: Date
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Date
        var sleeps: [Duration] = []
        var sleepers: [UInt64: Sleeper] = [:]
        var nextID: UInt64 = 0
    }

    private let state: Mutex<State>
    private let mode: Mode

    /// A clock at `now` (by default 2026-01-01T00:00:00Z).
    public init(now: Date = Date(timeIntervalSince1970: 1_767_225_600), mode: Mode = .autoAdvance) {
        state = Mutex(State(now: now))
        self.mode = mode
    }

    public var now: Date { state.withLock { $0.now } }

    /// Every duration slept, in order.
    public var sleeps: [Duration] { state.withLock { $0.sleeps } }

    /// Moves time forward, waking manual-mode sleepers whose deadline has passed.
    public func advance(by seconds: TimeInterval) {
        move { $0.addingTimeInterval(seconds) }
    }

    /// Sets the time, waking manual-mode sleepers whose deadline has passed.
    public func set(_ date: Date) {
        move { _ in date }
    }

    private func move(_ change: (Date) -> Date) {
        let woken: [CheckedContinuation<Void, any Error>] = state.withLock { s in
            s.now = change(s.now)
            let due = s.sleepers.filter { $0.value.deadline <= s.now }
            for id in due.keys { s.sleepers[id] = nil }
            return due.values.map(\.continuation)
        }
        for c in woken { c.resume() }
    }

    /// Removes a manual-mode sleeper and resumes it with `CancellationError`, if it still waits.
    private func cancelSleeper(_ id: UInt64) {
        let sleeper = state.withLock { s in s.sleepers.removeValue(forKey: id) }
        sleeper?.continuation.resume(throwing: CancellationError())
    }

    public func sleep(for duration: Duration) async throws {
        try Task.checkCancellation()
        switch mode {
        case .autoAdvance:
            state.withLock { s in
                s.sleeps.append(duration)
                s.now = s.now.addingTimeInterval(duration.seconds)
            }
        case .manual:
            let id = state.withLock { s in
                s.nextID += 1
                return s.nextID
            }
            // A cancelled sleep throws CancellationError at once instead of waiting for time to move.
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                    state.withLock { s in
                        s.sleeps.append(duration)
                        s.sleepers[id] = Sleeper(deadline: s.now.addingTimeInterval(duration.seconds), continuation: c)
                    }
                    // Cancelled before the sleeper was registered: the handler found nothing to cancel.
                    if Task.isCancelled { cancelSleeper(id) }
                }
            } onCancel: {
                cancelSleeper(id)
            }
        }
    }
}
