import AuthHub
import Crypto
import Foundation

/// The browser-session cookie's value: `<provider>.<created>.<random>`, where `created` is the
/// sign-in time (Unix seconds) and `random` 32 random bytes (base64url). It names the session in the
/// hub's store (account ``account``), never holds a token, and cannot be forged into another
/// session: changing any part changes the account looked up. The account holds a SHA-256 of the
/// random part, not the part itself: session keys appear in logs and storage errors, and a key must
/// not be enough to rebuild a working cookie.
struct WebSessionID: Sendable, Equatable {
    let provider: String
    let created: Int64
    let random: String
    /// The account the session is stored under: `web.<created>.<base64url(SHA-256(random))>`. Made
    /// once per parsed cookie (a session request reads it up to three times: idle check, session
    /// lookup, last-seen update; each a SHA-256 and an encoding before).
    let account: String

    /// The value as sent in the cookie (made once: every signed-in request names it).
    let value: String
    var createdAt: Date { Date(timeIntervalSince1970: TimeInterval(created)) }

    /// The creation time a browser session's stored account encodes (``account``:
    /// `web.<created>.<hash>`); nil for any other account (a session of another kind).
    static func createdAt(ofAccount account: String) -> Date? {
        let parts = account.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "web", let seconds = Int64(parts[1]), (0...253_402_300_799).contains(seconds) else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    static func make(provider: String, now: Date, random: any RandomSource) -> WebSessionID {
        WebSessionID(provider: provider, created: Int64(now.timeIntervalSince1970.rounded(.down)), random: Base64URL.encode(random.bytes(32)))
    }

    /// Parses a cookie value from outside: at most 512 bytes, a provider id of letters, digits, `-`
    /// and `_`, a creation time within 1970…9999 in decimal without sign or leading zero, 43
    /// base64url characters encoding 32 bytes as AuthHub writes them; nil for anything else.
    init?(cookie value: String) {
        guard value.utf8.count <= 512 else { return nil }
        // Split on the byte: a part holding anything but ASCII is refused below whichever way `.`
        // is found, so this accepts what a `Character` split accepts, without grapheme breaking.
        let parts = value.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        let provider = String(decoding: parts[0], as: UTF8.self), created = String(decoding: parts[1], as: UTF8.self)
        let random = String(decoding: parts[2], as: UTF8.self)
        // Only the canonical form (a time without sign or leading zero; the random part in the
        // URL-safe alphabet, unpadded, its unused low bits zero), so one session has one cookie
        // value: the value keys this replica's table of seen sessions.
        guard Self.isUsable(providerID: provider), created.utf8.count <= 12, let seconds = Int64(created), seconds >= 0, seconds <= 253_402_300_799,
              String(seconds) == created, random.utf8.count == 43, Self.isCanonicalRandom(random) else { return nil }
        self.init(provider: provider, created: seconds, random: random)
    }

    private static func isCanonicalRandom(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { Base64URL.decodeStrictURLSafe(buffer: $0)?.count == 32 }
    }

    /// Whether a provider id can stand in a cookie value: 1…128 ASCII letters, digits, `-`, `_`.
    static func isUsable(providerID: String) -> Bool {
        !providerID.isEmpty && providerID.utf8.count <= 128 && providerID.utf8.allSatisfy {
            ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D || $0 == 0x5F
        }
    }

    init(provider: String, created: Int64, random: String) {
        self.provider = provider
        self.created = created
        self.random = random
        value = "\(provider).\(created).\(random)"
        account = "web.\(created).\(SHA256.hash(data: Data(random.utf8)).withUnsafeBytes { Base64URL.encode(buffer: $0) })"
    }
}
