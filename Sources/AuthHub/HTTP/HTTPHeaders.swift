import Foundation

/// An ordered list of HTTP header fields with case-insensitive lookup.
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// The fields in order.
    public private(set) var fields: [(name: String, value: String)]

    public init() { fields = [] }
    public init(_ fields: [(String, String)]) { self.fields = fields.map { (name: $0.0, value: $0.1) } }
    public init(dictionaryLiteral elements: (String, String)...) { self.init(elements) }

    /// The first value of a field, compared case-insensitively.
    public subscript(name: String) -> String? {
        get { fields.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value }
        set {
            fields.removeAll { $0.name.caseInsensitiveCompare(name) == .orderedSame }
            if let newValue { fields.append((name: name, value: newValue)) }
        }
    }

    /// Appends a field, keeping any existing one of the same name.
    public mutating func add(name: String, value: String) { fields.append((name: name, value: value)) }

    /// Sets every field of `other`, replacing same-named fields here (caller values win).
    public mutating func merge(_ other: HTTPHeaders) {
        for field in other.fields { self[field.name] = field.value }
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { $0.name.lowercased() == $1.name.lowercased() && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        for f in fields { hasher.combine(f.name.lowercased()); hasher.combine(f.value) }
    }

    /// The longest `Retry-After` reported: one day. A larger value (a proxy's `1e300`, a date in the
    /// year 9999) is capped to it; ``APIClient`` never waits longer than its own limits anyway.
    public static let maxRetryAfter: Duration = .seconds(86_400)

    /// The `Retry-After` field as a duration: delay-seconds, or an HTTP date in the IMF-fixdate form
    /// (`Sun, 06 Nov 1994 08:49:37 GMT`, read by ``HTTPDate``) relative to `now`.
    ///
    /// The field comes from outside and is range-checked before it becomes a `Duration`: a delay that
    /// is negative or not a number, or a date in any other form, gives nil (no advice); a delay or
    /// date further away than ``maxRetryAfter`` is capped to it; a date in the past is zero.
    public func retryAfter(now: Date = Date()) -> Duration? {
        guard let raw = self["Retry-After"]?.trimmingCharacters(in: .whitespaces), !raw.isEmpty, raw.utf8.count <= 64 else {
            return nil
        }
        let cap = Double(Self.maxRetryAfter.components.seconds)
        if let seconds = Double(raw) {
            guard seconds.isFinite, seconds >= 0 else { return nil }
            return .milliseconds(Int64((Swift.min(seconds, cap) * 1000).rounded()))
        }
        guard let date = HTTPDate.parse(raw) else { return nil }
        let delta = date.timeIntervalSince(now)
        guard delta.isFinite else { return nil }
        return .milliseconds(Int64((Swift.min(Swift.max(0, delta), cap) * 1000).rounded()))
    }
}
