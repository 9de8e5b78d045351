import Foundation

/// What an authenticator returns from authentication: a signature over the authenticator data and
/// the hash of the client data (`AuthenticatorAssertionResponse`).
public struct PasskeyAssertion: Sendable, Hashable {
    /// The ID of the credential that signed.
    public var credentialID: [UInt8]
    /// The exact bytes of the collected client data (`type: "webauthn.get"`, challenge, origin).
    public var clientDataJSON: [UInt8]
    /// RP ID hash, flags and signature counter.
    public var authenticatorData: [UInt8]
    /// The signature over `authenticatorData || SHA-256(clientDataJSON)`; DER for ECDSA.
    public var signature: [UInt8]
    /// The user handle stored with a discoverable credential.
    public var userHandle: [UInt8]?
    /// `platform` or `cross-platform`, when known.
    public var authenticatorAttachment: String?

    /// Creates an assertion response.
    public init(
        credentialID: [UInt8], clientDataJSON: [UInt8], authenticatorData: [UInt8], signature: [UInt8],
        userHandle: [UInt8]? = nil, authenticatorAttachment: String? = nil
    ) {
        self.credentialID = credentialID
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
        self.authenticatorAttachment = authenticatorAttachment
    }

    /// WebAuthn's `AuthenticationResponseJSON` (what `PublicKeyCredential.toJSON()` returns),
    /// binary members base64url without padding: `{id, rawId, type: "public-key",
    /// authenticatorAttachment?, response: {clientDataJSON, authenticatorData, signature,
    /// userHandle?}, clientExtensionResults: {}}`.
    ///
    /// This is the `authn_response` Auth0 expects for passkey login, and what server libraries such
    /// as py_webauthn verify.
    public var json: JSONValue {
        var response: [String: JSONValue] = [
            "clientDataJSON": .string(Base64URL.encode(clientDataJSON)),
            "authenticatorData": .string(Base64URL.encode(authenticatorData)),
            "signature": .string(Base64URL.encode(signature)),
        ]
        if let userHandle { response["userHandle"] = .string(Base64URL.encode(userHandle)) }
        return WebAuthnJSONReader.credentialJSON(id: credentialID, response: response, attachment: authenticatorAttachment)
    }

    /// Reads `AuthenticationResponseJSON` (as a browser's `toJSON()` or ``json`` produces it).
    /// - Throws: ``AuthErrorCode/invalidRequest`` naming the first missing or malformed member,
    ///   or when `id` and `rawId` differ.
    public init(json: JSONValue) throws {
        let (id, response, attachment) = try WebAuthnJSONReader.readCredential(json, what: "passkey assertion")
        var userHandle = try response.optionalBytes("userHandle")
        if userHandle?.isEmpty == true { userHandle = nil }
        self.init(
            credentialID: id,
            clientDataJSON: try response.bytes("clientDataJSON"),
            authenticatorData: try response.bytes("authenticatorData"),
            signature: try response.bytes("signature"),
            userHandle: userHandle,
            authenticatorAttachment: attachment
        )
    }
}
