import AuthHub

/// `totpVerificationInfo` of the v2 finalize calls: the code, and the enrollment's `sessionInfo`
/// when finishing an enrollment.
struct FirebaseTOTPVerificationInfo: Codable, Sendable {
    var sessionInfo: String?
    var verificationCode: String
}
