import AuthHub

/// The body of `accounts:sendOobCode` (`PASSWORD_RESET` with `email`, `VERIFY_EMAIL` and
/// `VERIFY_AND_CHANGE_EMAIL` with `idToken`, the latter with `newEmail`).
struct FirebaseOobCodeRequest: Codable, Sendable {
    var requestType: String
    var email: String?
    var idToken: String?
    var newEmail: String?
    var continueUrl: String?
    var tenantId: String?
}
