import AuthHub
import Crypto
import Foundation

/// Decrypts Turnkey credential bundles (<doc:TurnkeyProtocol>: “Bundles”): base58check of
/// `encappedPublic (33 bytes compressed) || ciphertext`, HPKE base mode DHKEM(P-256)/HKDF-SHA256/
/// AES-256-GCM with info `"turnkey_hpke"` and AAD `enc (65 bytes) || receiver public key (65 bytes)`.
public enum TurnkeyCredentialBundle {
    /// The HPKE `info` Turnkey uses.
    public static let hpkeInfo = Data("turnkey_hpke".utf8)
    /// The HPKE ciphersuite Turnkey uses.
    public static let ciphersuite = HPKE.Ciphersuite(kem: .P256_HKDF_SHA256, kdf: .HKDF_SHA256, aead: .AES_GCM_256)

    /// Decrypts a credential bundle to the raw bytes it carries (for a `create_read_write_session`
    /// bundle, the 32-byte private key of a new API key).
    /// - Parameters:
    ///   - bundle: the base58check text.
    ///   - receiverPrivateKey: the key whose public half was sent as `targetPublicKey`.
    /// - Throws: ``AuthErrorCode/invalidToken`` for a malformed bundle, a bad checksum, a bad
    ///   encapsulated key or a failed decryption.
    public static func decryptBytes(_ bundle: String, receiverPrivateKey: P256.KeyAgreement.PrivateKey) throws -> Secret<[UInt8]> {
        let payload = try Base58Check.decode(bundle)
        guard payload.count > 33 else {
            throw AuthError(.invalidToken, message: "The credential bundle is too short (\(payload.count) bytes): it must hold a 33-byte encapsulated key and a ciphertext.")
        }
        let encapsulated: P256.KeyAgreement.PublicKey
        do {
            encapsulated = try P256.KeyAgreement.PublicKey(compressedRepresentation: payload.prefix(33))
        } catch {
            throw AuthError(.invalidToken, message: "The credential bundle's encapsulated key is not a P-256 point.", underlying: error)
        }
        return try open(ciphertext: Array(payload.dropFirst(33)), encapsulatedKey: encapsulated, receiverPrivateKey: receiverPrivateKey)
    }

    /// Decrypts a credential bundle to the P-256 private key it carries.
    /// - Throws: as ``decryptBytes(_:receiverPrivateKey:)``, and ``AuthErrorCode/invalidToken`` when
    ///   the plaintext is not a 32-byte P-256 scalar.
    public static func decrypt(_ bundle: String, receiverPrivateKey: P256.KeyAgreement.PrivateKey) throws -> P256.Signing.PrivateKey {
        let plaintext = try decryptBytes(bundle, receiverPrivateKey: receiverPrivateKey)
        do {
            return try P256.Signing.PrivateKey(rawRepresentation: plaintext.revealed())
        } catch {
            throw AuthError(.invalidToken, message: "The credential bundle does not hold a P-256 private key.", underlying: error)
        }
    }

    /// HPKE single-shot open with Turnkey's info and AAD.
    static func open(ciphertext: [UInt8], encapsulatedKey: P256.KeyAgreement.PublicKey,
                     receiverPrivateKey: P256.KeyAgreement.PrivateKey) throws -> Secret<[UInt8]> {
        let enc = encapsulatedKey.x963Representation
        let aad = enc + receiverPrivateKey.publicKey.x963Representation
        do {
            var recipient = try HPKE.Recipient(privateKey: receiverPrivateKey, ciphersuite: ciphersuite, info: hpkeInfo,
                                               encapsulatedKey: enc)
            return Secret(Array(try recipient.open(ciphertext, authenticating: aad)))
        } catch {
            throw AuthError(.invalidToken, message: "The bundle could not be decrypted with this key (wrong receiver key or tampered bundle).",
                            underlying: error)
        }
    }
}
