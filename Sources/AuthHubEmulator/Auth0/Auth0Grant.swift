import enum AuthHub.JSONValue
import Foundation

/// What a token grant is for: the user, client, scopes and the request values carried into the
/// ID token.
struct Auth0Grant: Sendable {
    var userId: String
    var clientId: String
    /// Scopes in request order, de-duplicated.
    var scopes: [String]
    var audience: String?
    var nonce: String?
    var authTime: Date
    /// Whether the grant came from a token exchange with an actor token (delegation): such
    /// grants get no refresh token (AuthHubAuth0 docs, Auth0Endpoints: “Token exchange”).
    var delegated: Bool = false
    /// The `act` claim of a delegated grant, when the actor token names a known user.
    var actor: JSONValue? = nil
    /// The organization of a login made with `organization` (its `org_id`/`org_name` claims);
    /// kept through refreshes, since the family keeps the grant.
    var organization: Auth0OrganizationClaim? = nil
    /// The RFC 7638 thumbprint of the DPoP key the grant's tokens are bound to (RFC 9449), when the
    /// token request carried a DPoP proof: the access token's `cnf.jkt`, and, on a refresh-token
    /// family's grant, the key every refresh must prove.
    var dpopJKT: String? = nil
    /// The ``Auth0LoginSession/sessionId`` of the browser session the grant was made in (a login
    /// through `/authorize`), the ID token's `sid`; nil for grants without a browser session (the
    /// password grants, passwordless, token exchange, device flow), whose ID tokens carry no `sid`.
    /// Kept through refreshes, since the family keeps the grant.
    var sessionId: String? = nil

    var scope: String { scopes.joined(separator: " ") }
    var scopeSet: Set<String> { Set(scopes) }

    /// Splits a scope string into de-duplicated scopes, keeping their order.
    static func scopes(_ text: String?) -> [String] {
        var seen = Set<String>()
        return (text ?? "").split(separator: " ").map(String.init).filter { seen.insert($0).inserted }
    }
}
