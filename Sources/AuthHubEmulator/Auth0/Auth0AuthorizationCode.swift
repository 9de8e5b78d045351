import Foundation

/// An issued authorization code.
struct Auth0AuthorizationCode: Sendable {
    var grant: Auth0Grant
    var redirectURI: String
    var codeChallenge: String
    var expiresAt: Date
}
