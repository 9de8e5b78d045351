import AuthHub

/// The reply of `v2/accounts/mfaEnrollment:start`: `{totpSessionInfo}`.
struct FirebaseTOTPEnrollmentStartReply: Codable, Sendable {
    var totpSessionInfo: FirebaseTOTPSessionInfo
}
