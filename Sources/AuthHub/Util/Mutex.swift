import Foundation

/// A small lock around a `Sendable` value, for state that a synchronous API must touch.
///
/// Why not `Synchronization.Mutex`: it needs macOS 15 / iOS 18, and the package supports macOS 14 /
/// iOS 17. (On Linux either would do.)
///
/// Why `@unchecked Sendable` is sound — the proof the house style asks for:
/// 1. the stored value is `private` and only reachable inside ``withLock(_:)``, which holds an
///    `NSLock` for the whole access, so no two threads read or write it at once;
/// 2. `Value` is `Sendable`, so whatever `body` copies out of the lock (or leaves in it) may cross
///    threads: a non-`Sendable` reference cannot be smuggled out of the lock and shared;
/// 3. the lock itself is a `let` and `NSLock` is thread-safe.
package final class Mutex<Value: Sendable>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    package init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value.
    package func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
