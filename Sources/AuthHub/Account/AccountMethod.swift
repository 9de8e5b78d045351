import Foundation

/// One way the signed-in user signs in or proves it is them: a password, an authenticator app, a
/// passkey, an email address or phone number for codes, recovery codes, a linked account (Google,
/// a wallet) — as the provider lists it (``AccountProvider/accountMethods(_:)``), or as AuthHub keeps
/// it for a provider without factors of its own.
///
/// Nothing here is a secret: a phone number or email address appears as the provider shows it
/// (often masked); a TOTP secret or recovery code never does.
public struct AccountMethod: Sendable, Hashable, Codable, Identifiable {
    /// Who keeps the method.
    public enum Source: String, Sendable, Hashable, Codable {
        /// The identity provider (Auth0's My Account API, Firebase's second factors, …).
        case provider
        /// AuthHub, in its own store, for a provider without the factor (a second step after the
        /// provider's sign-in).
        case authHub
    }

    /// What the method is used for.
    public enum Usage: String, Sendable, Hashable, Codable {
        /// Signing in on its own (a password, a passkey, a linked account).
        case primary
        /// A second step after signing in (a TOTP code, an SMS code, a recovery code).
        case secondary
    }

    /// The provider's id of the method (unique among the user's methods; opaque).
    public var id: String
    /// What kind of method it is: ``FactorKind/password``, ``FactorKind/totp``,
    /// ``FactorKind/passkey``, ``FactorKind/emailCode``, ``FactorKind/smsCode``,
    /// ``FactorKind/push``, ``FactorKind/recoveryCode``, ``FactorKind/linkedAccount``, or a
    /// provider's own.
    public var kind: FactorKind
    /// The name the user gave it, or the provider's (an authenticator's name, a passkey's device).
    public var name: String?
    /// What it points at, as shown to the user: the email address or (masked) phone number, the
    /// linked account's provider (`google`, `wallet`), a passkey's authenticator.
    public var detail: String?
    /// When it was added, if the provider says.
    public var createdAt: Date?
    /// When it was last used, if the provider says.
    public var lastUsedAt: Date?
    /// False for an enrollment that was started and never confirmed.
    public var isConfirmed: Bool
    /// Primary, secondary or both (empty when the provider does not say).
    public var usage: Set<Usage>
    /// Whether the user may remove it here (a password or the last way to sign in may not be).
    public var isDeletable: Bool
    /// Who keeps it.
    public var source: Source

    public init(id: String, kind: FactorKind, name: String? = nil, detail: String? = nil, createdAt: Date? = nil,
                lastUsedAt: Date? = nil, isConfirmed: Bool = true, usage: Set<Usage> = [], isDeletable: Bool = true,
                source: Source = .provider) {
        self.id = id
        self.kind = kind
        self.name = name
        self.detail = detail
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.isConfirmed = isConfirmed
        self.usage = usage
        self.isDeletable = isDeletable
        self.source = source
    }

    /// A short label for a list: the name, else the detail, else the kind.
    public var label: String { name ?? detail ?? kind.rawValue }
}
