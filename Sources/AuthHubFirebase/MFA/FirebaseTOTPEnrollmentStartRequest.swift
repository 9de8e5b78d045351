import AuthHub

/// The body of `v2/accounts/mfaEnrollment:start` for a TOTP factor: `{idToken, totpEnrollmentInfo: {}, tenantId?}`.
struct FirebaseTOTPEnrollmentStartRequest: Codable, Sendable {
    var idToken: String
    var totpEnrollmentInfo: [String: String] = [:]
    var tenantId: String?
}
