import AuthHub

/// Runs conformance checks, each on a fresh store and with a deadline, so a store that hangs (a lock
/// never released, a deadlock) is reported as a failure instead of hanging the caller.
enum ConformanceRunner {
    /// Runs the named checks (all, or those in `only`) one after another, each on a fresh store
    /// from `makeStore` and within `timeout`.
    /// - Returns: one `[check] message` per failed expectation; empty when the store conforms.
    static func runChecks<Store: Sendable>(
        _ checks: [(name: String, body: @Sendable (Store) async throws -> [String])],
        only: Set<String>?, timeout: Duration, makeStore: @Sendable () async throws -> Store
    ) async -> [String] {
        var failures: [String] = []
        for check in checks where only?.contains(check.name) ?? true {
            let store: Store
            do {
                store = try await makeStore()
            } catch {
                failures.append("[\(check.name)] makeStore threw: \(error)")
                continue
            }
            let body = check.body
            let messages = await run(timeout) {
                do {
                    return try await body(store)
                } catch {
                    return ["unexpected error: \(error)"]
                }
            } onTimeout: {
                ["did not finish within \(render(timeout)) (a lock never released, or a deadlock?)"]
            }
            failures += messages.map { "[\(check.name)] \($0)" }
        }
        return failures
    }

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
