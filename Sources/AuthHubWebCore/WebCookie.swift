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

    /// The value of cookie `name` in `Cookie` header values (`a=1; b=2`): the first one of that name,
    /// nil when there is none. At most 8 KiB of each header value is read (a browser sends at most
    /// 4 KiB per cookie); a pair without `=` is skipped; surrounding spaces and tabs are trimmed and
    /// double quotes around the value dropped (RFC 6265 §4.1.1 `cookie-value`).
    public static func value(named name: String, in cookieHeaderValues: some Sequence<String>) -> String? {
        for header in cookieHeaderValues {
            let utf8 = header.utf8
            guard utf8.count <= 8192 else { continue }
            for pair in utf8.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: true) {
                guard let equals = pair.firstIndex(of: UInt8(ascii: "=")) else { continue }
                guard trimmed(pair[pair.startIndex..<equals]).elementsEqual(name.utf8) else { continue }
                var value = trimmed(pair[pair.index(after: equals)...])
                if value.count >= 2, value.first == UInt8(ascii: "\""), value.last == UInt8(ascii: "\"") {
                    value = value.dropFirst().dropLast()
                }
                return String(decoding: value, as: UTF8.self)
            }
        }
        return nil
    }

    private static func trimmed(_ bytes: Substring.UTF8View.SubSequence) -> Substring.UTF8View.SubSequence {
        let isBlank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !isBlank($0) }), let last = bytes.lastIndex(where: { !isBlank($0) }) else {
            return bytes[bytes.startIndex..<bytes.startIndex]
        }
        return bytes[first...last]
    }
}
