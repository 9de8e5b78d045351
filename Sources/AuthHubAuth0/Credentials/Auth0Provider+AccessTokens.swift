import AuthHub
import AuthHubOIDC
import Foundation

extension Auth0Provider: BearerTokenProvider {
    /// A verifier for the JWT access tokens this tenant issues for the API `audience` (its
    /// identifier in the Auth0 dashboard): issuer `https://<domain>/`, keys from the tenant's JWKS
    /// (the same cache as ID-token validation). For an API server that receives them as bearer tokens.
    public func accessTokenVerifier(audience: String) -> AccessTokenVerifier {
        AccessTokenVerifier(issuer: webAuth.issuer, audience: audience, keys: idTokenValidator.keys, clock: context.clock,
                            leeway: configuration.leeway)
    }

    /// ``accessTokenVerifier(audience:)`` as a ``BearerTokenProvider``.
    public func bearerTokenVerifier(audience: String) async throws -> any BearerTokenVerifier {
        accessTokenVerifier(audience: audience)
    }
}
