import AuthHub

/// What a relying party stores about a registered passkey, as ``WebAuthnRelyingParty`` returns it
/// from registration and updates it after each assertion.
///
/// Nothing here is secret: the public key, counters and flags.
public struct WebAuthnCredentialRecord: Sendable, Hashable, Codable {
    /// The credential ID.
    public var id: [UInt8]
    /// The credential public key as COSE_Key CBOR, exactly as the authenticator sent it.
    public var publicKey: [UInt8]
    /// The key's algorithm.
    public var algorithm: COSEAlgorithm
    /// The last signature counter seen.
    public var signCount: UInt32
    /// The authenticator model's AAGUID.
    public var aaguid: [UInt8]
    /// Whether the user was verified at the last ceremony.
    public var userVerified: Bool
    /// Whether the credential is backup eligible (fixed at registration).
    public var backupEligible: Bool
    /// Whether the credential was backed up at the last ceremony.
    public var backedUp: Bool
    /// The transports reported at registration.
    public var transports: [String]
    /// The attestation format at registration.
    public var attestationFormat: String

    /// Creates a record.
    public init(id: [UInt8], publicKey: [UInt8], algorithm: COSEAlgorithm, signCount: UInt32, aaguid: [UInt8] = [],
                userVerified: Bool = false, backupEligible: Bool = false, backedUp: Bool = false,
                transports: [String] = [], attestationFormat: String = "none") {
        self.id = id
        self.publicKey = publicKey
        self.algorithm = algorithm
        self.signCount = signCount
        self.aaguid = aaguid
        self.userVerified = userVerified
        self.backupEligible = backupEligible
        self.backedUp = backedUp
        self.transports = transports
        self.attestationFormat = attestationFormat
    }

    /// `credential_device_type` in Auth0's and py_webauthn's terms: `multi_device` for a backup
    /// eligible (synced) passkey, else `single_device`.
    public var deviceType: String { backupEligible ? "multi_device" : "single_device" }
}
