import Foundation

/// A token an API received as `Authorization: Bearer`, verified by its issuer's ``BearerTokenVerifier``.
public struct VerifiedBearerToken: Sendable {
    /// The `sub` claim, when there is one.
    public let subject: String?
    /// Every claim of the token.
    public let claims: [String: JSONValue]
    /// The `exp` claim.
    public let expiresAt: Date
    /// The scopes the token grants (none for tokens that carry no scopes, like Firebase ID tokens).
    public let scopes: Set<String>

    public init(subject: String?, claims: [String: JSONValue], expiresAt: Date, scopes: Set<String>) {
        self.subject = subject
        self.claims = claims
        self.expiresAt = expiresAt
        self.scopes = scopes
    }
}

/// Verifies the bearer tokens one issuer signs, for an API (web integrations pick the verifier by
/// the token's `iss`).
public protocol BearerTokenVerifier: Sendable {
    /// The `iss` of the tokens this verifier checks.
    var issuer: String { get }

    /// Verifies `token` (signature, issuer, audience, lifetime) and that it grants `requiredScopes`.
    /// - Throws: ``AuthErrorCode/invalidToken`` for a token that cannot be trusted or is not for
    ///   this API; ``AuthErrorCode/accessDenied`` with `details["reason"] == "insufficientScope"`
    ///   and `details["scope"]` for a valid token that lacks a scope; a transient error
    ///   (``AuthErrorCode/network``, …) when the issuer's keys cannot be fetched.
    func verifyBearer(_ token: Secret<String>, requiredScopes: Set<String>) async throws -> VerifiedBearerToken
}

/// A provider whose tokens an API can verify on its own (OpenID Connect and Auth0 JWT access tokens
/// for an API audience, Firebase ID tokens).
public protocol BearerTokenProvider: AuthProvider {
    /// The verifier of this provider's tokens for the API `audience`.
    func bearerTokenVerifier(audience: String) async throws -> any BearerTokenVerifier
}
