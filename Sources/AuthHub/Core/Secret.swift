/// A value that must never be shown: tokens, passwords, one-time codes, private keys.
///
/// `Secret` prints `<redacted>` in `description`, `debugDescription`, string interpolation, `dump`
/// and `Mirror` reflection, so a secret that reaches a log line, an error message or a `print` by
/// accident shows nothing. The raw value is reachable only through ``revealed()``, which makes every
/// use of it visible in code review.
///
/// `Secret` is `Codable` so that session stores can persist it: encoding writes the raw value.
/// Encode a `Secret` only into storage or onto the wire, never into diagnostics.
///
/// Equality compares in constant time for `String` and byte values, so comparing a presented code
/// with an expected one leaks no timing information.
public struct Secret<Value: Sendable>: Sendable {
    private let value: Value

    /// Wraps a value.
    public init(_ value: Value) {
        self.value = value
    }

    /// Returns the raw value. Call this only where the value goes onto the wire or into storage.
    @inlinable
    public func revealed() -> Value {
        _value
    }

    @usableFromInline
    var _value: Value { value }

    /// Transforms the wrapped value without exposing it.
    public func map<T: Sendable>(_ transform: (Value) throws -> T) rethrows -> Secret<T> {
        Secret<T>(try transform(value))
    }
}

extension Secret: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Always `<redacted>`.
    public var description: String { "<redacted>" }
    /// Always `Secret(<redacted>)`.
    public var debugDescription: String { "Secret(<redacted>)" }
    /// A mirror with no children, so `dump` and reflection-based loggers see nothing.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

extension Secret: Equatable where Value: Equatable {
    public static func == (lhs: Secret, rhs: Secret) -> Bool {
        if let l = lhs.value as? String, let r = rhs.value as? String {
            return constantTimeEquals(Array(l.utf8), Array(r.utf8))
        }
        if let l = lhs.value as? [UInt8], let r = rhs.value as? [UInt8] {
            return constantTimeEquals(l, r)
        }
        return lhs.value == rhs.value
    }
}

extension Secret: Hashable where Value: Hashable {
    public func hash(into hasher: inout Hasher) { hasher.combine(value) }
}

extension Secret: Codable where Value: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        self.value = try container.decode(Value.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

extension Secret where Value == String {
    /// True when the wrapped string is empty.
    public var isEmpty: Bool { value.isEmpty }
}

/// Compares two byte sequences in time that depends only on their lengths.
package func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    var diff: UInt8 = a.count == b.count ? 0 : 1
    let n = min(a.count, b.count)
    for i in 0..<n { diff |= a[i] ^ b[i] }
    return diff == 0
}

/// ``constantTimeEquals(_:_:)-([UInt8],[UInt8])`` of two strings' UTF-8 bytes, without copying them
/// (tokens, CSRF values, thumbprints, nonces compared on every request).
package func constantTimeEquals(_ a: String, _ b: String) -> Bool {
    var a = a, b = b
    return a.withUTF8 { x in
        b.withUTF8 { y in
            var diff: UInt8 = x.count == y.count ? 0 : 1
            for i in 0..<min(x.count, y.count) { diff |= x[i] ^ y[i] }
            return diff == 0
        }
    }
}
