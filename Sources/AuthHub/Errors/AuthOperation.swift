/// What a request to a provider was for: sign-in, refresh, sign-out, …
///
/// ``APIRequest/operation`` carries it to the provider's ``ErrorMapper``, so a mapper decides in one
/// place what a vendor code means for that operation (an OAuth `invalid_grant` is a wrong password
/// on a sign-in and a dead refresh token on a refresh), and to reply decoding, whose errors name the
/// operation and the field that was missing or of the wrong type.
///
/// The set is open: a plugin may name operations of its own (`AuthOperation("passkey-challenge")`).
public struct AuthOperation: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// Signing in with any credential.
    public static let signIn = AuthOperation("sign-in")
    /// Creating an account.
    public static let signUp = AuthOperation("sign-up")
    /// Renewing a session (the one operation whose rejection clears a stored session).
    public static let refresh = AuthOperation("refresh")
    /// Ending a session at the provider or revoking a token.
    public static let signOut = AuthOperation("sign-out")
    /// Sending or completing a password reset.
    public static let passwordReset = AuthOperation("password-reset")
    /// Sending or applying an email verification.
    public static let emailVerification = AuthOperation("email-verification")
    /// Reading or changing the signed-in user's profile.
    public static let userInfo = AuthOperation("user-info")
    /// A multi-factor step: challenge, verify, enroll or remove a factor.
    public static let mfa = AuthOperation("mfa")
    /// Deleting the account.
    public static let accountDeletion = AuthOperation("account-deletion")
    /// Exchanging one token for another (authorization code, token exchange).
    public static let tokenExchange = AuthOperation("token-exchange")
    /// Reading the provider's metadata (OpenID discovery).
    public static let discovery = AuthOperation("discovery")
    /// Reading the provider's signing keys (JWKS).
    public static let keys = AuthOperation("keys")
    /// An administrative call (management APIs).
    public static let management = AuthOperation("management")
    /// Anything not named above.
    public static let other = AuthOperation("request")
}
