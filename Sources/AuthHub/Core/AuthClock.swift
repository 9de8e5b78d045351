import Foundation

/// The time source of AuthHub: wall-clock time for expiries and a sleep for back-off.
///
/// Injected everywhere so tests control time (see `FakeClock` in AuthHubTesting) and nothing
/// synchronises by sleeping for real.
public protocol AuthClock: Sendable {
    /// The current wall-clock time.
    var now: Date { get }
    /// Suspends for `duration`; throws `CancellationError` when the task is cancelled.
    func sleep(for duration: Duration) async throws
}

/// The real clock.
public struct SystemClock: AuthClock {
    public init() {}
    public var now: Date { Date() }
    public func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }
}

/// A source of random bytes; injected so tests are repeatable.
public protocol RandomSource: Sendable {
    /// Returns `count` random bytes.
    func bytes(_ count: Int) -> [UInt8]
}

/// Cryptographically secure randomness from the system generator.
public struct SystemRandom: RandomSource {
    public init() {}
    public func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}

extension Duration {
    /// The duration in seconds as a `Double`.
    public var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
