import AuthHub

/// The body of `accounts:resetPassword`: the code alone checks it, with `newPassword` it is used.
struct FirebaseResetPasswordRequest: Codable, Sendable {
    var oobCode: String
    var newPassword: String?
    var tenantId: String?
}
