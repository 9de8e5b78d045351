import AuthHub
import Crypto
import Foundation

/// Bitcoin-alphabet base58 with a 4-byte double-SHA-256 checksum (<doc:TurnkeyProtocol>: “Bundles”), the
/// encoding of Turnkey's credential bundles.
///
/// Leading `1` characters stand for leading `0x00` bytes; the last four decoded bytes must equal
/// the first four bytes of `SHA256(SHA256(payload))`.
@_spi(Internals) public enum Base58Check {
    /// The Bitcoin base58 alphabet.
    public static let alphabet = Array("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz".utf8)

    private static let indexes: [Int8] = {
        var table = [Int8](repeating: -1, count: 128)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = Int8(i) }
        return table
    }()

    /// The longest text ``decodeBase58(_:)`` accepts, in bytes: far above any Turnkey bundle (a
    /// credential bundle is about 116 characters). Decoding is quadratic in the length, so a
    /// multi-megabyte text from a reply would otherwise keep a core busy for hours.
    public static let maximumTextLength = 4096

    /// Decodes plain base58 (no checksum).
    /// - Throws: ``AuthErrorCode/invalidToken`` naming the first character outside the alphabet, or
    ///   for a text longer than ``maximumTextLength``.
    public static func decodeBase58(_ text: String) throws -> [UInt8] {
        guard text.utf8.count <= maximumTextLength else {
            throw AuthError(.invalidToken, message: "The base58 text is \(text.utf8.count) bytes long; at most \(maximumTextLength) are accepted.")
        }
        let chars = Array(text.utf8)
        var zeros = 0
        while zeros < chars.count, chars[zeros] == UInt8(ascii: "1") { zeros += 1 }
        // Big-endian base-256 accumulator.
        var bytes: [UInt8] = []
        for (position, c) in chars.enumerated().dropFirst(zeros) {
            guard c < 128, indexes[Int(c)] >= 0 else {
                throw AuthError(.invalidToken, message: "The base58 text has a character outside the Bitcoin alphabet at position \(position).")
            }
            var carry = Int(indexes[Int(c)])
            for i in stride(from: bytes.count - 1, through: 0, by: -1) {
                carry += Int(bytes[i]) * 58
                bytes[i] = UInt8(carry & 0xFF)
                carry >>= 8
            }
            while carry > 0 {
                bytes.insert(UInt8(carry & 0xFF), at: 0)
                carry >>= 8
            }
        }
        return [UInt8](repeating: 0, count: zeros) + bytes
    }

    /// Encodes bytes as plain base58 (no checksum).
    public static func encodeBase58(_ bytes: [UInt8]) -> String {
        var zeros = 0
        while zeros < bytes.count, bytes[zeros] == 0 { zeros += 1 }
        var digits: [UInt8] = []  // little-endian base-58 digits
        for byte in bytes.dropFirst(zeros) {
            var carry = Int(byte)
            for i in digits.indices {
                carry += Int(digits[i]) << 8
                digits[i] = UInt8(carry % 58)
                carry /= 58
            }
            while carry > 0 {
                digits.append(UInt8(carry % 58))
                carry /= 58
            }
        }
        let text = [UInt8](repeating: UInt8(ascii: "1"), count: zeros) + digits.reversed().map { alphabet[Int($0)] }
        return String(decoding: text, as: UTF8.self)
    }

    /// The 4-byte checksum of a payload: the first bytes of `SHA256(SHA256(payload))`.
    public static func checksum(_ payload: [UInt8]) -> [UInt8] {
        Array(SHA256.hash(data: Array(SHA256.hash(data: payload))).prefix(4))
    }

    /// Decodes base58check and returns the payload without its checksum.
    /// - Throws: ``AuthErrorCode/invalidToken`` for a bad character, a text too short to hold a
    ///   checksum, or a checksum mismatch.
    public static func decode(_ text: String) throws -> [UInt8] {
        let bytes = try decodeBase58(text)
        guard bytes.count >= 4 else {
            throw AuthError(.invalidToken, message: "The base58check text is too short to hold a checksum.")
        }
        let payload = Array(bytes.dropLast(4))
        guard Array(bytes.suffix(4)) == checksum(payload) else {
            throw AuthError(.invalidToken, message: "The base58check checksum does not match: the text is corrupt or truncated.")
        }
        return payload
    }

    /// Encodes a payload with its checksum.
    public static func encode(_ payload: [UInt8]) -> String {
        encodeBase58(payload + checksum(payload))
    }
}
