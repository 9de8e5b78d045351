import AuthHub
import Crypto
import Foundation

/// The stored form of one recovery code: a salted SHA-256 hash, written as
/// `sha256$<salt, base64url>$<hash, base64url>`.
///
/// The hash is `SHA-256(salt ‖ normalised code)` with a 16-byte random salt. A fast hash is the
/// right tool here, unlike for passwords: a ``RecoveryCode`` carries 80 bits of uniform
/// randomness, so even a stolen hash cannot be reversed by guessing (2^80 SHA-256 evaluations is
/// far beyond any attacker), and a slow KDF (bcrypt, scrypt, Argon2) would only add cost to every
/// legitimate check. The salt makes equal codes hash differently and rules out precomputed tables.
///
/// ``matches(_:)`` normalises the presented code (see ``RecoveryCode/normalized(_:)``) and compares
/// hashes in constant time.
public struct RecoveryCodeHash: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The name of the scheme in the stored form.
    public static let scheme = "sha256"
    /// The size of a new salt in bytes.
    public static let saltLength = 16
    /// The smallest salt accepted when parsing a stored form.
    public static let minimumSaltLength = 8

    /// The salt.
    public let salt: [UInt8]
    /// `SHA-256(salt ‖ normalised code)`.
    public let digest: [UInt8]

    /// Hashes a code with a new random salt.
    ///
    /// - Parameters:
    ///   - code: the code, in display or typed form.
    ///   - random: the source of the salt.
    /// - Throws: ``AuthError`` with code ``AuthErrorCode/invalidRequest`` when `code` is not a
    ///   recovery code (16 symbols of ``RecoveryCode/alphabet`` after normalisation), or
    ///   ``AuthErrorCode/invalidConfiguration`` when the random source returns the wrong number of bytes.
    public init(hashing code: Secret<String>, random: any RandomSource = SystemRandom()) throws {
        guard let normalized = RecoveryCode.normalized(code) else {
            throw AuthError(.invalidRequest,
                            message: "A recovery code is \(RecoveryCode.length) characters from \(RecoveryCode.alphabet).")
        }
        let salt = random.bytes(Self.saltLength)
        guard salt.count == Self.saltLength else {
            throw AuthError(.invalidConfiguration,
                            message: "The random source returned \(salt.count) bytes instead of \(Self.saltLength).")
        }
        self.salt = salt
        self.digest = Self.hash(normalized, salt: salt)
    }

    /// Parses a stored form `sha256$<salt>$<hash>`.
    ///
    /// - Parameter stored: the stored text.
    /// - Throws: ``AuthError`` with code ``AuthErrorCode/invalidRequest`` (`details["reason"]` is
    ///   `malformedRecoveryCodeHash`) naming what is wrong: the number of fields, the scheme, a
    ///   field that is not base64url, a salt shorter than 8 bytes, or a hash that is not 32 bytes.
    public init(parsing stored: String) throws {
        let fields = stored.split(separator: "$", omittingEmptySubsequences: false)
        guard fields.count == 3 else {
            throw Self.malformed("expected 3 '$'-separated fields (sha256$salt$hash), found \(fields.count)")
        }
        guard fields[0] == Self.scheme else {
            throw Self.malformed("the scheme must be \(Self.scheme)")
        }
        guard let salt = Self.decodeBase64URL(fields[1]) else {
            throw Self.malformed("the salt is not base64url")
        }
        guard salt.count >= Self.minimumSaltLength else {
            throw Self.malformed("the salt is \(salt.count) bytes, fewer than \(Self.minimumSaltLength)")
        }
        guard let digest = Self.decodeBase64URL(fields[2]) else {
            throw Self.malformed("the hash is not base64url")
        }
        guard digest.count == SHA256.byteCount else {
            throw Self.malformed("the hash is \(digest.count) bytes, not \(SHA256.byteCount)")
        }
        self.salt = salt
        self.digest = digest
    }

    /// The stored form, `sha256$<salt>$<hash>` (base64url without padding).
    public var stored: String {
        "\(Self.scheme)$\(Base64URL.encode(salt))$\(Base64URL.encode(digest))"
    }

    /// Whether a presented code is the hashed one.
    ///
    /// - Parameter code: what the user typed; normalised first.
    /// - Returns: `true` when the normalised code hashes to ``digest``; the hashes are compared in
    ///   constant time. `false` for anything that is not a recovery code.
    public func matches(_ code: Secret<String>) -> Bool {
        guard let normalized = RecoveryCode.normalized(code) else { return false }
        return constantTimeEquals(Self.hash(normalized, salt: salt), digest)
    }

    /// `RecoveryCodeHash(sha256)`; the stored form is not secret, but it is not shown either.
    public var description: String { "RecoveryCodeHash(\(Self.scheme))" }

    /// Encodes as the stored form string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(stored)
    }

    /// Decodes from the stored form string.
    ///
    /// - Throws: a `DecodingError`, or ``AuthError`` when the stored form is malformed.
    public init(from decoder: any Decoder) throws {
        try self.init(parsing: decoder.singleValueContainer().decode(String.self))
    }

    private static func hash(_ normalized: Secret<String>, salt: [UInt8]) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data: salt)
        hasher.update(data: Array(normalized.revealed().utf8))
        return Array(hasher.finalize())
    }

    /// Strict base64url: only `A–Z a–z 0–9 - _`, no padding.
    private static func decodeBase64URL(_ text: Substring) -> [UInt8]? {
        guard !text.isEmpty, text.utf8.allSatisfy({ byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"): true
            default: false
            }
        }) else { return nil }
        return Base64URL.decode(String(text)).map { Array($0) }
    }

    private static func malformed(_ problem: String) -> AuthError {
        AuthError(.invalidRequest, message: "The stored recovery code hash is malformed: \(problem).",
                  details: ["reason": "malformedRecoveryCodeHash"])
    }
}
