import AuthHub
import Crypto
import Foundation

/// Verifies and decrypts Turnkey export bundles (<doc:TurnkeyProtocol>: “Bundles”): a JSON envelope
/// `{version, data, dataSignature, enclaveQuorumPublic}` signed by Turnkey's enclave quorum,
/// whose hex `data` is `{encappedPublic, ciphertext, organizationId}` encrypted to the embedded key.
public enum TurnkeyExportBundle {
    /// The only envelope version known.
    public static let version = "v1.0.0"
    /// Turnkey's production signer key (uncompressed hex).
    public static let productionSignerPublicKeyHex =
        "04cf288fe433cc4e1aa0ce1632feac4ea26bf2f5a09dcfe5a42c398e06898710330f0572882f4dbdf0f5304b8fc8703acd69adca9a4bbf7f5d00d20a5e364b2569"

    /// Verifies the bundle and returns the decrypted plaintext bytes.
    /// - Parameters:
    ///   - bundle: the export bundle JSON text.
    ///   - organizationId: the organization the export was made for; must equal the signed one.
    ///   - embeddedPrivateKey: the key the export was encrypted to.
    ///   - signerPublicKeyHex: the enclave key to require (the production key by default).
    /// - Throws: ``AuthErrorCode/invalidToken`` naming what failed: envelope, version, signer,
    ///   signature, organization or decryption.
    public static func decryptBytes(_ bundle: String, organizationId: String, embeddedPrivateKey: P256.KeyAgreement.PrivateKey,
                                    signerPublicKeyHex: String = productionSignerPublicKeyHex) throws -> Secret<[UInt8]> {
        guard let envelope = (try? JSONValue.parse(Data(bundle.utf8)))?.objectValue else {
            throw AuthError(.invalidToken, message: "The export bundle is not a JSON object.")
        }
        guard envelope["version"]?.stringValue == version else {
            throw AuthError(.invalidToken, message: "The export bundle version is not \(version).")
        }
        guard let quorum = envelope["enclaveQuorumPublic"]?.stringValue, quorum.lowercased() == signerPublicKeyHex.lowercased() else {
            throw AuthError(.invalidToken, message: "The export bundle is not signed by Turnkey's enclave quorum key (enclaveQuorumPublic differs).")
        }
        guard let data = envelope["data"]?.stringValue.flatMap(TurnkeyHex.decode),
              let signatureBytes = envelope["dataSignature"]?.stringValue.flatMap(TurnkeyHex.decode) else {
            throw AuthError(.invalidToken, message: "The export bundle's data or dataSignature is missing or not hex.")
        }
        let signer = try verificationKey(signerPublicKeyHex)
        guard let signature = try? P256.Signing.ECDSASignature(derRepresentation: signatureBytes),
              signer.isValidSignature(signature, for: SHA256.hash(data: data)) else {
            throw AuthError(.invalidToken, message: "The export bundle's dataSignature does not verify over its data.")
        }
        guard let inner = (try? JSONValue.parse(Data(data)))?.objectValue else {
            throw AuthError(.invalidToken, message: "The export bundle's data is not a JSON object.")
        }
        guard inner["organizationId"]?.stringValue == organizationId else {
            throw AuthError(.invalidToken, message: "The export bundle was made for another organization (organizationId differs).")
        }
        guard let encBytes = inner["encappedPublic"]?.stringValue.flatMap(TurnkeyHex.decode),
              let ciphertext = inner["ciphertext"]?.stringValue.flatMap(TurnkeyHex.decode),
              let enc = try? P256.KeyAgreement.PublicKey(x963Representation: encBytes) else {
            throw AuthError(.invalidToken, message: "The export bundle's encappedPublic or ciphertext is missing or malformed.")
        }
        return try TurnkeyCredentialBundle.open(ciphertext: ciphertext, encapsulatedKey: enc, receiverPrivateKey: embeddedPrivateKey)
    }

    /// Verifies and decrypts a wallet export bundle to its mnemonic (UTF-8 text).
    /// - Throws: as ``decryptBytes(_:organizationId:embeddedPrivateKey:signerPublicKeyHex:)``, and
    ///   ``AuthErrorCode/invalidToken`` when the plaintext is not UTF-8.
    public static func decryptMnemonic(_ bundle: String, organizationId: String, embeddedPrivateKey: P256.KeyAgreement.PrivateKey,
                                       signerPublicKeyHex: String = productionSignerPublicKeyHex) throws -> Secret<String> {
        let bytes = try decryptBytes(bundle, organizationId: organizationId, embeddedPrivateKey: embeddedPrivateKey,
                                     signerPublicKeyHex: signerPublicKeyHex)
        guard let text = String(bytes: bytes.revealed(), encoding: .utf8) else {
            throw AuthError(.invalidToken, message: "The export bundle's plaintext is not UTF-8 text.")
        }
        return Secret(text)
    }

    private static func verificationKey(_ hex: String) throws -> P256.Signing.PublicKey {
        do { return try TurnkeyKeys.signingPublicKey(hex: hex) } catch let error as AuthError {
            throw AuthError(.invalidToken, message: "The export bundle signer key is invalid: \(error.message)")
        }
    }
}
