import AuthHub

/// WebAuthn authenticator data (WebAuthn, section 6.1): RP ID hash, flags, signature counter, and — at
/// registration — the attested credential data, then optional CBOR extensions.
public struct AuthenticatorData: Sendable, Hashable {
    /// The flags byte.
    public struct Flags: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// UP: the user was present.
        public static let userPresent = Flags(rawValue: 0x01)
        /// UV: the user was verified (PIN, biometric).
        public static let userVerified = Flags(rawValue: 0x04)
        /// BE: the credential may be backed up (synced) — fixed for its lifetime.
        public static let backupEligible = Flags(rawValue: 0x08)
        /// BS: the credential is backed up now.
        public static let backedUp = Flags(rawValue: 0x10)
        /// AT: attested credential data follows.
        public static let attestedCredentialData = Flags(rawValue: 0x40)
        /// ED: extension data follows.
        public static let extensionData = Flags(rawValue: 0x80)
    }

    /// A new credential's AAGUID, ID and public key.
    public struct AttestedCredential: Sendable, Hashable {
        /// The authenticator model's AAGUID (16 bytes; zeros when not disclosed).
        public var aaguid: [UInt8]
        /// The credential ID.
        public var credentialID: [UInt8]
        /// The credential public key.
        public var publicKey: COSEKey
        /// The public key exactly as encoded in the authenticator data.
        public var publicKeyBytes: [UInt8]

        /// Creates attested credential data; `publicKeyBytes` defaults to the key's canonical encoding.
        public init(aaguid: [UInt8], credentialID: [UInt8], publicKey: COSEKey, publicKeyBytes: [UInt8]? = nil) {
            self.aaguid = aaguid
            self.credentialID = credentialID
            self.publicKey = publicKey
            self.publicKeyBytes = publicKeyBytes ?? publicKey.bytes
        }
    }

    /// SHA-256 of the RP ID the credential is scoped to.
    public var rpIDHash: [UInt8]
    /// The flags.
    public var flags: Flags
    /// The signature counter (0 when the authenticator keeps none).
    public var signCount: UInt32
    /// The attested credential data (registration only).
    public var attestedCredential: AttestedCredential?
    /// The extension outputs, when the ED flag is set.
    public var extensions: CBORValue?

    /// Creates authenticator data. The AT and ED flags follow from the optional parts.
    public init(rpIDHash: [UInt8], flags: Flags, signCount: UInt32, attestedCredential: AttestedCredential? = nil,
                extensions: CBORValue? = nil) {
        self.rpIDHash = rpIDHash
        var flags = flags
        if attestedCredential != nil { flags.insert(.attestedCredentialData) } else { flags.remove(.attestedCredentialData) }
        if extensions != nil { flags.insert(.extensionData) } else { flags.remove(.extensionData) }
        self.flags = flags
        self.signCount = signCount
        self.attestedCredential = attestedCredential
        self.extensions = extensions
    }

    /// Parses authenticator data.
    /// - Throws: ``AuthErrorCode/webAuthnMalformedResponse`` for data that is too short, whose AT or
    ///   ED flag disagrees with its contents, or that has bytes left over.
    public init(bytes: [UInt8]) throws {
        guard bytes.count >= 37 else {
            throw AuthenticatorData.malformed("it has \(bytes.count) bytes; at least 37 are needed")
        }
        rpIDHash = Array(bytes[0..<32])
        flags = Flags(rawValue: bytes[32])
        signCount = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        var offset = 37
        if flags.contains(.attestedCredentialData) {
            guard bytes.count >= offset + 18 else { throw AuthenticatorData.malformed("the attested credential data is truncated") }
            let aaguid = Array(bytes[offset..<offset + 16])
            let idLength = Int(bytes[offset + 16]) << 8 | Int(bytes[offset + 17])
            offset += 18
            guard idLength <= 1023 else { throw AuthenticatorData.malformed("the credential ID is longer than 1023 bytes") }
            guard bytes.count >= offset + idLength else { throw AuthenticatorData.malformed("the credential ID is truncated") }
            let credentialID = Array(bytes[offset..<offset + idLength])
            offset += idLength
            var decoder = CBORDecoder(bytes, offset: offset)
            let keyValue: CBORValue
            do { keyValue = try decoder.decodeItem() } catch let error as AuthError {
                throw AuthenticatorData.malformed("the credential public key: \(error.message)")
            }
            let keyBytes = Array(bytes[offset..<decoder.offset])
            offset = decoder.offset
            attestedCredential = AttestedCredential(aaguid: aaguid, credentialID: credentialID,
                                                    publicKey: try COSEKey(cbor: keyValue), publicKeyBytes: keyBytes)
        } else {
            attestedCredential = nil
        }
        if flags.contains(.extensionData) {
            var decoder = CBORDecoder(bytes, offset: offset)
            do { extensions = try decoder.decodeItem() } catch let error as AuthError {
                throw AuthenticatorData.malformed("the extensions: \(error.message)")
            }
            offset = decoder.offset
        } else {
            extensions = nil
        }
        guard offset == bytes.count else {
            throw AuthenticatorData.malformed("\(bytes.count - offset) bytes are left over (flags 0x\(String(flags.rawValue, radix: 16)))")
        }
    }

    /// The encoded authenticator data.
    public var bytes: [UInt8] {
        var out = rpIDHash
        out.append(flags.rawValue)
        out.append(contentsOf: (0..<4).reversed().map { UInt8(truncatingIfNeeded: signCount >> (UInt32($0) * 8)) })
        if let credential = attestedCredential {
            out.append(contentsOf: credential.aaguid)
            out.append(UInt8(truncatingIfNeeded: credential.credentialID.count >> 8))
            out.append(UInt8(truncatingIfNeeded: credential.credentialID.count))
            out.append(contentsOf: credential.credentialID)
            out.append(contentsOf: credential.publicKeyBytes)
        }
        if let extensions { out.append(contentsOf: CBOREncoder.encode(extensions)) }
        return out
    }

    static func malformed(_ text: String) -> AuthError {
        AuthError(.webAuthnMalformedResponse, message: "Malformed authenticator data: \(text).")
    }
}
