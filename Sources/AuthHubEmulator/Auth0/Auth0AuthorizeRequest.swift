import Foundation

/// The validated parameters of `GET /authorize`.
struct Auth0AuthorizeRequest: Sendable {
    var clientId: String
    var redirectURI: String
    var state: String?
    var nonce: String?
    var scopes: [String]
    var audience: String?
    var connection: String
    var codeChallenge: String
    /// `max_age` in seconds, when sent.
    var maxAge: Int? = nil
    /// The organization named by `organization`, resolved.
    var organization: Auth0OrganizationClaim? = nil
    /// The `invitation` ticket sent with `organization`.
    var invitation: String? = nil
    /// `screen_hint=signup`: the page to show is the sign-up page.
    var signup = false
    /// For the login step of the device verification flow (`/activate`): the digest of the
    /// `device_code` being activated. Such a login ends on the consent page instead of redirecting
    /// with a code (its `redirectURI` and `codeChallenge` are empty and never used).
    var deviceCode: String? = nil
    /// `dpop_jkt` (RFC 9449, section 10): the thumbprint of the DPoP key the code's exchange must prove.
    var dpopJKT: String? = nil
}
