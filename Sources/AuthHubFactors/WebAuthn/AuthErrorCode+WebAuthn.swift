import struct AuthHub.AuthErrorCode

/// The WebAuthn failures, one code each, so a relying party (the emulator, a server) can tell the
/// user — and its logs — exactly which check failed.
extension AuthErrorCode {
    /// The response is not well-formed: bad base64url, JSON, CBOR or authenticator data.
    public static let webAuthnMalformedResponse = AuthErrorCode("webAuthnMalformedResponse")
    /// `clientDataJSON.type` is not the ceremony's (`webauthn.create` / `webauthn.get`).
    public static let webAuthnTypeMismatch = AuthErrorCode("webAuthnTypeMismatch")
    /// The signed challenge is not the one the relying party issued.
    public static let webAuthnChallengeMismatch = AuthErrorCode("webAuthnChallengeMismatch")
    /// The client's origin is not one the relying party accepts.
    public static let webAuthnOriginMismatch = AuthErrorCode("webAuthnOriginMismatch")
    /// The ceremony ran in a cross-origin frame and the relying party does not allow that.
    public static let webAuthnCrossOrigin = AuthErrorCode("webAuthnCrossOrigin")
    /// The authenticator data is for another RP ID (its hash differs), or the RP ID is not valid for
    /// the client's origin.
    public static let webAuthnRPIDMismatch = AuthErrorCode("webAuthnRPIDMismatch")
    /// The authenticator did not test user presence (flag UP clear).
    public static let webAuthnUserPresenceMissing = AuthErrorCode("webAuthnUserPresenceMissing")
    /// User verification was required and the authenticator did not verify the user (flag UV clear),
    /// or cannot.
    public static let webAuthnUserVerificationMissing = AuthErrorCode("webAuthnUserVerificationMissing")
    /// The backup state flag is set on a credential that is not backup eligible.
    public static let webAuthnBackupStateInvalid = AuthErrorCode("webAuthnBackupStateInvalid")
    /// The signature does not verify with the credential's public key.
    public static let webAuthnInvalidSignature = AuthErrorCode("webAuthnInvalidSignature")
    /// The signature counter did not increase: the credential may have been cloned.
    public static let webAuthnSignCountRegression = AuthErrorCode("webAuthnSignCountRegression")
    /// The credential's algorithm is not one the relying party (or authenticator) supports.
    public static let webAuthnUnsupportedAlgorithm = AuthErrorCode("webAuthnUnsupportedAlgorithm")
    /// The attestation statement format is not one the relying party accepts.
    public static let webAuthnUnsupportedAttestation = AuthErrorCode("webAuthnUnsupportedAttestation")
    /// The credential is not in the list the relying party allowed.
    public static let webAuthnCredentialNotAllowed = AuthErrorCode("webAuthnCredentialNotAllowed")
    /// The assertion's user handle is not the credential's.
    public static let webAuthnUserHandleMismatch = AuthErrorCode("webAuthnUserHandleMismatch")
    /// The authenticator holds no credential that matches the request.
    public static let passkeyNotFound = AuthErrorCode("passkeyNotFound")
    /// The authenticator already holds one of the excluded credentials.
    public static let passkeyExcluded = AuthErrorCode("passkeyExcluded")
}
