import AuthHub

/// The body of `accounts:signInWithPassword`.
struct FirebasePasswordSignInRequest: Codable, Sendable {
    var email: String
    var password: String
    var returnSecureToken = true
    var tenantId: String?
}
