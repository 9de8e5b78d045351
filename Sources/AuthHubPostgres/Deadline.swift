import AuthHub

/// Runs an operation against the database with a deadline.
///
/// postgres-nio's pool does not fail a lease while it cannot connect: requests wait (up to a minute,
/// its circuit breaker) for a server that may never come back, and a query sent on a connection
/// whose server went silent waits for TCP to notice. The store promises a typed error instead, so
/// every operation runs in a task of its own with a timer: whichever ends first answers the
/// caller. On timeout the operation is cancelled (a waiting lease leaves the pool's queue) and
/// abandoned — a statement already sent may still complete on the server, which is why a timed-out
/// save is reported as an error that may have been applied (see ``PostgresSessionStore``).
enum Deadline {
    private struct State: Sendable {
        var continuation: CheckedContinuation<Outcome, Never>?
        var work: Task<Void, Never>?
        var timer: Task<Void, Never>?
    }

    private enum Outcome: Sendable {
        case finished
        case timedOut
    }

    /// Runs `body`, or throws `onTimeout()` once `timeout` has passed without an answer. Cancelling
    /// the caller cancels `body`.
    /// - Parameter abandoned: receives the value of a `body` that succeeds after the deadline passed
    ///   (nobody else will), e.g. to close a connection it opened.
    static func run<T: Sendable>(_ timeout: Duration, onTimeout: @escaping @Sendable () -> AuthError,
                                 abandoned: (@Sendable (T) async -> Void)? = nil,
                                 _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let state = Mutex(State())
        let result = Mutex<Result<T, any Error>?>(nil)
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
                state.withLock { $0.continuation = continuation }
                /// Answers the caller unless someone already did; returns whether this call did.
                @Sendable func finish(_ outcome: Outcome) -> Bool {
                    let (waiting, timer) = state.withLock { s -> (CheckedContinuation<Outcome, Never>?, Task<Void, Never>?) in
                        defer { s.continuation = nil }
                        return (s.continuation, s.timer)
                    }
                    guard let waiting else { return false }
                    if outcome == .finished { timer?.cancel() }
                    waiting.resume(returning: outcome)
                    return true
                }
                let work = Task {
                    let value: Result<T, any Error>
                    do { value = .success(try await body()) } catch { value = .failure(error) }
                    result.withLock { $0 = value }
                    if !finish(.finished), case .success(let late) = value { await abandoned?(late) }
                }
                let timer = Task {
                    do { try await Task.sleep(for: timeout) } catch { return }
                    // The caller first: cancelling the work runs postgres-nio's cancellation handlers on
                    // this thread, and the answer must not wait for them.
                    _ = finish(.timedOut)
                    work.cancel()
                }
                let alreadyDone = state.withLock { s -> Bool in
                    s.work = work
                    s.timer = timer
                    return s.continuation == nil
                }
                if alreadyDone { timer.cancel() }
                // Cancelled before `work` existed: the handler below found nothing to cancel.
                if Task.isCancelled { work.cancel() }
            }
        } onCancel: {
            state.withLock { $0.work }?.cancel()
        }
        switch outcome {
        case .timedOut:
            throw onTimeout()
        case .finished:
            guard let value = result.withLock({ $0 }) else { throw onTimeout() }
            return try value.get()
        }
    }
}
