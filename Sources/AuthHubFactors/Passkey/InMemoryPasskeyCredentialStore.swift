import AuthHub

/// A ``PasskeyCredentialStore`` in memory, for tests and short-lived processes.
public actor InMemoryPasskeyCredentialStore: PasskeyCredentialStore {
    private var credentials: [PasskeyCredential] = []

    /// Creates a store, optionally with credentials in it.
    public init(_ credentials: [PasskeyCredential] = []) {
        self.credentials = credentials
    }

    public func save(_ credential: PasskeyCredential) {
        if let index = credentials.firstIndex(where: { $0.id == credential.id }) {
            credentials[index] = credential
        } else {
            credentials.append(credential)
        }
    }

    public func credential(id: [UInt8]) -> PasskeyCredential? {
        credentials.first { $0.id == id }
    }

    public func credentials(relyingPartyID: String) -> [PasskeyCredential] {
        credentials.filter { $0.relyingPartyID == relyingPartyID }
    }

    public func nextSignCount(for id: [UInt8]) throws -> UInt32 {
        guard let index = credentials.firstIndex(where: { $0.id == id }) else { throw AuthError.passkeyNotStored(id) }
        credentials[index].signCount &+= 1
        return credentials[index].signCount
    }

    public func remove(id: [UInt8]) {
        credentials.removeAll { $0.id == id }
    }

    public func all() -> [PasskeyCredential] { credentials }
}
