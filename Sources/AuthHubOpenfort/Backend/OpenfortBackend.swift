import AuthHub
import Foundation

/// What one generation of Openfort's auth API does for ``OpenfortProvider``: v2 (better-auth,
/// ``OpenfortV2Backend``) or the legacy v1 IAM API (``OpenfortLegacyBackend``). The provider chooses
/// one from ``OpenfortConfiguration/apiVersion`` when it is created and forwards every call to it,
/// so no operation asks which version it runs on.
protocol OpenfortBackend: Sendable {
    /// The provider's capabilities under this API.
    var capabilities: Set<AuthCapability> { get }
    /// The credentials of an OAuth redirect as a session (no HTTP).
    func session(credentials token: Secret<String>, userID: String?, refreshToken: Secret<String>?) -> Session
    func signIn(_ request: SignInRequest) async throws -> Session
    func signIn(idTokenProvider: String, token: Secret<String>, nonce: String?, accessToken: Secret<String>?) async throws -> Session
    func startSignIn(_ request: SignInStartRequest) async throws -> SignInChallenge
    func signUp(_ request: SignUpRequest, callbackURL: String?, upgrading guest: Session?) async throws -> SignUpResult
    /// Renews (v1) or validates (v2) the session and returns what the server said.
    func refresh(_ session: Session) async throws -> Session
    func signOut(_ session: Session) async throws
    func currentUser(_ session: Session) async throws -> OpenfortAuthUser
    func oauthURL(provider socialProvider: String, redirectURL: String, scopes: [String]?, errorRedirectURL: String?,
                  upgrading guest: Session?) async throws -> URL
    func linkSocial(_ session: Session, provider socialProvider: String, redirectURL: String, scopes: [String]?,
                    idToken: Secret<String>?) async throws -> URL?
    func unlink(_ session: Session, provider providerID: String, accountID: String?) async throws
    func requestEmailVerification(email: String, redirectURL: String?) async throws
    func verifyEmail(token: Secret<String>, callbackURL: String?, session: Session?) async throws -> OpenfortUser?
    func verifyEmailOTP(email: String, otp: Secret<String>, session: Session?) async throws -> Session?
    func requestEmailOTP(email: String, type: OpenfortAPI.EmailOTPType) async throws
    func signInWithEmailOTP(email: String, otp: Secret<String>, upgrading guest: Session?) async throws -> Session
    func requestPasswordReset(email: String, redirectURL: String?) async throws
    func resetPassword(token: Secret<String>, newPassword: Secret<String>) async throws
    func requestPasswordResetOTP(email: String) async throws
    func resetPassword(email: String, otp: Secret<String>, newPassword: Secret<String>) async throws
}

extension OpenfortBackend {
    /// The core's `unsupported` error for provider `id` (the same words as ``AuthProvider/unsupported(_:)``).
    static func unsupported(_ operation: String, provider id: String) -> AuthError {
        AuthError(.unsupported, message: "Provider '\(id)' (\(OpenfortPlugin.typeName)) does not support \(operation).", provider: id)
    }
}
