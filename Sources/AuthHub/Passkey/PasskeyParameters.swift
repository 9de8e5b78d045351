/// The relying party of a passkey ceremony: the site or app whose accounts the credential is for.
public struct PasskeyRelyingParty: Sendable, Hashable, Codable {
    /// The RP ID: a registrable domain (`example.com`); credentials are scoped to it.
    public var id: String
    /// A name to show the user.
    public var name: String

    /// Creates a relying party.
    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}

/// The account a passkey is created for.
public struct PasskeyUser: Sendable, Hashable, Codable {
    /// The user handle: opaque bytes (at most 64), returned with every assertion of a discoverable
    /// credential so the relying party can find the account without a user name.
    public var id: [UInt8]
    /// The account name (an email address or user name).
    public var name: String
    /// A name to show the user.
    public var displayName: String

    /// Creates a user.
    public init(id: [UInt8], name: String, displayName: String) {
        self.id = id
        self.name = name
        self.displayName = displayName
    }
}

/// How much a ceremony wants user verification (a PIN or biometric on the authenticator).
public enum PasskeyUserVerification: String, Sendable, Hashable, Codable, CaseIterable {
    /// The ceremony fails unless the authenticator verifies the user.
    case required
    /// Verify when the authenticator can.
    case preferred
    /// Do not verify, to spare the user a prompt.
    case discouraged
}

/// Whether a credential must be discoverable (a "resident key" the authenticator can list by RP ID).
public enum PasskeyResidentKey: String, Sendable, Hashable, Codable, CaseIterable {
    /// The credential must be discoverable.
    case required
    /// Discoverable when the authenticator can.
    case preferred
    /// Server-side credential (found only through `allowCredentials`).
    case discouraged
}
