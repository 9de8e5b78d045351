import Foundation

/// A cookie as AuthHub's web core sets it (`Set-Cookie`), and the reading of the `Cookie` header.
///
/// The core writes the header itself, so that every adapter sends the very same bytes:
/// `name=value; Max-Age=N; Path=/; Secure; HttpOnly; SameSite=Lax` (`Secure` left out only in loopback
/// development, see ``WebSignInConfiguration/isDevelopment``). A cookie is cleared with `Max-Age=0`
/// and an empty value.
public struct WebCookie: Sendable, Hashable {
    public enum SameSite: String, Sendable, Hashable {
        case strict = "Strict", lax = "Lax", none = "None"
    }

    public var name: String
    public var value: String
    /// Seconds the browser keeps it; 0 clears it.
    public var maxAge: Int
    public var path: String
    public var secure: Bool
    public var httpOnly: Bool
    public var sameSite: SameSite

    public init(name: String, value: String, maxAge: Int, path: String = "/", secure: Bool, httpOnly: Bool = true,
                sameSite: SameSite = .lax) {
        self.name = name
        self.value = value
        self.maxAge = maxAge
        self.path = path
        self.secure = secure
        self.httpOnly = httpOnly
        self.sameSite = sameSite
    }

    /// The `Set-Cookie` header's value.
    public var headerValue: String {
        var text = "\(name)=\(value); Max-Age=\(max(0, maxAge)); Path=\(path)"
        if secure { text += "; Secure" }
        if httpOnly { text += "; HttpOnly" }
        text += "; SameSite=\(sameSite.rawValue)"
        return text
    }

    /// Whether one of the `Set-Cookie` values sets (or clears) cookie `name`: a route that set its
    /// own keeps it, since a browser keeps the last one of a name and a later one would undo it.
    public static func isSet(_ name: String, in setCookieValues: some Sequence<String>) -> Bool {
        setCookieValues.contains { $0.hasPrefix(name + "=") }
    }

    /// Adds this cookie to a response's `Set-Cookie` values unless the route set one of its name
    /// (``isSet(_:in:)``): `append` is called with the header value to add.
    public func add(unlessSetIn setCookieValues: some Sequence<String>, append: (String) -> Void) {
        guard !Self.isSet(name, in: setCookieValues) else { return }
        append(headerValue)
    }

    /// The value of cookie `name` in `Cookie` header values (`a=1; b=2`): the first one of that name,
    /// nil when there is none. At most 8 KiB of each header value is read (a browser sends at most
    /// 4 KiB per cookie); a pair without `=` is skipped; surrounding spaces and tabs are trimmed and
    /// double quotes around the value dropped (RFC 6265 §4.1.1 `cookie-value`).
    public static func value(named name: String, in cookieHeaderValues: some Sequence<String>) -> String? {
        value(named: name, in: Array(cookieHeaderValues))
    }

    /// `value(named:in:)` for an array (what Hummingbird and Vapor give): not generic, so a call
    /// from an adapter's module runs specialized code on every request.
    public static func value(named name: String, in cookieHeaderValues: [String]) -> String? {
        var name = name
        return name.withUTF8 { wanted in
            for var header in cookieHeaderValues {
                guard header.utf8.count <= 8192 else { continue }
                if let value = header.withUTF8({ value(named: wanted, in: $0) }) { return value }
            }
            return nil
        }
    }

    /// `value(named:in:)` for an adapter that can read the first `Cookie` field without building an
    /// array of all of them (Vapor's `headers[.cookie]` allocates one per request): `first` is read,
    /// and `rest` (the fields after it) only when the first has no cookie of that name — the same
    /// answer as `value(named:in:)` on all of them, since the first field's cookie comes first.
    public static func value(named name: String, first: String?, rest: () -> [String]) -> String? {
        guard var first else { return nil }
        var name = name
        if first.utf8.count <= 8192, let found = name.withUTF8({ wanted in first.withUTF8 { value(named: wanted, in: $0) } }) {
            return found
        }
        return value(named: name, in: rest())
    }

    /// One `Cookie` header value's bytes scanned once, in place (no split, no copies but the value
    /// found): the session middleware reads it on every request.
    private static func value(named wanted: UnsafeBufferPointer<UInt8>, in bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let semicolon = UInt8(ascii: ";"), equals = UInt8(ascii: "="), quote = UInt8(ascii: "\"")
        func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != semicolon { end += 1 }
            // The pair [start, end): its name before the first `=`, trimmed.
            var split = start
            while split < end, bytes[split] != equals { split += 1 }
            if split < end {
                var nameStart = start, nameEnd = split
                while nameStart < nameEnd, isBlank(bytes[nameStart]) { nameStart += 1 }
                while nameEnd > nameStart, isBlank(bytes[nameEnd - 1]) { nameEnd -= 1 }
                if nameEnd - nameStart == wanted.count, UnsafeBufferPointer(rebasing: bytes[nameStart..<nameEnd]).elementsEqual(wanted) {
                    var valueStart = split + 1, valueEnd = end
                    while valueStart < valueEnd, isBlank(bytes[valueStart]) { valueStart += 1 }
                    while valueEnd > valueStart, isBlank(bytes[valueEnd - 1]) { valueEnd -= 1 }
                    if valueEnd - valueStart >= 2, bytes[valueStart] == quote, bytes[valueEnd - 1] == quote {
                        valueStart += 1
                        valueEnd -= 1
                    }
                    return String(decoding: UnsafeBufferPointer(rebasing: bytes[valueStart..<valueEnd]), as: UTF8.self)
                }
            }
            start = end + 1
        }
        return nil
    }
}
