import AuthHub

/// The body of `v2/accounts/mfaEnrollment:withdraw`.
struct FirebaseMFAWithdrawRequest: Codable, Sendable {
    var idToken: String
    var mfaEnrollmentId: String
    var tenantId: String?
}
