import AuthHub
import AuthHubFactors
@_spi(Internals) import AuthHubTurnkey
import Crypto
import Foundation

/// AES-256-GCM of `plaintext` under the fuzz store key, the file name authenticated: the sealed form
/// of `FileSessionStore` (base64 of nonce ‖ ciphertext ‖ tag).
func sealedBase64(_ plaintext: Data, fileName: String) throws -> String {
    let key = SymmetricKey(data: Data((0..<32).map { UInt8($0) }))
    let nonce = try AES.GCM.Nonce(data: Data(repeating: 7, count: 12))
    let box = try AES.GCM.seal(plaintext, using: key, nonce: nonce, authenticating: Data(fileName.utf8))
    guard let combined = box.combined else { throw CancellationError() }
    return combined.base64EncodedString()
}

// MARK: 8. WebAuthn

/// The relying party the WebAuthn target verifies against, and the challenge it issued.
let fuzzRelyingParty = WebAuthnRelyingParty(id: "example.com", acceptsUnverifiedAttestation: true)
let fuzzChallenge: [UInt8] = Array("fuzz-challenge-0123456789abcdef".utf8)

/// A stored credential (a fixed P-256 key) for assertions.
let fuzzCredentialRecord: WebAuthnCredentialRecord = {
    let key = fuzzP256Key(seed: 1)
    return WebAuthnCredentialRecord(id: Array("fuzz-credential".utf8), publicKey: COSEKey(p256: key.publicKey).bytes,
                                    algorithm: .es256, signCount: 5)
}()

/// A P-256 signing key derived from `seed` (deterministic, so every run is the same).
func fuzzP256Key(seed: UInt8) -> P256.Signing.PrivateKey {
    var raw = [UInt8](repeating: 0x11, count: 32)
    raw[31] = seed
    // A 32-byte value below the group order is always a valid scalar; 0x11… is.
    guard let key = try? P256.Signing.PrivateKey(rawRepresentation: raw) else { fatalError("fixed P-256 key rejected") }
    return key
}

/// Seam: `WebAuthnRelyingParty.verifyRegistration`/`verifyAssertion` (CBOR attestation objects,
/// COSE keys, authenticator data, client data JSON), `PasskeyRegistration(json:)`,
/// `PasskeyAssertion(json:)`, the options' `init(json:origin:)`, and the decoders directly
/// (`CBORDecoder.decode`, `COSEKey(bytes:)`, `AuthenticatorData(bytes:)`, `CollectedClientData(json:)`).
/// First byte: the mode; then length-prefixed chunks.
let webAuthnTarget = FuzzTarget(name: "webauthn", summary: "CBOR/COSE/authenticator data/client data, WebAuthn RP verification") { bytes in
    var reader = FuzzReader(bytes)
    switch reader.byte() % 5 {
    case 0:
        let registration = PasskeyRegistration(credentialID: reader.chunk(), clientDataJSON: reader.chunk(),
                                               attestationObject: reader.chunk(), transports: ["internal"])
        _ = try? fuzzRelyingParty.verifyRegistration(registration, challenge: fuzzChallenge)
    case 1:
        let assertion = PasskeyAssertion(credentialID: fuzzCredentialRecord.id, clientDataJSON: reader.chunk(),
                                         authenticatorData: reader.chunk(), signature: reader.chunk(),
                                         userHandle: reader.bool() ? reader.chunk() : nil)
        _ = try? fuzzRelyingParty.verifyAssertion(assertion, challenge: fuzzChallenge, credential: fuzzCredentialRecord)
    case 2:
        let rest = reader.rest()
        if let value = try? CBORDecoder.decode(rest) {
            _ = CBOREncoder.encode(value)
            _ = value.typeName
            if let key = try? COSEKey(cbor: value) {
                _ = key.bytes
                _ = try? key.subjectPublicKeyInfo()
                _ = try? key.isValidSignature(Array(rest.prefix(72)), for: rest)
            }
        }
        if let data = try? AuthenticatorData(bytes: rest) { _ = data.bytes }
        if let key = try? COSEKey(bytes: rest) { _ = try? key.subjectPublicKeyInfo() }
        if let clientData = try? CollectedClientData(json: rest) { _ = clientData.jsonBytes }
    case 3:
        guard let json = try? JSONValue.parse(Data(reader.rest())) else { return }
        if let registration = try? PasskeyRegistration(json: json) {
            _ = registration.json
            _ = try? fuzzRelyingParty.verifyRegistration(registration, challenge: fuzzChallenge)
        }
        if let assertion = try? PasskeyAssertion(json: json) {
            _ = assertion.json
            _ = try? fuzzRelyingParty.verifyAssertion(assertion, challenge: fuzzChallenge, credential: fuzzCredentialRecord)
        }
        _ = try? PasskeyRegistrationOptions(json: json, origin: "https://example.com")
        _ = try? PasskeyAssertionOptions(json: json, origin: "https://example.com")
    default:
        // A stored credential record as JSON (what a relying party keeps between ceremonies).
        let decoder = JSONDecoder()
        let data = Data(reader.rest())
        if let record = try? decoder.decode(WebAuthnCredentialRecord.self, from: data) {
            let assertion = PasskeyAssertion(credentialID: record.id, clientDataJSON: [], authenticatorData: [], signature: [])
            _ = try? fuzzRelyingParty.verifyAssertion(assertion, challenge: fuzzChallenge, credential: record)
        }
        _ = try? decoder.decode(PasskeyCredential.self, from: data)
    }
}

// MARK: 9. otpauth URIs

/// Seam: `OTPAuthURI(parsing:)`, then the generator it describes (`totp()`/`hotp()`) producing a
/// code, and the URI written back (`string`, `url()`).
let otpauthTarget = FuzzTarget(name: "otpauth", summary: "otpauth:// URI parsing and the TOTP/HOTP it yields") { bytes in
    let text = String(decoding: bytes, as: UTF8.self)
    guard let uri = try? OTPAuthURI(parsing: text) else { return }
    _ = uri.description
    _ = uri.string
    _ = try? uri.url()
    if let totp = try? uri.totp() {
        _ = try? totp.code(at: Date(timeIntervalSince1970: 1_767_225_600))
    }
    if let hotp = try? uri.hotp() {
        _ = hotp.code(counter: 7)
    }
    if let again = try? OTPAuthURI(parsing: uri.string), again != uri {
        fatalError("an otpauth URI written by OTPAuthURI does not parse back to the same value")
    }
}

// MARK: 10. Turnkey bundles and keys

let turnkeyReceiverKey: P256.KeyAgreement.PrivateKey = {
    // The receiver key of the Turnkey spec's credential bundle fixture (Tests/AuthHubTurnkeyTests).
    guard let raw = TurnkeyHex.decode("20fa65df11f24833790ae283fc9a0c215eecbbc589549767977994dc69d05a56"),
          let key = try? P256.KeyAgreement.PrivateKey(rawRepresentation: raw) else { fatalError("fixture key") }
    return key
}()

let turnkeyEmbeddedKey: P256.KeyAgreement.PrivateKey = {
    // The embedded key of the Turnkey spec's export bundle fixture.
    guard let raw = TurnkeyHex.decode("ffc6090f14bcf260e5dfe63f45412e60a477bb905956d7cc90195b71c2a544b3"),
          let key = try? P256.KeyAgreement.PrivateKey(rawRepresentation: raw) else { fatalError("fixture key") }
    return key
}()

/// Seam: `TurnkeyCredentialBundle.decrypt` (base58check + HPKE), `TurnkeyExportBundle.decryptBytes`/
/// `decryptMnemonic` (JSON envelope, signature, HPKE), `Base58Check`, `TurnkeyHex`, `TurnkeyKeys`,
/// `TurnkeySessionJWT` (decode, validate, notarizer signature) and `TurnkeyAPIStamp(headerValue:)`.
/// First byte: the mode; the rest is the text.
let turnkeyBundleTarget = FuzzTarget(name: "turnkey-bundles", summary: "Turnkey credential/export bundles, base58check, keys, session JWT, stamps") { bytes in
    var reader = FuzzReader(bytes)
    let mode = reader.byte() % 6
    let text = String(decoding: reader.rest(), as: UTF8.self)
    switch mode {
    case 0:
        _ = try? TurnkeyCredentialBundle.decrypt(text, receiverPrivateKey: turnkeyReceiverKey)
        _ = try? Base58Check.decode(text)
    case 1:
        _ = try? TurnkeyExportBundle.decryptMnemonic(text, organizationId: "f9a31c64-d604-42e4-9bef-a773096afad7",
                                                      embeddedPrivateKey: turnkeyEmbeddedKey)
        // The fixture's data is signed by the production quorum key, so only the envelope and
        // signature checks run on mutations; a signer the fuzzer names lets it reach decryption.
        if let envelope = try? JSONValue.parse(Data(text.utf8)), let signer = envelope["enclaveQuorumPublic"]?.stringValue {
            _ = try? TurnkeyExportBundle.decryptBytes(text, organizationId: "f9a31c64-d604-42e4-9bef-a773096afad7",
                                                       embeddedPrivateKey: turnkeyEmbeddedKey, signerPublicKeyHex: signer)
        }
    case 2:
        _ = try? Base58Check.decodeBase58(text)
        if let bytes = TurnkeyHex.decode(text) { _ = TurnkeyHex.encode(bytes) }
        _ = try? TurnkeyKeys.signingPublicKey(hex: text)
        _ = try? TurnkeyKeys.signingPrivateKey(hex: Secret(text))
        _ = try? TurnkeyKeys.rawPrivateKey(fromPKCS8: Array(text.utf8))
    case 3:
        guard let jwt = try? TurnkeySessionJWT(Secret(text)) else { return }
        _ = try? jwt.validate(expectedPublicKey: jwt.publicKey, expectedOrganizationId: jwt.organizationId,
                              now: Date(timeIntervalSince1970: 1_767_225_600))
        _ = TurnkeySessionJWT.signingDigest(Secret(text))
        if let notarizer = try? TurnkeyKeys.signingPublicKey(hex: TurnkeySessionJWT.productionNotarizerPublicKeyHex) {
            _ = try? jwt.verifySignature(notarizerPublicKey: notarizer)
        }
    case 4:
        _ = try? TurnkeyAPIStamp(headerValue: text)
        _ = try? TurnkeyAPIKeyStamper(privateKeyHex: Secret(text))
    default:
        _ = try? TurnkeyKeys.rawPrivateKey(fromPKCS8: Array(text.utf8))
        _ = try? TurnkeyAPIKeyStamper(privateKeyHex: Secret(String(text.prefix(64))), publicKeyHex: String(text.dropFirst(64)))
    }
}
