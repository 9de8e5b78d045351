import Foundation

/// A small lock around a value, for state that a synchronous API must touch.
///
/// `@unchecked Sendable` is sound: the value is only reachable inside `withLock`, which holds an
/// `NSLock` for the whole access, so no two threads can touch it at once.
public final class Mutex<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    public init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value.
    public func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
