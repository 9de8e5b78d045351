import Foundation

/// One factor AuthHub keeps for a user of a provider without it (TOTP, a passkey, recovery codes):
/// what the account pages list, and the factor's own state (``material``) that only the
/// ``HeldFactorService`` that wrote it reads.
public struct HeldFactor: Sendable, Hashable, Codable, Identifiable {
    /// Unique among the owner's factors; `authhub.` and random characters (never reused).
    public var id: String
    /// ``FactorKind/totp``, ``FactorKind/passkey`` or ``FactorKind/recoveryCode``.
    public var kind: FactorKind
    /// The name the user gave it, if any.
    public var name: String?
    /// When it was added (or, unconfirmed, started).
    public var createdAt: Date
    /// When it last passed a second step.
    public var lastUsedAt: Date?
    /// False while an enrollment waits for its first code; such a factor never passes a second step.
    public var isConfirmed: Bool
    /// The factor's state as the service writes it (a TOTP secret and its last used time step,
    /// recovery-code hashes, a passkey's public key and counter): secret, sealed where the store seals.
    public var material: Secret<String>

    public init(id: String, kind: FactorKind, name: String? = nil, createdAt: Date, lastUsedAt: Date? = nil,
                isConfirmed: Bool, material: Secret<String>) {
        self.id = id
        self.kind = kind
        self.name = name
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.isConfirmed = isConfirmed
        self.material = material
    }

    /// The prefix of every held factor's id (and so of its ``AccountMethod/id``).
    public static let idPrefix = "authhub."
}
