import AuthHub
import AuthHubOIDC

/// Reads the claims of an ID token without verifying it — for describing the user (profile,
/// `sub`), never for deciding trust. Web Auth verifies ID tokens before they get here.
enum Auth0IDTokenClaims {
    /// The payload of a compact JWS, or nil when the token is empty or not a JWT.
    static func decode(_ token: Secret<String>) -> [String: JSONValue]? {
        IDTokenValidator.decode(token)?.payload
    }
}
