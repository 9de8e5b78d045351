import AuthHub
import Crypto
import Foundation

/// Verifies WebAuthn registrations and assertions as a relying party (WebAuthn Level 3, section 7.1 and
/// WebAuthn, section 7.2): for the emulator, and for servers that accept passkeys themselves.
///
/// Every failed check throws its own ``AuthError`` code (`webAuthnChallengeMismatch`,
/// `webAuthnOriginMismatch`, `webAuthnRPIDMismatch`, `webAuthnInvalidSignature`,
/// `webAuthnSignCountRegression`, `webAuthnUserVerificationMissing`, …), so callers and logs know
/// exactly what was wrong. Challenges are compared in constant time.
///
/// Attestation: `none` is verified (its statement must be empty). Other formats are refused with
/// ``AuthErrorCode/webAuthnUnsupportedAttestation`` unless ``acceptsUnverifiedAttestation`` is
/// set, in which case their statement is ignored and the credential treated as unattested — what
/// a relying party that asked for `attestation: "none"` effectively does.
public struct WebAuthnRelyingParty: Sendable {
    /// The RP ID credentials are scoped to (`example.com`).
    public var id: String
    /// Origins the client may run on (`https://example.com`, `https://login.example.com`).
    public var origins: Set<String>
    /// The user-verification policy: with `.required`, a response without the UV flag is refused.
    public var userVerification: PasskeyUserVerification
    /// Whether the UP flag is required (true, as WebAuthn says, except for conditional mediation).
    public var requiresUserPresence: Bool
    /// Algorithms accepted for new credentials.
    public var algorithms: Set<COSEAlgorithm>
    /// Whether ceremonies from cross-origin frames are accepted.
    public var allowsCrossOrigin: Bool
    /// Whether registrations whose attestation format is not `none` are accepted as unattested.
    public var acceptsUnverifiedAttestation: Bool

    /// Creates a relying party.
    /// - Parameters:
    ///   - id: the RP ID.
    ///   - origins: accepted origins; defaults to `https://<id>`.
    ///   - userVerification: `.required` to refuse responses without user verification.
    public init(
        id: String,
        origins: Set<String>? = nil,
        userVerification: PasskeyUserVerification = .preferred,
        requiresUserPresence: Bool = true,
        algorithms: Set<COSEAlgorithm> = [.es256, .edDSA, .es384, .es512, .ps256, .rs256],
        allowsCrossOrigin: Bool = false,
        acceptsUnverifiedAttestation: Bool = false
    ) {
        self.id = id
        self.origins = origins ?? ["https://\(id)"]
        self.userVerification = userVerification
        self.requiresUserPresence = requiresUserPresence
        self.algorithms = algorithms
        self.allowsCrossOrigin = allowsCrossOrigin
        self.acceptsUnverifiedAttestation = acceptsUnverifiedAttestation
    }

    /// Verifies a registration response and returns the credential to store.
    /// - Parameters:
    ///   - response: the authenticator's response (``PasskeyRegistration/init(json:)`` reads a browser's).
    ///   - challenge: the challenge issued for this ceremony.
    /// - Throws: an ``AuthError`` whose code names the failed check.
    public func verifyRegistration(_ response: PasskeyRegistration, challenge: [UInt8]) throws -> WebAuthnCredentialRecord {
        try checkClientData(response.clientDataJSON, type: CollectedClientData.createType, challenge: challenge)

        let attestation: CBORValue
        do { attestation = try CBORDecoder.decode(response.attestationObject) } catch let error as AuthError {
            throw AuthError(.webAuthnMalformedResponse, message: "Malformed attestation object: \(error.message)")
        }
        guard let format = attestation[text: "fmt"]?.textValue,
              let statement = attestation[text: "attStmt"], statement.mapValue != nil,
              let authDataBytes = attestation[text: "authData"]?.bytesValue
        else {
            throw AuthError(.webAuthnMalformedResponse,
                            message: "The attestation object needs fmt (text), attStmt (map) and authData (bytes).")
        }
        let authData = try AuthenticatorData(bytes: authDataBytes)
        try checkAuthenticatorData(authData)
        guard let attested = authData.attestedCredential else {
            throw AuthError(.webAuthnMalformedResponse, message: "The registration carries no attested credential data.")
        }
        guard algorithms.contains(attested.publicKey.algorithm) else {
            throw AuthError(.webAuthnUnsupportedAlgorithm,
                            message: "The credential uses \(attested.publicKey.algorithm), which this relying party does not accept.")
        }
        // Building the verifier proves the key is a valid point or modulus now, not at first sign-in.
        _ = try attested.publicKey.subjectPublicKeyInfo()
        switch format {
        case "none":
            guard statement.mapValue?.isEmpty == true else {
                throw AuthError(.webAuthnUnsupportedAttestation, message: "A \"none\" attestation must have an empty statement.")
            }
        default:
            guard acceptsUnverifiedAttestation else {
                throw AuthError(.webAuthnUnsupportedAttestation,
                                message: "Attestation format \"\(format)\" is not accepted; only \"none\" is verified.")
            }
        }
        guard response.credentialID == attested.credentialID else {
            throw AuthError(.webAuthnMalformedResponse, message: "The response's credential ID differs from the attested one.")
        }
        return WebAuthnCredentialRecord(
            id: attested.credentialID, publicKey: attested.publicKeyBytes, algorithm: attested.publicKey.algorithm,
            signCount: authData.signCount, aaguid: attested.aaguid,
            userVerified: authData.flags.contains(.userVerified),
            backupEligible: authData.flags.contains(.backupEligible), backedUp: authData.flags.contains(.backedUp),
            transports: response.transports, attestationFormat: format)
    }

    /// Verifies an assertion made with a stored credential and returns the credential updated with
    /// the new counter and backup state (store it in place of the old one).
    /// - Parameters:
    ///   - assertion: the authenticator's response (``PasskeyAssertion/init(json:)`` reads a browser's).
    ///   - challenge: the challenge issued for this ceremony.
    ///   - credential: the stored credential whose ID the assertion names.
    ///   - allowCredentials: the allow list sent with the options, if any.
    ///   - userHandle: the user handle of the account being signed in, when known.
    /// - Throws: an ``AuthError`` whose code names the failed check.
    public func verifyAssertion(
        _ assertion: PasskeyAssertion, challenge: [UInt8], credential: WebAuthnCredentialRecord,
        allowCredentials: [[UInt8]] = [], userHandle: [UInt8]? = nil
    ) throws -> WebAuthnCredentialRecord {
        if !allowCredentials.isEmpty, !allowCredentials.contains(assertion.credentialID) {
            throw AuthError(.webAuthnCredentialNotAllowed, message: "The assertion was made with a passkey that was not allowed.")
        }
        guard assertion.credentialID == credential.id else {
            throw AuthError(.webAuthnCredentialNotAllowed, message: "The assertion was made with another passkey than the stored one.")
        }
        if let expected = userHandle, let presented = assertion.userHandle, !constantTimeEquals(expected, presented) {
            throw AuthError(.webAuthnUserHandleMismatch, message: "The passkey belongs to another account.")
        }
        try checkClientData(assertion.clientDataJSON, type: CollectedClientData.getType, challenge: challenge)
        let authData = try AuthenticatorData(bytes: assertion.authenticatorData)
        try checkAuthenticatorData(authData)
        if credential.backupEligible != authData.flags.contains(.backupEligible) {
            throw AuthError(.webAuthnBackupStateInvalid, message: "The passkey's backup eligibility changed since registration.")
        }
        let key = try COSEKey(bytes: credential.publicKey)
        let signed = assertion.authenticatorData + Array(SHA256.hash(data: assertion.clientDataJSON))
        guard try key.isValidSignature(assertion.signature, for: signed) else {
            throw AuthError(.webAuthnInvalidSignature, message: "The passkey signature does not verify.")
        }
        if authData.signCount != 0 || credential.signCount != 0, authData.signCount <= credential.signCount {
            throw AuthError(.webAuthnSignCountRegression,
                            message: "The passkey's signature counter went from \(credential.signCount) to \(authData.signCount); it may have been cloned.")
        }
        var updated = credential
        updated.signCount = authData.signCount
        updated.backedUp = authData.flags.contains(.backedUp)
        updated.userVerified = authData.flags.contains(.userVerified)
        return updated
    }

    private func checkClientData(_ bytes: [UInt8], type: String, challenge: [UInt8]) throws {
        let clientData = try CollectedClientData(json: bytes)
        guard clientData.type == type else {
            throw AuthError(.webAuthnTypeMismatch, message: "clientDataJSON.type is \"\(clientData.type)\", not \"\(type)\".")
        }
        guard constantTimeEquals(clientData.challenge, challenge) else {
            throw AuthError(.webAuthnChallengeMismatch, message: "The response signs another challenge than the one issued.")
        }
        guard origins.contains(clientData.origin) else {
            throw AuthError(.webAuthnOriginMismatch, message: "The origin \(clientData.origin) is not accepted.")
        }
        if clientData.crossOrigin, !allowsCrossOrigin {
            throw AuthError(.webAuthnCrossOrigin, message: "The ceremony ran in a cross-origin frame.")
        }
    }

    private func checkAuthenticatorData(_ authData: AuthenticatorData) throws {
        guard constantTimeEquals(authData.rpIDHash, Array(SHA256.hash(data: Data(id.utf8)))) else {
            throw AuthError(.webAuthnRPIDMismatch, message: "The authenticator data is for another RP ID than \(id).")
        }
        if requiresUserPresence, !authData.flags.contains(.userPresent) {
            throw AuthError(.webAuthnUserPresenceMissing, message: "The authenticator did not test user presence.")
        }
        if userVerification == .required, !authData.flags.contains(.userVerified) {
            throw AuthError(.webAuthnUserVerificationMissing, message: "User verification is required and was not performed.")
        }
        if authData.flags.contains(.backedUp), !authData.flags.contains(.backupEligible) {
            throw AuthError(.webAuthnBackupStateInvalid, message: "The authenticator reports a backup of a credential that cannot be backed up.")
        }
    }
}
