import AuthHub
import Crypto
import Foundation

/// A passkey held by ``SoftwarePasskeyAuthenticator``: the private key and what the authenticator
/// keeps beside it.
///
/// `description` and `dump` never show the private key. `Codable` writes it (for credential stores
/// only): binary members as base64url, the key inside ``privateKey`` as a `Secret`.
public struct PasskeyCredential: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The credential ID.
    public var id: [UInt8]
    /// The RP ID the credential is scoped to.
    public var relyingPartyID: String
    /// The account, including the user handle returned with assertions.
    public var user: PasskeyUser
    /// The algorithm of the key (ES256).
    public var algorithm: COSEAlgorithm
    /// The raw 32-byte P-256 private scalar.
    public var privateKey: Secret<[UInt8]>
    /// The signature counter after the last assertion.
    public var signCount: UInt32
    /// Whether the credential is discoverable (found by RP ID with no allow list).
    public var discoverable: Bool
    /// When the credential was created.
    public var createdAt: Date

    /// Creates a credential record.
    public init(id: [UInt8], relyingPartyID: String, user: PasskeyUser, algorithm: COSEAlgorithm = .es256,
                privateKey: Secret<[UInt8]>, signCount: UInt32 = 0, discoverable: Bool = true, createdAt: Date) {
        self.id = id
        self.relyingPartyID = relyingPartyID
        self.user = user
        self.algorithm = algorithm
        self.privateKey = privateKey
        self.signCount = signCount
        self.discoverable = discoverable
        self.createdAt = createdAt
    }

    /// The credential ID as base64url.
    public var idBase64URL: String { Base64URL.encode(id) }

    /// `PasskeyCredential(<id> for <rp id>, <user name>)`, without the key.
    public var description: String {
        "PasskeyCredential(\(idBase64URL) for \(relyingPartyID), \(user.name), signCount \(signCount))"
    }

    /// The signing key.
    /// - Throws: ``AuthErrorCode/storageFailure`` when the stored key is not a P-256 scalar.
    func signingKey() throws -> P256.Signing.PrivateKey {
        do { return try P256.Signing.PrivateKey(rawRepresentation: privateKey.revealed()) } catch {
            throw AuthError(.storageFailure, message: "The private key of passkey \(idBase64URL) is damaged.")
        }
    }

    private enum CodingKeys: String, CodingKey {
        case id, relyingPartyID = "rpId", userHandle, userName, userDisplayName, algorithm, privateKey, signCount,
             discoverable, createdAt
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func bytes(_ key: CodingKeys) throws -> [UInt8] {
            let text = try c.decode(String.self, forKey: key)
            guard let data = Base64URL.decode(text) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "not base64url")
            }
            return [UInt8](data)
        }
        self.init(
            id: try bytes(.id),
            relyingPartyID: try c.decode(String.self, forKey: .relyingPartyID),
            user: PasskeyUser(id: try bytes(.userHandle), name: try c.decode(String.self, forKey: .userName),
                              displayName: try c.decode(String.self, forKey: .userDisplayName)),
            algorithm: try c.decode(COSEAlgorithm.self, forKey: .algorithm),
            privateKey: Secret(try bytes(.privateKey)),
            signCount: try c.decode(UInt32.self, forKey: .signCount),
            discoverable: try c.decode(Bool.self, forKey: .discoverable),
            createdAt: Date(timeIntervalSince1970: try c.decode(Double.self, forKey: .createdAt))
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(Base64URL.encode(id), forKey: .id)
        try c.encode(relyingPartyID, forKey: .relyingPartyID)
        try c.encode(Base64URL.encode(user.id), forKey: .userHandle)
        try c.encode(user.name, forKey: .userName)
        try c.encode(user.displayName, forKey: .userDisplayName)
        try c.encode(algorithm, forKey: .algorithm)
        try c.encode(Base64URL.encode(privateKey.revealed()), forKey: .privateKey)
        try c.encode(signCount, forKey: .signCount)
        try c.encode(discoverable, forKey: .discoverable)
        try c.encode(createdAt.timeIntervalSince1970, forKey: .createdAt)
    }
}
