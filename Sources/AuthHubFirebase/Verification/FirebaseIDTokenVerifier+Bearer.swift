import AuthHub
import Foundation

extension FirebaseIDTokenVerifier: BearerTokenVerifier {
    /// Verifies a Firebase ID token sent as a bearer token (Firebase's pattern for a backend: the app
    /// sends the user's ID token). Firebase ID tokens carry no scopes, so any `requiredScopes` refuse
    /// them with ``AuthErrorCode/accessDenied``. Against the Firebase emulator (emulator mode), its
    /// unsigned tokens are accepted, as the emulator's own SDKs do: never configure emulator mode in
    /// production.
    public func verifyBearer(_ token: Secret<String>, requiredScopes: Set<String>) async throws -> VerifiedBearerToken {
        let verified = try await verify(token)
        guard requiredScopes.isEmpty else {
            throw AuthError(.accessDenied, message: "A Firebase ID token grants no scopes.",
                            details: ["reason": "insufficientScope", "scope": requiredScopes.sorted().joined(separator: " ")])
        }
        return VerifiedBearerToken(subject: verified.uid, claims: verified.claims, expiresAt: verified.expiresAt, scopes: [])
    }
}

extension FirebaseProvider: BearerTokenProvider {
    /// The project's ID tokens (Firebase has no API audiences: `audience` is not used; the token's
    /// `aud` must be the project id, which ``FirebaseIDTokenVerifier`` checks).
    public func bearerTokenVerifier(audience: String) async throws -> any BearerTokenVerifier { verifier }
}
