import AuthHub

/// The body of `accounts:update`: an `oobCode` (applying an action code) or an `idToken` with the
/// changes (`password`, `email`, `displayName`, `photoUrl`, `deleteAttribute`).
struct FirebaseAccountUpdateRequest: Codable, Sendable {
    var oobCode: String?
    var idToken: String?
    var password: String?
    var email: String?
    var displayName: String?
    var photoUrl: String?
    var deleteAttribute: [String]?
    var returnSecureToken: Bool?
    var tenantId: String?
}
