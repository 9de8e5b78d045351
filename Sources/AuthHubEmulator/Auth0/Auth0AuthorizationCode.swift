import Foundation

/// An issued authorization code.
struct Auth0AuthorizationCode: Sendable {
    var grant: Auth0Grant
    var redirectURI: String
    var codeChallenge: String
    var expiresAt: Date
    /// The `dpop_jkt` of the authorization request (RFC 9449, section 10): the exchange must carry a
    /// DPoP proof of the key with this thumbprint.
    var dpopJKT: String? = nil
}
