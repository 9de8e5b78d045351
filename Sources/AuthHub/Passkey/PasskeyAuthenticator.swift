/// Creates passkeys and signs challenges with them: the `navigator.credentials.create` / `get` of a
/// platform without one.
///
/// On Apple platforms an implementation can wrap `ASAuthorizationController`; on Linux,
/// `SoftwarePasskeyAuthenticator` (in AuthHubFactors) keeps P-256 keys in a credential store.
/// Provider flows (Auth0 passkey sign-up and login, My Account enrollment, Turnkey stamping) take
/// any `PasskeyAuthenticator`, so tests and servers can inject their own.
public protocol PasskeyAuthenticator: Sendable {
    /// Creates a credential for the relying party and user in `options` (registration).
    /// - Throws: ``AuthErrorCode/userCancelled`` when the user declines,
    ///   ``AuthErrorCode/unsupported`` when no offered algorithm is supported, and an
    ///   ``AuthError`` for an excluded credential or unmet user-verification requirement.
    func makeCredential(_ options: PasskeyRegistrationOptions) async throws -> PasskeyRegistration

    /// Signs the challenge in `options` with a credential scoped to its RP ID (authentication).
    /// - Throws: an ``AuthError`` when no credential matches or the user declines.
    func getAssertion(_ options: PasskeyAssertionOptions) async throws -> PasskeyAssertion
}
