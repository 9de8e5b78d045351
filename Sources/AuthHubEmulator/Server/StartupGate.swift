import class AuthHub.Mutex

/// A one-shot rendezvous between the task that starts the server and the server itself: the
/// first ``resolve(_:)`` wins (the bound port from `onServerRunning`, or the error the server
/// failed with), later ones are ignored, and ``wait()`` returns that first outcome.
final class StartupGate: Sendable {
    private enum State {
        case pending(CheckedContinuation<Int, any Error>?)
        case resolved(Result<Int, any Error>)
    }

    private let state = Mutex<State>(.pending(nil))

    /// Records the outcome and wakes the waiter, unless an outcome was already recorded.
    func resolve(_ result: Result<Int, any Error>) {
        let waiter: CheckedContinuation<Int, any Error>? = state.withLock { state in
            guard case .pending(let continuation) = state else { return nil }
            state = .resolved(result)
            return continuation
        }
        waiter?.resume(with: result)
    }

    /// Waits for the outcome. Cancelling the waiting task resolves the gate with
    /// `CancellationError`.
    func wait() async throws -> Int {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int, any Error>) in
                let ready: Result<Int, any Error>? = state.withLock { state in
                    switch state {
                    case .pending:
                        state = .pending(continuation)
                        return nil
                    case .resolved(let result):
                        return result
                    }
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            resolve(.failure(CancellationError()))
        }
    }
}
