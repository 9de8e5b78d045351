import AuthHub
import Crypto
import Foundation

/// A passkey authenticator in software: P-256 (ES256) credentials kept in a
/// ``PasskeyCredentialStore``, producing the same registration and assertion responses a browser
/// and platform authenticator would — `none` attestation, CTAP2-canonical CBOR, DER signatures.
///
/// It also plays the browser's part: it builds `clientDataJSON` from the options' origin and
/// refuses an RP ID that is not the origin's host or a parent domain of it (as a browser would),
/// so flows that need a passkey run for real on Linux, in tests and in the CLI.
///
/// User presence and verification are decided by ``Configuration/approve``: the default approves
/// every ceremony and verifies the user (as a platform authenticator with a biometric would);
/// return false to model the user cancelling.
public struct SoftwarePasskeyAuthenticator: PasskeyAuthenticator {
    /// How the authenticator behaves.
    public struct Configuration: Sendable {
        /// The AAGUID reported in attested credential data (16 bytes). Zeros, as with `none`
        /// attestation, by default.
        public var aaguid: [UInt8]
        /// Whether the authenticator verifies the user (flag UV). When false, a ceremony that
        /// requires verification fails.
        public var verifiesUser: Bool
        /// Whether credentials are backup eligible (flag BE), like synced passkeys.
        public var backupEligible: Bool
        /// Whether credentials are backed up now (flag BS); meaningful only when backup eligible.
        public var backedUp: Bool
        /// Whether assertions carry an increasing signature counter (true) or always 0, as synced
        /// passkeys do.
        public var countsSignatures: Bool
        /// Reported as `authenticatorAttachment`.
        public var attachment: String
        /// Reported as the registration's transports.
        public var transports: [String]
        /// The user's consent: called once per ceremony with the RP ID and user name; false cancels
        /// with ``AuthErrorCode/userCancelled``.
        public var approve: @Sendable (_ relyingPartyID: String, _ userName: String?) async -> Bool

        /// Creates a configuration; every parameter has the platform-authenticator default.
        public init(
            aaguid: [UInt8] = Array(repeating: 0, count: 16),
            verifiesUser: Bool = true,
            backupEligible: Bool = false,
            backedUp: Bool = false,
            countsSignatures: Bool = true,
            attachment: String = "platform",
            transports: [String] = ["internal"],
            approve: @escaping @Sendable (_ relyingPartyID: String, _ userName: String?) async -> Bool = { _, _ in true }
        ) {
            self.aaguid = aaguid
            self.verifiesUser = verifiesUser
            self.backupEligible = backupEligible
            self.backedUp = backedUp
            self.countsSignatures = countsSignatures
            self.attachment = attachment
            self.transports = transports
            self.approve = approve
        }
    }

    /// Where credentials live.
    public let store: any PasskeyCredentialStore
    /// How the authenticator behaves.
    public let configuration: Configuration
    private let random: any RandomSource
    private let clock: any AuthClock

    /// Creates an authenticator.
    /// - Parameters:
    ///   - store: where credentials are kept (``InMemoryPasskeyCredentialStore``,
    ///     ``FilePasskeyCredentialStore`` or your own).
    ///   - configuration: flags, counter and consent behaviour.
    ///   - random: the source of credential IDs (and nothing else: keys come from swift-crypto).
    ///   - clock: stamps credentials' creation time.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` when the AAGUID is not 16 bytes.
    public init(store: any PasskeyCredentialStore, configuration: Configuration = Configuration(),
                random: any RandomSource = SystemRandom(), clock: any AuthClock = SystemClock()) throws {
        guard configuration.aaguid.count == 16 else {
            throw AuthError(.invalidConfiguration, message: "An AAGUID is 16 bytes, not \(configuration.aaguid.count).")
        }
        self.store = store
        self.configuration = configuration
        self.random = random
        self.clock = clock
    }

    public func makeCredential(_ options: PasskeyRegistrationOptions) async throws -> PasskeyRegistration {
        try Self.checkRelyingParty(options.relyingParty.id, origin: options.origin)
        guard options.algorithms.isEmpty || options.algorithms.contains(.es256) else {
            throw AuthError(.webAuthnUnsupportedAlgorithm,
                            message: "The relying party offers \(options.algorithms.map(\.description).joined(separator: ", ")); this authenticator supports ES256 only.")
        }
        guard !options.user.id.isEmpty, options.user.id.count <= 64 else {
            throw AuthError(.invalidRequest, message: "A user handle is 1 to 64 bytes, not \(options.user.id.count).")
        }
        let existing = try await store.credentials(relyingPartyID: options.relyingParty.id)
        if let excluded = existing.first(where: { options.excludeCredentials.contains($0.id) }) {
            throw AuthError(.passkeyExcluded,
                            message: "This authenticator already holds passkey \(excluded.idBase64URL) for \(options.relyingParty.id).")
        }
        let verified = try checkUserVerification(options.userVerification)
        guard await configuration.approve(options.relyingParty.id, options.user.name) else {
            throw AuthError(.userCancelled, message: "The user declined to create a passkey for \(options.relyingParty.id).")
        }

        let key = P256.Signing.PrivateKey()
        let credentialID = random.bytes(16)
        let publicKey = COSEKey(p256: key.publicKey)
        let authData = AuthenticatorData(
            rpIDHash: Array(SHA256.hash(data: Data(options.relyingParty.id.utf8))),
            flags: flags(verified: verified), signCount: 0,
            attestedCredential: .init(aaguid: configuration.aaguid, credentialID: credentialID, publicKey: publicKey))
        let authDataBytes = authData.bytes
        let attestationObject = CBOREncoder.encode(.map([
            CBORMapEntry(.text("fmt"), .text("none")),
            CBORMapEntry(.text("attStmt"), .map([])),
            CBORMapEntry(.text("authData"), .bytes(authDataBytes)),
        ]))
        let clientData = CollectedClientData(type: CollectedClientData.createType, challenge: options.challenge,
                                             origin: options.origin)
        try await store.save(PasskeyCredential(
            id: credentialID, relyingPartyID: options.relyingParty.id, user: options.user, algorithm: .es256,
            privateKey: Secret(Array(key.rawRepresentation)), signCount: 0,
            discoverable: options.residentKey != .discouraged, createdAt: clock.now))
        return PasskeyRegistration(
            credentialID: credentialID, clientDataJSON: clientData.jsonBytes, attestationObject: attestationObject,
            authenticatorData: authDataBytes, publicKeyAlgorithm: .es256,
            publicKeyDER: Array(key.publicKey.derRepresentation), transports: configuration.transports,
            authenticatorAttachment: configuration.attachment)
    }

    /// Signs with the credential the options select: one from `allowCredentials` when it is not
    /// empty, otherwise a discoverable credential for the RP ID. When several match, the newest is
    /// used (a browser would let the user choose).
    public func getAssertion(_ options: PasskeyAssertionOptions) async throws -> PasskeyAssertion {
        try Self.checkRelyingParty(options.relyingPartyID, origin: options.origin)
        let candidates = try await store.credentials(relyingPartyID: options.relyingPartyID).filter {
            options.allowCredentials.isEmpty ? $0.discoverable : options.allowCredentials.contains($0.id)
        }
        guard let credential = candidates.max(by: { $0.createdAt < $1.createdAt }) else {
            throw AuthError(.passkeyNotFound, message: options.allowCredentials.isEmpty
                ? "No passkey for \(options.relyingPartyID) is stored on this authenticator."
                : "None of the \(options.allowCredentials.count) allowed passkeys for \(options.relyingPartyID) is stored on this authenticator.")
        }
        let verified = try checkUserVerification(options.userVerification)
        guard await configuration.approve(options.relyingPartyID, credential.user.name) else {
            throw AuthError(.userCancelled, message: "The user declined to sign in to \(options.relyingPartyID).")
        }
        let key = try credential.signingKey()
        let counter = configuration.countsSignatures ? try await store.nextSignCount(for: credential.id) : 0
        let authData = AuthenticatorData(
            rpIDHash: Array(SHA256.hash(data: Data(options.relyingPartyID.utf8))),
            flags: flags(verified: verified), signCount: counter).bytes
        let clientData = CollectedClientData(type: CollectedClientData.getType, challenge: options.challenge,
                                             origin: options.origin).jsonBytes
        let signature = try key.signature(for: authData + Array(SHA256.hash(data: clientData)))
        return PasskeyAssertion(
            credentialID: credential.id, clientDataJSON: clientData, authenticatorData: authData,
            signature: Array(signature.derRepresentation), userHandle: credential.user.id,
            authenticatorAttachment: configuration.attachment)
    }

    private func flags(verified: Bool) -> AuthenticatorData.Flags {
        var flags: AuthenticatorData.Flags = [.userPresent]
        if verified { flags.insert(.userVerified) }
        if configuration.backupEligible {
            flags.insert(.backupEligible)
            if configuration.backedUp { flags.insert(.backedUp) }
        }
        return flags
    }

    /// Whether this ceremony verifies the user; throws when verification is required and impossible.
    private func checkUserVerification(_ requirement: PasskeyUserVerification) throws -> Bool {
        switch requirement {
        case .required:
            guard configuration.verifiesUser else {
                throw AuthError(.webAuthnUserVerificationMissing,
                                message: "The relying party requires user verification and this authenticator cannot verify the user.")
            }
            return true
        case .preferred: return configuration.verifiesUser
        case .discouraged: return false
        }
    }

    /// The browser's check (WebAuthn, section 5.1.3 step 8 and WebAuthn, section 5.1.4.1 step 7): the origin is `https`
    /// (or `http` on `localhost`), and the RP ID is its host or a parent domain of it (never a bare
    /// top-level label).
    static func checkRelyingParty(_ rpID: String, origin: String) throws {
        guard let url = URL(string: origin), let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(),
              url.path.isEmpty || url.path == "/"
        else {
            throw AuthError(.webAuthnOriginMismatch, message: "\(origin) is not a valid origin.")
        }
        let isLocal = host == "localhost" || host.hasSuffix(".localhost")
        guard scheme == "https" || (scheme == "http" && isLocal) else {
            throw AuthError(.webAuthnOriginMismatch, message: "Passkeys need an https origin (or http on localhost), not \(origin).")
        }
        let id = rpID.lowercased()
        // Without a public-suffix list, a bare top-level label (`com`) is refused outright.
        guard !id.isEmpty, id.contains(".") || id == "localhost", host == id || host.hasSuffix("." + id) else {
            throw AuthError(.webAuthnRPIDMismatch, message: "The RP ID \(rpID) is not valid for the origin \(origin).")
        }
    }
}
