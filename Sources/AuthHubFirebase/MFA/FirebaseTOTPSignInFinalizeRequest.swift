import AuthHub

/// The body of `v2/accounts/mfaSignIn:finalize` for a TOTP factor.
struct FirebaseTOTPSignInFinalizeRequest: Codable, Sendable {
    var mfaPendingCredential: String
    var mfaEnrollmentId: String
    var totpVerificationInfo: FirebaseTOTPVerificationInfo
    var tenantId: String?
}
