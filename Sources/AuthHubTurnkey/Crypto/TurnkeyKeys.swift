import AuthHub
import Crypto
import Foundation

/// P-256 key helpers in Turnkey's encodings (<doc:TurnkeyProtocol>: “API-key stamp” and “Bundles”; <doc:TurnkeyTestVectors>).
@_spi(Internals) public enum TurnkeyKeys {
    /// The compressed public key (33 bytes, `02`/`03` prefix) as 66 lower-case hex characters.
    public static func compressedHex(_ key: P256.Signing.PublicKey) -> String {
        TurnkeyHex.encode(key.compressedRepresentation)
    }

    /// The uncompressed public key (65 bytes, `04` prefix) as 130 lower-case hex characters.
    public static func uncompressedHex(_ key: P256.KeyAgreement.PublicKey) -> String {
        TurnkeyHex.encode(key.x963Representation)
    }

    /// A P-256 signing public key from hex: compressed (66 chars) or uncompressed (130 chars).
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` when the text is not a P-256 point.
    public static func signingPublicKey(hex: String) throws -> P256.Signing.PublicKey {
        guard let bytes = TurnkeyHex.decode(hex) else {
            throw AuthError(.invalidConfiguration, message: "The P-256 public key is not hexadecimal.")
        }
        do {
            switch bytes.count {
            case 33: return try P256.Signing.PublicKey(compressedRepresentation: bytes)
            case 65: return try P256.Signing.PublicKey(x963Representation: bytes)
            default: break
            }
        } catch {
            throw AuthError(.invalidConfiguration, message: "The P-256 public key is not a point on the curve.", underlying: error)
        }
        throw AuthError(.invalidConfiguration,
                        message: "The P-256 public key must be 33 bytes compressed (02/03…) or 65 bytes uncompressed (04…), not \(bytes.count) bytes.")
    }

    /// A P-256 signing private key from its raw 32-byte scalar in hex.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` when the text is not a valid scalar (the
    ///   message never contains the key).
    public static func signingPrivateKey(hex: Secret<String>) throws -> P256.Signing.PrivateKey {
        guard let bytes = TurnkeyHex.decode(hex.revealed().trimmingCharacters(in: .whitespacesAndNewlines)), bytes.count == 32 else {
            throw AuthError(.invalidConfiguration, message: "The P-256 private key must be 64 hexadecimal characters (a raw 32-byte scalar).")
        }
        do {
            return try P256.Signing.PrivateKey(rawRepresentation: bytes)
        } catch {
            throw AuthError(.invalidConfiguration, message: "The P-256 private key is not a valid scalar.", underlying: error)
        }
    }

    /// The raw 32-byte private scalar of a DER PKCS#8 P-256 private key: bytes 36..<68, where the
    /// Turnkey SDKs take it (<doc:TurnkeyTestVectors>).
    /// - Throws: ``AuthErrorCode/invalidRequest`` when the input is too short to hold it.
    public static func rawPrivateKey(fromPKCS8 der: [UInt8]) throws -> Secret<[UInt8]> {
        guard der.count >= 68 else {
            throw AuthError(.invalidRequest, message: "The PKCS#8 key is too short (\(der.count) bytes) to hold a P-256 scalar at offset 36.")
        }
        return Secret(Array(der[36..<68]))
    }
}
