/// Something a provider can do. Open and string-backed, so plugins may add their own.
public struct AuthCapability: RawRepresentable, Hashable, Sendable, Codable, Comparable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }
    public static func < (l: AuthCapability, r: AuthCapability) -> Bool { l.rawValue < r.rawValue }

    public static let passwordSignIn: AuthCapability = "passwordSignIn"
    public static let signUp: AuthCapability = "signUp"
    public static let passwordReset: AuthCapability = "passwordReset"
    public static let emailCode: AuthCapability = "emailCode"
    public static let smsCode: AuthCapability = "smsCode"
    public static let webAuth: AuthCapability = "webAuth"
    public static let idToken: AuthCapability = "idToken"
    public static let guest: AuthCapability = "guest"
    public static let passkey: AuthCapability = "passkey"
    /// Accounts are created with a passkey (``PasskeySignUpProvider``), not a password.
    public static let passkeySignUp: AuthCapability = "passkeySignUp"
    public static let refresh: AuthCapability = "refresh"
    public static let revoke: AuthCapability = "revoke"
    public static let mfa: AuthCapability = "mfa"
    public static let factorEnrollment: AuthCapability = "factorEnrollment"
    public static let accountDeletion: AuthCapability = "accountDeletion"
    public static let userInfo: AuthCapability = "userInfo"
    public static let emailVerification: AuthCapability = "emailVerification"
}
