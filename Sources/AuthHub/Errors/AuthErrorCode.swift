/// The canonical, provider-independent error code of an ``AuthError``.
///
/// The set is open: a plugin may define codes of its own (`AuthErrorCode("passkeyNotAllowed")`),
/// and unknown raw values survive decoding. Compare against the static members; a code is not a
/// string literal, so a misspelt code does not compile.
///
/// A code matches an error in a `catch` clause or a `switch` over an error (`~=`):
/// `catch AuthErrorCode.invalidCredentials { … }` catches an ``AuthError`` with that code.
public struct AuthErrorCode: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// Whether `error` is an ``AuthError`` with this code (`catch AuthErrorCode.x`, `case AuthErrorCode.x`).
    public static func ~= (pattern: AuthErrorCode, error: any Error) -> Bool {
        (error as? AuthError)?.code == pattern
    }

    /// Whether `error` has this code.
    public static func ~= (pattern: AuthErrorCode, error: AuthError) -> Bool {
        error.code == pattern
    }

    /// Wrong identifier or password (or code) for a sign-in.
    public static let invalidCredentials = AuthErrorCode("invalidCredentials")
    /// No account exists for the identifier.
    public static let userNotFound = AuthErrorCode("userNotFound")
    /// Sign-up with an email that already has an account.
    public static let emailAlreadyInUse = AuthErrorCode("emailAlreadyInUse")
    /// The password does not meet the password policy.
    public static let weakPassword = AuthErrorCode("weakPassword")
    /// The password appears in a breach list.
    public static let passwordLeaked = AuthErrorCode("passwordLeaked")
    /// The email address is malformed.
    public static let invalidEmail = AuthErrorCode("invalidEmail")
    /// The email address must be verified first.
    public static let emailNotVerified = AuthErrorCode("emailNotVerified")
    /// The provider requires a verification step (e.g. a code sent by email) before continuing.
    public static let verificationRequired = AuthErrorCode("verificationRequired")
    /// The provider's bot detection wants a challenge solved (a CAPTCHA) on its own sign-in page
    /// (Auth0 `requires_verification`): sign in through the browser instead. Not about email.
    public static let captchaRequired = AuthErrorCode("captchaRequired")
    /// A second factor is required; ``AuthError/mfa`` carries the MFA token and requirements.
    public static let mfaRequired = AuthErrorCode("mfaRequired")
    /// The user must enroll a second factor first.
    public static let mfaEnrollmentRequired = AuthErrorCode("mfaEnrollmentRequired")
    /// The second-factor code is wrong or expired.
    public static let invalidMFACode = AuthErrorCode("invalidMFACode")
    /// The operation needs a recent sign-in.
    public static let requiresRecentLogin = AuthErrorCode("requiresRecentLogin")
    /// The session ended and cannot be renewed; sign in again.
    public static let sessionExpired = AuthErrorCode("sessionExpired")
    /// No session is stored for the provider and account.
    public static let noSession = AuthErrorCode("noSession")
    /// The provider rejected the refresh token (revoked, rotated away, user deleted).
    public static let refreshTokenInvalid = AuthErrorCode("refreshTokenInvalid")
    /// A token failed validation (signature, claims, format).
    public static let invalidToken = AuthErrorCode("invalidToken")
    /// The `state` of a redirect callback does not match the transaction.
    public static let stateMismatch = AuthErrorCode("stateMismatch")
    /// The user or the provider denied access.
    public static let accessDenied = AuthErrorCode("accessDenied")
    /// The user cancelled the flow.
    public static let userCancelled = AuthErrorCode("userCancelled")
    /// Too many requests or attempts; see ``AuthError/retryAfter``.
    public static let rateLimited = AuthErrorCode("rateLimited")
    /// The provider could not be reached (DNS, connection refused or reset, TLS).
    public static let network = AuthErrorCode("network")
    /// The request timed out.
    public static let timeout = AuthErrorCode("timeout")
    /// The provider answered with a server error or is in maintenance.
    public static let providerUnavailable = AuthErrorCode("providerUnavailable")
    /// The access token lacks a scope the operation needs (`details["requiredScope"]` names it when
    /// the provider said). Getting a token with that scope — often by signing in again — fixes it.
    public static let insufficientScope = AuthErrorCode("insufficientScope")
    /// The request was malformed or the provider's reply could not be understood.
    public static let invalidRequest = AuthErrorCode("invalidRequest")
    /// The configuration (providers.json, plugin settings, keys) is invalid.
    public static let invalidConfiguration = AuthErrorCode("invalidConfiguration")
    /// The provider does not support the operation.
    public static let unsupported = AuthErrorCode("unsupported")
    /// A concurrent writer changed the stored session first (compare-and-swap failed).
    public static let conflict = AuthErrorCode("conflict")
    /// A session store could not read or write (I/O failure, corrupted file, wrong encryption key).
    public static let storageFailure = AuthErrorCode("storageFailure")
    /// Anything else.
    public static let unknown = AuthErrorCode("unknown")

    /// Whether errors with this code are transient by default.
    public var isTransientByDefault: Bool {
        switch self {
        case .network, .timeout, .providerUnavailable, .rateLimited: true
        default: false
        }
    }
}
