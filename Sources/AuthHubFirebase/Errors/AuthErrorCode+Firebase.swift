import AuthHub

/// Canonical codes for Firebase situations the core's set does not cover.
///
/// They follow the Firebase SDKs' own names (`auth/expired-action-code`, iOS `expiredActionCode`),
/// so an app switching from a Firebase client finds the case it already handles.
extension AuthErrorCode {
    /// An email action code (`oobCode`: password reset, email verification, email change) has
    /// expired (`EXPIRED_OOB_CODE`). Ask for a new email.
    public static let expiredActionCode = AuthErrorCode("expiredActionCode")
    /// An email action code is malformed, was already used or belongs to another action
    /// (`INVALID_OOB_CODE`).
    public static let invalidActionCode = AuthErrorCode("invalidActionCode")
    /// The credential is already linked to another account (`FEDERATED_USER_ID_ALREADY_LINKED`).
    public static let credentialAlreadyInUse = AuthErrorCode("credentialAlreadyInUse")
}
