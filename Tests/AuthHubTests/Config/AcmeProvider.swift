import AuthHub

/// The provider a third-party plugin builds; it supports nothing beyond the protocol defaults.
struct AcmeProvider: AuthProvider {
    let id: String
    var type: String { "acme" }
    var capabilities: Set<AuthCapability> { [.passwordSignIn] }
    let tenant: String
    let region: String
}
