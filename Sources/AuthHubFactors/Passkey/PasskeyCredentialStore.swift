import AuthHub

/// Where ``SoftwarePasskeyAuthenticator`` keeps its credentials.
///
/// Implementations must make ``nextSignCount(for:)`` atomic — two assertions made at once, even
/// from two processes sharing a store, must get two different, increasing counters — and must
/// never drop stored credentials because of a damaged or unreadable backing file: they throw
/// ``AuthErrorCode/storageFailure`` instead.
public protocol PasskeyCredentialStore: Sendable {
    /// Adds a credential, or replaces the one with the same ID.
    func save(_ credential: PasskeyCredential) async throws
    /// The credential with `id`, if stored.
    func credential(id: [UInt8]) async throws -> PasskeyCredential?
    /// Every credential scoped to `relyingPartyID`, oldest first.
    func credentials(relyingPartyID: String) async throws -> [PasskeyCredential]
    /// Increments the stored signature counter of credential `id` and returns the new value.
    /// - Throws: ``AuthErrorCode/passkeyNotFound`` when no such credential is stored.
    func nextSignCount(for id: [UInt8]) async throws -> UInt32
    /// Deletes the credential with `id`; a missing one is not an error.
    func remove(id: [UInt8]) async throws
    /// Every stored credential, oldest first.
    func all() async throws -> [PasskeyCredential]
}

extension AuthError {
    static func passkeyNotStored(_ id: [UInt8]) -> AuthError {
        AuthError(.passkeyNotFound, message: "No passkey with ID \(Base64URL.encode(id)) is stored.")
    }
}
