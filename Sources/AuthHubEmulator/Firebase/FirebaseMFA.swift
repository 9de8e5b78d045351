import struct AuthHub.Secret
import AuthHubFactors
import Foundation

/// The emulator's facts about Identity Platform second factors (TOTP only), read from
/// firebase-js-sdk (`packages/auth/src/api/account_management/mfa.ts`,
/// `packages/auth/src/api/authentication/mfa.ts`, `packages/auth/src/mfa/assertions/totp.ts`),
/// firebase-ios-sdk (`FirebaseAuth/Sources/Swift/Backend/RPC/Proto/TOTP/*`) and the Android SDK's
/// `totpSessionInfo` reader:
///
/// - Routes are Identity Toolkit **v2**: `POST /v2/accounts/mfaEnrollment:start`,
///   `mfaEnrollment:finalize`, `mfaEnrollment:withdraw`, `mfaSignIn:finalize` (emulator form
///   `http://HOST:PORT/identitytoolkit.googleapis.com/v2/accounts/...?key=…`).
/// - `mfaEnrollment:start {idToken, totpEnrollmentInfo: {}, tenantId?}` →
///   `{totpSessionInfo: {sharedSecretKey, verificationCodeLength, hashingAlgorithm, periodSec,
///   sessionInfo, finalizeEnrollmentTime}}`; the secret is base32, `hashingAlgorithm` a name such
///   as `SHA1`, `finalizeEnrollmentTime` a timestamp string (RFC 3339).
/// - `mfaEnrollment:finalize {idToken, displayName?, totpVerificationInfo: {sessionInfo,
///   verificationCode}, tenantId?}` → `{idToken, refreshToken}`.
/// - `mfaSignIn:finalize {mfaPendingCredential, mfaEnrollmentId, totpVerificationInfo:
///   {verificationCode}, tenantId?}` → `{idToken, refreshToken}`.
/// - `mfaEnrollment:withdraw {idToken, mfaEnrollmentId, tenantId?}` → `{idToken, refreshToken}`.
/// - `mfaInfo[]` entries: `{mfaEnrollmentId, displayName?, enrolledAt, totpInfo: {}}` (a phone
///   factor has `phoneInfo` instead).
/// - Server codes (JS `ServerError`, iOS/Android status numbers): `MISSING_MFA_PENDING_CREDENTIAL`
///   17081, `MISSING_MFA_ENROLLMENT_ID` 17082, `INVALID_MFA_PENDING_CREDENTIAL` 17083,
///   `MFA_ENROLLMENT_NOT_FOUND` 17084, `SECOND_FACTOR_EXISTS` 17087,
///   `SECOND_FACTOR_LIMIT_EXCEEDED` 17088, `MISSING_CODE` 17043, `INVALID_CODE` 17044 (a wrong
///   verification code: JS `auth/invalid-verification-code`), `MISSING_SESSION_INFO` 17045,
///   `INVALID_SESSION_INFO` 17046, `SESSION_EXPIRED` 17051, `UNVERIFIED_EMAIL` 17086.
/// - ID tokens of a second-factor sign-in carry `firebase.sign_in_second_factor` (`totp`) and
///   `firebase.second_factor_identifier` (the enrollment id).
enum FirebaseMFA {
    /// `verificationCodeLength`: 6 digits.
    static let codeLength = 6
    /// `periodSec`: 30 s.
    static let period = 30
    /// `hashingAlgorithm`: `SHA1`.
    static let hashingAlgorithm = "SHA1"
    /// The shared secret's length: 20 random bytes (160 bits, RFC 4226's recommendation), 32 base32 characters.
    static let secretBytes = 20
    /// Emulator convention (Firebase does not publish its figure): an enrollment must be
    /// finalized within 10 minutes of `mfaEnrollment:start` (`finalizeEnrollmentTime`), else
    /// `SESSION_EXPIRED`.
    static let enrollmentLifetime: TimeInterval = 600
    /// Emulator convention: an `mfaPendingCredential` is usable for 10 minutes after the password
    /// step, then `INVALID_MFA_PENDING_CREDENTIAL`.
    static let pendingCredentialLifetime: TimeInterval = 600
    /// Emulator convention: at most 5 second factors per user (`SECOND_FACTOR_LIMIT_EXCEEDED`).
    static let maximumFactors = 5
    /// The longest `displayName` of a factor and the longest code read (longer inputs are refused
    /// before any work): 256 characters, 16 characters.
    static let maximumDisplayNameLength = 256, maximumCodeLength = 16

    /// The generator of a factor: SHA-1, 6 digits, 30 s, one step of skew either side.
    static func totp(secret: [UInt8]) throws -> TOTP {
        try TOTP(secret: Secret(secret), algorithm: .sha1, digits: codeLength, period: period, skew: 1)
    }
}

/// An enrolled TOTP factor of a user: the generator and the last accepted time step (a code of
/// that step or earlier is refused, so a code cannot be replayed).
struct FirebaseTOTPFactor: Sendable {
    var totp: TOTP
    var lastUsedStep: UInt64?
}

/// A TOTP enrollment between `mfaEnrollment:start` and `:finalize`, keyed by its `sessionInfo`.
struct FirebaseTOTPEnrollment: Sendable {
    /// The account that started it (another account's ID token is `INVALID_SESSION_INFO`).
    var localId: String
    var totp: TOTP
    /// `finalizeEnrollmentTime`.
    var expiresAt: Date
}

/// An `mfaPendingCredential` the emulator issued on a password sign-in, keyed by the credential.
struct FirebasePendingMFA: Sendable {
    var localId: String
    /// When it was issued (epoch seconds): a credential older than the account's `validSince`
    /// (password or email changed since) is invalid.
    var issuedAt: Int
    var expiresAt: Date
}
