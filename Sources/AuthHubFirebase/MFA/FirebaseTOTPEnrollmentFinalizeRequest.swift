import AuthHub

/// The body of `v2/accounts/mfaEnrollment:finalize`.
struct FirebaseTOTPEnrollmentFinalizeRequest: Codable, Sendable {
    var idToken: String
    var displayName: String?
    var totpVerificationInfo: FirebaseTOTPVerificationInfo
    var tenantId: String?
}
