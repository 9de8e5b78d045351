import Foundation

/// What an authenticator returns from registration: the new credential's ID and the attestation
/// the relying party verifies (`AuthenticatorAttestationResponse`).
public struct PasskeyRegistration: Sendable, Hashable {
    /// The credential ID.
    public var credentialID: [UInt8]
    /// The exact bytes of the collected client data (`type: "webauthn.create"`, challenge, origin).
    public var clientDataJSON: [UInt8]
    /// The CBOR attestation object: `fmt`, `attStmt` and `authData`.
    public var attestationObject: [UInt8]
    /// The authenticator data inside the attestation object: a convenience copy from the
    /// authenticator, nil when the response was read from JSON.
    public var authenticatorData: [UInt8]?
    /// The algorithm of the new credential's key, when known without parsing the attestation object.
    public var publicKeyAlgorithm: COSEAlgorithm?
    /// The public key as SubjectPublicKeyInfo DER, as `getPublicKey()` returns it, when known.
    public var publicKeyDER: [UInt8]?
    /// Transports the authenticator is reachable over (`internal`, `hybrid`, `usb`, …).
    public var transports: [String]
    /// `platform` or `cross-platform`, when known.
    public var authenticatorAttachment: String?

    /// Creates a registration response.
    public init(
        credentialID: [UInt8], clientDataJSON: [UInt8], attestationObject: [UInt8], authenticatorData: [UInt8]? = nil,
        publicKeyAlgorithm: COSEAlgorithm? = nil, publicKeyDER: [UInt8]? = nil, transports: [String] = [],
        authenticatorAttachment: String? = nil
    ) {
        self.credentialID = credentialID
        self.clientDataJSON = clientDataJSON
        self.attestationObject = attestationObject
        self.authenticatorData = authenticatorData
        self.publicKeyAlgorithm = publicKeyAlgorithm
        self.publicKeyDER = publicKeyDER
        self.transports = transports
        self.authenticatorAttachment = authenticatorAttachment
    }

    /// WebAuthn's `RegistrationResponseJSON` (what `PublicKeyCredential.toJSON()` returns), binary
    /// members base64url without padding: `{id, rawId, type: "public-key", authenticatorAttachment?,
    /// response: {clientDataJSON, attestationObject, transports}, clientExtensionResults: {}}`.
    ///
    /// This is exactly the `authn_response` Auth0 takes for passkey sign-up and My Account enrollment
    /// (AuthHubAuth0 docs, Auth0Endpoints: “Passkeys” and “Confirming an enrollment”), and what server libraries such as py_webauthn verify. Level 3's
    /// optional convenience members (`authenticatorData`, `publicKey`, `publicKeyAlgorithm`) are left
    /// out: a relying party reads them from the attestation object.
    public var json: JSONValue {
        WebAuthnJSONReader.credentialJSON(id: credentialID, response: [
            "clientDataJSON": .string(Base64URL.encode(clientDataJSON)),
            "attestationObject": .string(Base64URL.encode(attestationObject)),
            "transports": .array(transports.map { .string($0) }),
        ], attachment: authenticatorAttachment)
    }

    /// Reads `RegistrationResponseJSON` (as a browser's `toJSON()` or ``json`` produces it).
    /// - Throws: ``AuthErrorCode/invalidRequest`` naming the first missing or malformed member,
    ///   or when `id` and `rawId` differ.
    public init(json: JSONValue) throws {
        let (id, response, attachment) = try WebAuthnJSONReader.readCredential(json, what: "passkey registration response")
        self.init(
            credentialID: id,
            clientDataJSON: try response.bytes("clientDataJSON"),
            attestationObject: try response.bytes("attestationObject"),
            authenticatorData: try response.optionalBytes("authenticatorData"),
            publicKeyAlgorithm: response.json["publicKeyAlgorithm"]?.intValue.map(COSEAlgorithm.init(rawValue:)),
            publicKeyDER: try response.optionalBytes("publicKey"),
            transports: response.json["transports"]?.arrayValue?.compactMap(\.stringValue) ?? [],
            authenticatorAttachment: attachment
        )
    }
}
