import AuthHub
import Foundation

extension FirebaseAPI {
    // MARK: - Second factors (Identity Platform v2)

    /// Starts a TOTP enrollment for the signed-in user: `POST v2/accounts/mfaEnrollment:start`
    /// `{idToken, totpEnrollmentInfo: {}, tenantId?}` (firebase-js-sdk `startEnrollTotpMfa`).
    /// - Returns: the reply's `totpSessionInfo` (secret, code length, algorithm, period, session).
    /// - Throws: ``AuthErrorCode/emailNotVerified`` (`UNVERIFIED_EMAIL`),
    ///   ``AuthErrorCode/conflict`` (`SECOND_FACTOR_LIMIT_EXCEEDED`), ID-token errors, …
    package func startTOTPEnrollment(idToken: Secret<String>) async throws -> FirebaseTOTPSessionInfo {
        try await accountsV2("mfaEnrollment:start", FirebaseTOTPEnrollmentStartRequest(idToken: idToken.revealed(), tenantId: tenant),
                             as: FirebaseTOTPEnrollmentStartReply.self).totpSessionInfo
    }

    /// Finishes a TOTP enrollment with a code from the authenticator: `POST
    /// v2/accounts/mfaEnrollment:finalize {idToken, displayName?, totpVerificationInfo:
    /// {sessionInfo, verificationCode}, tenantId?}` (firebase-js-sdk `finalizeEnrollTotpMfa`).
    /// - Returns: the new `idToken` and `refreshToken`.
    /// - Throws: ``AuthErrorCode/invalidMFACode`` (`INVALID_CODE`), ``AuthErrorCode/sessionExpired``
    ///   (`SESSION_EXPIRED`, `INVALID_SESSION_INFO`), …
    package func finalizeTOTPEnrollment(idToken: Secret<String>, sessionInfo: Secret<String>, code: Secret<String>,
                                       displayName: String? = nil) async throws -> FirebaseMFATokens {
        try await accountsV2("mfaEnrollment:finalize", FirebaseTOTPEnrollmentFinalizeRequest(
            idToken: idToken.revealed(), displayName: displayName,
            totpVerificationInfo: FirebaseTOTPVerificationInfo(sessionInfo: sessionInfo.revealed(), verificationCode: code.revealed()),
            tenantId: tenant), as: FirebaseMFATokens.self)
    }

    /// Removes a second factor: `POST v2/accounts/mfaEnrollment:withdraw {idToken, mfaEnrollmentId,
    /// tenantId?}` (firebase-js-sdk `withdrawMfa`).
    /// - Returns: the reply's new `idToken` and `refreshToken`; nil when the reply carries them not
    ///   (both are optional in `WithdrawMfaResponse`): the factor was removed and the backend ended
    ///   the session, which the caller must then sign out (firebase-ios-sdk does).
    /// - Throws: `MFA_ENROLLMENT_NOT_FOUND` → ``AuthErrorCode/invalidRequest``, …
    package func withdrawMFA(idToken: Secret<String>, enrollmentID: String) async throws -> FirebaseMFATokens? {
        try await accountsV2("mfaEnrollment:withdraw", FirebaseMFAWithdrawRequest(idToken: idToken.revealed(), mfaEnrollmentId: enrollmentID,
                                                                                   tenantId: tenant),
                             as: FirebaseMFAWithdrawReply.self).tokens
    }

    /// Finishes a sign-in that needs a second factor with a TOTP code: `POST
    /// v2/accounts/mfaSignIn:finalize {mfaPendingCredential, mfaEnrollmentId, totpVerificationInfo:
    /// {verificationCode}, tenantId?}` (firebase-js-sdk `finalizeSignInTotpMfa`).
    /// - Returns: the `idToken` (with `firebase.sign_in_second_factor: "totp"`) and `refreshToken`.
    /// - Throws: ``AuthErrorCode/invalidMFACode`` (`INVALID_CODE`), ``AuthErrorCode/sessionExpired``
    ///   (`INVALID_MFA_PENDING_CREDENTIAL`), ``AuthErrorCode/invalidRequest`` (`MFA_ENROLLMENT_NOT_FOUND`), …
    package func finalizeTOTPSignIn(pendingCredential: Secret<String>, enrollmentID: String, code: Secret<String>) async throws -> FirebaseMFATokens {
        try await accountsV2("mfaSignIn:finalize", FirebaseTOTPSignInFinalizeRequest(
            mfaPendingCredential: pendingCredential.revealed(), mfaEnrollmentId: enrollmentID,
            totpVerificationInfo: FirebaseTOTPVerificationInfo(verificationCode: code.revealed()), tenantId: tenant),
                             as: FirebaseMFATokens.self)
    }
}
