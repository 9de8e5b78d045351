import Crypto
import Foundation

/// The names of the files ``FileSessionStore`` keeps for one ``SessionKey``.
///
/// A key's provider and account may be any strings — with slashes, spaces, dots, `..`, unicode, or
/// empty — so each part is escaped into a safe, reversible form: ASCII lowercase letters, digits,
/// `-` and `_` stay as they are (so `auth0/default` is stored as `session.auth0.default.json`,
/// readable in `ls`), every other byte of the part's UTF-8 becomes `~` and two lowercase hex digits.
/// Upper-case letters are escaped too, so two keys never differ only by case and the names are safe
/// on case-insensitive file systems. `.` separates the parts and cannot occur inside one.
///
/// Names longer than ``maxBaseLength`` (file systems cap a name at 255 bytes) use
/// `session-sha256.<hex of SHA-256 of the escaped key>` instead; such a file's key is read back
/// from the plaintext `key` field of its envelope.
///
/// Besides the session file `<base>.json`, a key has a write lock `.<base>.lock` (held for a
/// compare-and-swap), a refresh lock `.<base>.refresh` (held by ``FileRefreshLock``) and, while a
/// save is under way or after one was killed, a pending file `.<base>.pending`. They are hidden
/// (leading dot) and never mistaken for sessions.
///
/// `package` because the name is also what AES-GCM authenticates with a sealed session
/// (``authenticatedData``), wherever the envelope is kept (AuthHubPostgres seals rows the same way).
package struct SessionFileName: Hashable, Sendable {
    /// The name without extension: `session.<provider>.<account>` or `session-sha256.<hex>`.
    let base: String
    /// Whether the name is a hash, so the key cannot be decoded from it.
    let isHashed: Bool

    /// Prefix of a directly encoded name.
    static let prefix = "session."
    /// Prefix of a hashed name.
    static let hashedPrefix = "session-sha256."
    /// Extension of a session file.
    static let suffix = ".json"
    /// The longest base name encoded directly; longer ones are hashed. Leaves room for the lock and
    /// temporary names within the 255-byte limit.
    static let maxBaseLength = 200

    /// The names for `key`.
    package init(_ key: SessionKey) {
        let escaped = Self.prefix + Self.escape(key.provider) + "." + Self.escape(key.account)
        if escaped.utf8.count <= Self.maxBaseLength {
            base = escaped
            isHashed = false
        } else {
            let digest = SHA256.hash(data: Data(escaped.utf8))
            base = Self.hashedPrefix + digest.map { String(format: "%02x", $0) }.joined()
            isHashed = true
        }
    }

    private init(base: String, isHashed: Bool) {
        self.base = base
        self.isHashed = isHashed
    }

    /// `<base>.json`.
    var fileName: String { base + Self.suffix }
    /// `.<base>.lock`: the lock a compare-and-swap holds.
    var writeLockName: String { "." + base + ".lock" }
    /// `.<base>.refresh`: the lock ``FileRefreshLock`` holds during a refresh.
    var refreshLockName: String { "." + base + ".refresh" }
    /// `.<base>.pending`: the next version of the session, written before the compare-and-swap and
    /// renamed over the session file once it succeeds. There is at most one: it is written only under
    /// the write lock. Found without a live writer, it is an orphan of a killed process — rolled
    /// forward when it is complete and newer, deleted otherwise (see ``FileSessionStore``).
    var pendingName: String { "." + base + ".pending" }
    /// The infix of the temporary files earlier builds wrote (`.<base>.tmp-<random>`); the store
    /// deletes such files once they are old enough that no writer can still own them.
    static let legacyTemporaryInfix = ".tmp-"

    /// The bytes AES-GCM authenticates with a sealed session: the session file's name, so a sealed
    /// file copied under another key's name fails to open.
    package var authenticatedData: Data { Data(fileName.utf8) }

    /// Classifies a directory entry: a session file's name (with the key when it is encoded in the
    /// name), or nil for anything else (lock and temporary files, foreign files).
    static func parse(fileName: String) -> (name: SessionFileName, key: SessionKey?)? {
        guard fileName.hasSuffix(suffix) else { return nil }
        let base = String(fileName.dropLast(suffix.count))
        if base.hasPrefix(hashedPrefix) {
            let hex = base.dropFirst(hashedPrefix.count)
            guard hex.count == 64, hex.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else { return nil }
            return (SessionFileName(base: base, isHashed: true), nil)
        }
        guard base.hasPrefix(prefix) else { return nil }
        let parts = base.dropFirst(prefix.count).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let provider = unescape(parts[0]), let account = unescape(parts[1]) else { return nil }
        let key = SessionKey(provider: provider, account: account)
        let name = SessionFileName(key)
        // Only the canonical spelling is ours: `~61` decodes to `a` but the store writes `a`, and a key
        // too long for a direct name would have been hashed.
        guard name.base == base else { return nil }
        return (name, key)
    }

    // MARK: Escaping

    private static func isPlain(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default:
            false
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Escapes one part of a key.
    static func escape(_ part: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(part.utf8.count)
        for byte in part.utf8 {
            if isPlain(byte) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "~"))
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0f)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Reverses ``escape(_:)``; nil when `escaped` is not a valid escaped part.
    static func unescape(_ escaped: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = escaped.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "~") {
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            } else if isPlain(byte) {
                bytes.append(byte)
            } else {
                return nil
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
