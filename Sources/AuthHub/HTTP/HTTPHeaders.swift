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

    /// The `Retry-After` field as a duration: delay-seconds, or an HTTP date in the IMF-fixdate form
    /// (`Sun, 06 Nov 1994 08:49:37 GMT`) relative to `now`; nil for anything else.
    public func retryAfter(now: Date = Date()) -> Duration? {
        guard let raw = self["Retry-After"]?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else { return nil }
        if let seconds = Double(raw), seconds >= 0, seconds.isFinite { return .milliseconds(Int64(seconds * 1000)) }
        guard let date = HTTPDate.parse(raw) else { return nil }
        let delta = Swift.max(0, date.timeIntervalSince(now))
        return .milliseconds(Int64(delta * 1000))
    }
}
