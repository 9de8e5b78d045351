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
    var provider: String
    var created: Int64
    var random: String

    /// The value as sent in the cookie.
    var value: String { "\(provider).\(created).\(random)" }
    /// The account the session is stored under.
    var account: String { "web.\(created).\(Base64URL.encode(SHA256.hash(data: Data(random.utf8))))" }
    var createdAt: Date { Date(timeIntervalSince1970: TimeInterval(created)) }

    static func make(provider: String, now: Date, random: any RandomSource) -> WebSessionID {
        WebSessionID(provider: provider, created: Int64(now.timeIntervalSince1970.rounded(.down)), random: Base64URL.encode(random.bytes(32)))
    }

    /// Parses a cookie value from outside: at most 512 bytes, a provider id of letters, digits, `-`
    /// and `_`, a creation time within 1970…9999, 43 base64url characters; nil for anything else.
    init?(cookie value: String) {
        guard value.utf8.count <= 512 else { return nil }
        let parts = value.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        let provider = String(parts[0]), created = String(parts[1]), random = String(parts[2])
        guard Self.isUsable(providerID: provider), created.utf8.count <= 12, let seconds = Int64(created), seconds >= 0, seconds <= 253_402_300_799,
              random.utf8.count == 43, Base64URL.decode(random)?.count == 32 else { return nil }
        self.init(provider: provider, created: seconds, random: random)
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
    }
}
