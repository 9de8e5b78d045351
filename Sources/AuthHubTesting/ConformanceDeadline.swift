import AuthHub

/// Runs one conformance check with a deadline, so a store that hangs (a lock never released, a
/// deadlock) is reported as a failure instead of hanging the caller.
enum ConformanceDeadline {
    static func render(_ duration: Duration) -> String {
        "\(duration.components.seconds)s"
    }

    /// Runs `operation`, or returns `onTimeout()` if it has not finished after `timeout` (the
    /// operation is then cancelled and abandoned, so a hung store cannot hang the caller).
    static func run(_ timeout: Duration, _ operation: @escaping @Sendable () async -> [String],
                                     onTimeout: @escaping @Sendable () -> [String]) async -> [String] {
        let gate = Mutex<CheckedContinuation<[String], Never>?>(nil)
        let timer = Mutex<Task<Void, Never>?>(nil)
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<[String], Never>) in
            gate.withLock { $0 = continuation }
            @Sendable func finish(_ value: [String]) {
                gate.withLock { c in
                    c?.resume(returning: value)
                    c = nil
                }
            }
            let work = Task { finish(await operation()) }
            timer.withLock {
                $0 = Task {
                    do { try await Task.sleep(for: timeout) } catch { return }
                    work.cancel()
                    finish(onTimeout())
                }
            }
        }
        timer.withLock { $0?.cancel() }
        return result
    }
}
