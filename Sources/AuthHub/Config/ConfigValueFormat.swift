import Foundation

/// The format checks behind ``ConfigField/Kind``, public so that plugins' own `validate(_:)` can use
/// the same rules.
public enum ConfigValueFormat {
    /// An absolute `http` or `https` URL with a host, without whitespace, user info or fragment.
    public static func isHTTPURL(_ text: String) -> Bool {
        guard !text.contains(where: \.isWhitespace), let components = URLComponents(string: text),
              let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = components.host, !host.isEmpty, components.user == nil, components.fragment == nil
        else { return false }
        if let port = components.port, !(1...65535).contains(port) { return false }
        return host.hasPrefix("[") || host.contains(":") || isDomain(host) || isIPv4(host)
    }

    /// A DNS name such as `tenant.eu.auth0.com` or `localhost`: dot-separated labels of letters,
    /// digits and `-` (not at either end of a label), at most 253 characters.
    public static func isDomain(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count <= 253 else { return false }
        let labels = text.split(separator: ".", omittingEmptySubsequences: false)
        return labels.allSatisfy { label in
            guard (1...63).contains(label.utf8.count), label.first != "-", label.last != "-" else { return false }
            return label.unicodeScalars.allSatisfy { isASCIIAlphanumeric($0) || $0 == "-" }
        }
    }

    /// A bare domain or an absolute `http`/`https` URL (see ``ConfigField/Kind/domainOrURL``).
    public static func isDomainOrURL(_ text: String) -> Bool {
        if text.contains("://") { return isHTTPURL(text) }
        return isDomain(text)
    }

    /// `host:port` with a domain, an IPv4 address or a bracketed IPv6 address, and a port 1–65535.
    public static func isHostPort(_ text: String) -> Bool {
        guard let colon = text.lastIndex(of: ":") else { return false }
        let host = text[..<colon]
        let port = text[text.index(after: colon)...]
        guard !port.isEmpty, port.count <= 5, port.allSatisfy(\.isASCIIDigit), let number = Int(port),
              (1...65535).contains(number)
        else { return false }
        if host.hasPrefix("[") {
            guard host.hasSuffix("]"), host.count > 2 else { return false }
            return host.dropFirst().dropLast().allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
        }
        return isIPv4(String(host)) || isDomain(String(host))
    }

    /// A dotted-quad IPv4 address.
    public static func isIPv4(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCIIDigit) && (Int(part) ?? 256) <= 255
        }
    }

    /// Whether a host name is the local machine: `localhost`, `127.0.0.0/8` or `::1`.
    public static func isLoopbackHost(_ host: String) -> Bool {
        let h = host.lowercased()
        if h == "localhost" || h == "::1" || h == "[::1]" { return true }
        return isIPv4(h) && h.hasPrefix("127.")
    }

    /// Whether a URL uses `https`, or `http` to a loopback host (a local emulator).
    public static func isSecureOrLoopback(_ text: String) -> Bool {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else { return false }
        if scheme == "https" { return true }
        return scheme == "http" && isLoopbackHost(components.host ?? "")
    }

    /// An absolute URI: a scheme (`[A-Za-z][A-Za-z0-9+.-]*`), `:`, and more, without whitespace —
    /// e.g. a native redirect URI such as `com.example.app://callback`.
    public static func isAbsoluteURI(_ text: String) -> Bool {
        guard !text.contains(where: \.isWhitespace), let colon = text.firstIndex(of: ":"), colon != text.startIndex,
              text.index(after: colon) != text.endIndex, URL(string: text) != nil
        else { return false }
        let scheme = text[..<colon].unicodeScalars
        guard let first = scheme.first, isASCIILetter(first) else { return false }
        return scheme.allSatisfy { isASCIIAlphanumeric($0) || "+-.".unicodeScalars.contains($0) }
    }

    /// A UUID in canonical 8-4-4-4-12 hexadecimal form.
    public static func isUUID(_ text: String) -> Bool {
        UUID(uuidString: text) != nil && text.count == 36
    }

    /// An AES-256-GCM key as stores take it: 32 bytes in base64 (surrounding spaces are ignored, see
    /// ``trimmedEncryptionKey(_:)``).
    public static func isEncryptionKey(_ text: String) -> Bool {
        Data(base64Encoded: trimmedEncryptionKey(text))?.count == 32
    }

    /// An encryption key without the spaces around it (what a store is given).
    public static func trimmedEncryptionKey(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespaces)
    }

    /// The problem reported for a value that is not ``isEncryptionKey(_:)``.
    public static let encryptionKeyProblem = "must be 32 bytes encoded in base64 (generate one with: openssl rand -base64 32)"

    private static func isASCIILetter(_ s: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(s) || ("A"..."Z").contains(s)
    }

    private static func isASCIIAlphanumeric(_ s: Unicode.Scalar) -> Bool {
        isASCIILetter(s) || ("0"..."9").contains(s)
    }
}

extension Character {
    /// `0`…`9` only (not other scripts' digits).
    package var isASCIIDigit: Bool { isASCII && isNumber }
}
