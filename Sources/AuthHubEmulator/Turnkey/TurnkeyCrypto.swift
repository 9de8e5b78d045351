import enum AuthHub.Base64URL
import Crypto
import Foundation

/// The encodings and crypto of AuthHubTurnkey docs, TurnkeyProtocol: “Stamping”, “Activities”, “Bundles”, “Session JWT”, written for the emulator alone: hex,
/// base58check, P-256 key parsing, the notarizer-signed session JWT and the HPKE credential bundle.
enum TurnkeyCrypto {
    // MARK: - Hex

    /// Lower-case hex.
    static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of a hex string (either case), or nil.
    static func bytes(hex: String) -> [UInt8]? {
        let chars = Array(hex.utf8)
        guard chars.count % 2 == 0 else { return nil }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: return c - 0x30
            case 0x61...0x66: return c - 0x61 + 10
            case 0x41...0x46: return c - 0x41 + 10
            default: return nil
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(chars.count / 2)
        var index = 0
        while index < chars.count {
            guard let high = nibble(chars[index]), let low = nibble(chars[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    // MARK: - Keys

    /// A compressed P-256 public key in hex (66 characters, `02`/`03`, a point on the curve).
    static func signingKey(compressedHex: String) -> P256.Signing.PublicKey? {
        guard compressedHex.utf8.count == 66, let bytes = bytes(hex: compressedHex), bytes[0] == 2 || bytes[0] == 3 else {
            return nil
        }
        return try? P256.Signing.PublicKey(compressedRepresentation: bytes)
    }

    /// A P-256 public key in hex, uncompressed (`04…`, 130 characters) or compressed (66).
    static func agreementKey(hex: String) -> P256.KeyAgreement.PublicKey? {
        guard let bytes = bytes(hex: hex) else { return nil }
        if bytes.count == 65, bytes[0] == 4 { return try? P256.KeyAgreement.PublicKey(x963Representation: bytes) }
        if bytes.count == 33, bytes[0] == 2 || bytes[0] == 3 {
            return try? P256.KeyAgreement.PublicKey(compressedRepresentation: bytes)
        }
        return nil
    }

    // MARK: - Base58check

    private static let alphabet = Array("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz".utf8)

    /// Bitcoin-alphabet base58 of `payload || SHA256(SHA256(payload))[0..<4]` (AuthHubTurnkey docs, TurnkeyProtocol: “Bundles”).
    static func base58check(_ payload: [UInt8]) -> String {
        let checksum = Array(SHA256.hash(data: Array(SHA256.hash(data: payload)))).prefix(4)
        return base58(payload + checksum)
    }

    /// Bitcoin-alphabet base58: each leading zero byte is a leading `1`.
    static func base58(_ bytes: [UInt8]) -> String {
        let zeros = bytes.prefix { $0 == 0 }.count
        var digits: [UInt8] = []  // base-58 digits, least significant first
        for byte in bytes.dropFirst(zeros) {
            var carry = Int(byte)
            for index in digits.indices {
                carry += Int(digits[index]) << 8
                digits[index] = UInt8(carry % 58)
                carry /= 58
            }
            while carry > 0 {
                digits.append(UInt8(carry % 58))
                carry /= 58
            }
        }
        let text = Array(repeating: alphabet[0], count: zeros) + digits.reversed().map { alphabet[Int($0)] }
        return String(decoding: text, as: UTF8.self)
    }

    // MARK: - Session JWT (AuthHubTurnkey docs, TurnkeyProtocol: “Session JWT”)

    /// A session JWT: header `{"alg":"ES256","typ":"JWT"}`, the claims in spec order, signed with
    /// `notarizer` over SHA256(SHA256(signing input)) as a prehashed digest, raw r||s.
    static func sessionJWT(
        expiresAt: Date, publicKey: String, userId: String, organizationId: String, notarizer: P256.Signing.PrivateKey
    ) throws -> String {
        let header = Base64URL.encode(Array(#"{"alg":"ES256","typ":"JWT"}"#.utf8))
        let exp = Int64(expiresAt.timeIntervalSince1970.rounded(.down))
        let payloadJSON = "{\"exp\":\(exp),\"public_key\":\(quoted(publicKey)),\"session_type\":\"SESSION_TYPE_READ_WRITE\","
            + "\"user_id\":\(quoted(userId)),\"organization_id\":\(quoted(organizationId))}"
        let payload = Base64URL.encode(Array(payloadJSON.utf8))
        let signingInput = header + "." + payload
        let digest = SHA256.hash(data: Array(SHA256.hash(data: Array(signingInput.utf8))))
        let signature = try notarizer.signature(for: digest)
        return signingInput + "." + Base64URL.encode(Array(signature.rawRepresentation))
    }

    /// A JSON string literal (the values here are hex and UUIDs; escaping is for safety).
    private static func quoted(_ text: String) -> String {
        let data = (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    // MARK: - Credential bundle (AuthHubTurnkey docs, TurnkeyProtocol: “Bundles”)

    static let hpkeSuite = HPKE.Ciphersuite(kem: .P256_HKDF_SHA256, kdf: .HKDF_SHA256, aead: .AES_GCM_256)
    static let hpkeInfo = Data("turnkey_hpke".utf8)

    /// HPKE-seals `plaintext` to `receiver` (info `turnkey_hpke`, AAD = enc || receiver, both
    /// uncompressed) and returns base58check(compressed enc || ciphertext).
    static func credentialBundle(_ plaintext: [UInt8], to receiver: P256.KeyAgreement.PublicKey) throws -> String {
        var sender = try HPKE.Sender(recipientKey: receiver, ciphersuite: hpkeSuite, info: hpkeInfo)
        let enc = sender.encapsulatedKey
        let aad = enc + receiver.x963Representation
        let ciphertext = try sender.seal(plaintext, authenticating: aad)
        let compressed = try P256.KeyAgreement.PublicKey(x963Representation: enc).compressedRepresentation
        return base58check(Array(compressed) + Array(ciphertext))
    }
}
