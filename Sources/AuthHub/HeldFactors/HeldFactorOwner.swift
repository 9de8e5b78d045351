import Foundation

/// Whose AuthHub-held factors a record holds: a provider (its id in providers.json) and the
/// provider's id of the user (``Session/userID``, e.g. the ID token's `sub`).
public struct HeldFactorOwner: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The provider's id in providers.json.
    public var provider: String
    /// The provider's id of the user.
    public var user: String

    public init(provider: String, user: String) {
        self.provider = provider
        self.user = user
    }

    /// The owner of a session's user, nil when the provider named no user.
    public init?(_ session: Session) {
        guard let user = session.userID, !user.isEmpty else { return nil }
        self.init(provider: session.providerID, user: user)
    }

    /// `provider/<the user's reference>`: the user id itself is not shown (logs, errors).
    public var description: String { "\(provider)/\(reference.prefix(12))" }

    /// A stable name for stores (a file name, a row key) that reveals neither id: the SHA-256, in
    /// lowercase hex, of the provider id, a NUL byte and the user id — the index by user's reference.
    public var reference: String { SessionUserReference.hex(provider: provider, userID: user) }
}
