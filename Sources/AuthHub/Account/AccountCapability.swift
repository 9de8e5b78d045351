/// Something the signed-in user can do with their own account through a provider's
/// ``AccountProvider`` (the account pages offer only these). Open and string-backed, so a plugin may
/// add its own.
public struct AccountCapability: RawRepresentable, Hashable, Sendable, Codable, Comparable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }
    public static func < (l: AccountCapability, r: AccountCapability) -> Bool { l.rawValue < r.rawValue }

    /// List the user's sign-in methods and factors (``AccountProvider/accountMethods(_:)``).
    public static let listMethods: AccountCapability = "listMethods"
    /// Enroll an authenticator app (TOTP).
    public static let enrollTOTP: AccountCapability = "enrollTOTP"
    /// Register a passkey.
    public static let enrollPasskey: AccountCapability = "enrollPasskey"
    /// Enroll an email address for one-time codes.
    public static let enrollEmailCode: AccountCapability = "enrollEmailCode"
    /// Enroll a phone number for one-time codes.
    public static let enrollPhoneCode: AccountCapability = "enrollPhoneCode"
    /// Generate recovery codes.
    public static let enrollRecoveryCodes: AccountCapability = "enrollRecoveryCodes"
    /// Remove a method (``AccountMethod/isDeletable`` says which).
    public static let deleteMethod: AccountCapability = "deleteMethod"
    /// Change the password.
    public static let changePassword: AccountCapability = "changePassword"
    /// Change the display name.
    public static let changeName: AccountCapability = "changeName"
    /// Change the email address.
    public static let changeEmail: AccountCapability = "changeEmail"
    /// Delete the account.
    public static let deleteAccount: AccountCapability = "deleteAccount"

    /// The capability that enrolls `kind`, if any.
    public static func enroll(_ kind: FactorKind) -> AccountCapability? {
        switch kind {
        case .totp: .enrollTOTP
        case .passkey: .enrollPasskey
        case .emailCode: .enrollEmailCode
        case .smsCode: .enrollPhoneCode
        case .recoveryCode: .enrollRecoveryCodes
        default: nil
        }
    }
}
