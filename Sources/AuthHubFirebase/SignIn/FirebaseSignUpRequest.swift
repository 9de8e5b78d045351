import AuthHub

/// The body of `accounts:signUp`: email, password, `returnSecureToken: true`, the display name and
/// tenant when set.
struct FirebaseSignUpRequest: Codable, Sendable {
    var email: String
    var password: String
    var returnSecureToken = true
    var displayName: String?
    var tenantId: String?
}
