import Foundation

/// The observers of a headless flow's state: each ``stream(startingWith:)`` gets the current state
/// and every later one. Owned by the flow (an actor); streams whose consumer went away are dropped
/// on the next ``publish(_:)``.
public struct FlowObservers<State: Sendable>: Sendable {
    private var continuations: [AsyncStream<State>.Continuation] = []

    /// No observers yet.
    public init() {}

    /// A new stream of states, starting with `current`.
    public mutating func stream(startingWith current: State) -> AsyncStream<State> {
        let (stream, continuation) = AsyncStream<State>.makeStream(bufferingPolicy: .bufferingNewest(64))
        continuation.yield(current)
        continuations.append(continuation)
        return stream
    }

    /// Sends `state` to every live stream.
    public mutating func publish(_ state: State) {
        continuations.removeAll { continuation in
            if case .terminated = continuation.yield(state) { return true }
            return false
        }
    }
}

/// The step-up rule every headless flow shares: run a step; when it fails with an error that
/// signing in again fixes (``AuthError/requiresReauthentication``), report the interruption, call
/// the ``ReauthenticationHandler`` (if any) and repeat the step once; any other error, or a failing
/// handler, is a failure.
///
/// Runs on the caller's actor, so the closures may touch the flow's state.
/// - Parameters:
///   - handler: the flow's re-authentication handler; nil (or `handlerAllowed == false`, as on a
///     manual resume) leaves the flow interrupted.
///   - step: the step; it publishes its own success.
///   - interrupted: publishes `reauthenticationRequired` and remembers the step for a resume.
///   - failed: publishes `failed`.
public func runFlowStep(
    handler: ReauthenticationHandler?,
    handlerAllowed: Bool = true,
    isolation: isolated (any Actor)? = #isolation,
    step: () async throws -> Void,
    interrupted: (AuthError) -> Void,
    failed: (AuthError) -> Void
) async {
    var repeats = handlerAllowed ? 1 : 0
    while true {
        do {
            return try await step()
        } catch {
            let error = AuthError.wrap(error)
            guard error.requiresReauthentication else { return failed(error) }
            interrupted(error)
            guard repeats > 0, let handler else { return }
            repeats -= 1
            do {
                try await handler(error)
            } catch {
                return failed(AuthError.wrap(error))
            }
        }
    }
}
