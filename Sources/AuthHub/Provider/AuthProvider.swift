import Foundation

/// An identity provider as AuthHub sees it. Implemented by each plugin.
///
/// Operations take value-type requests and return sessions; every failure is an ``AuthError``
/// produced by the provider's ``ErrorMapper``. An operation the provider lacks throws
/// ``AuthErrorCode/unsupported`` naming the provider and the operation — the default
/// implementations below do exactly that, so a plugin implements only what it supports.
///
/// Provider-specific APIs are reached by casting: `try hub.provider("auth0", as: Auth0Provider.self)`.
public protocol AuthProvider: Sendable {
    /// The id from providers.json.
    var id: String { get }
    /// The plugin type (`auth0`, `firebase`, …).
    var type: String { get }
    /// What this provider can do.
    var capabilities: Set<AuthCapability> { get }

    /// Signs in and returns a session (not yet stored: the hub stores it).
    func signIn(_ request: SignInRequest) async throws -> Session
    /// Starts a multi-step sign-in (sends a code).
    func startSignIn(_ request: SignInStartRequest) async throws -> SignInChallenge
    /// Creates an account.
    func signUp(_ request: SignUpRequest) async throws -> SignUpResult
    /// Renews `session` with its refresh token. The result may lack a refresh token (the manager then
    /// keeps the old one). A rejected refresh token must throw ``AuthErrorCode/refreshTokenInvalid``.
    func refresh(_ session: Session, scope: String?) async throws -> Session
    /// Ends the session at the provider (revokes tokens) where the provider supports it.
    func signOut(_ session: Session) async throws
    /// Sends a password-reset email.
    func sendPasswordReset(email: String) async throws
    /// Fetches the current user.
    func userInfo(_ session: Session) async throws -> UserInfo
    /// Deletes the signed-in user's account.
    func deleteAccount(_ session: Session) async throws
}

extension AuthProvider {
    /// The ``AuthErrorCode/unsupported`` error for an operation of this provider.
    public func unsupported(_ operation: String) -> AuthError {
        AuthError(.unsupported, message: "Provider '\(id)' (\(type)) does not support \(operation).", provider: id)
    }

    public func signIn(_ request: SignInRequest) async throws -> Session {
        throw unsupported("sign-in with \(request.methodName)")
    }
    public func startSignIn(_ request: SignInStartRequest) async throws -> SignInChallenge {
        throw unsupported("passwordless sign-in")
    }
    public func signUp(_ request: SignUpRequest) async throws -> SignUpResult { throw unsupported("sign-up") }
    public func refresh(_ session: Session, scope: String?) async throws -> Session { throw unsupported("refresh") }
    /// By default signing out is local only: nothing to revoke.
    public func signOut(_ session: Session) async throws {}
    public func sendPasswordReset(email: String) async throws { throw unsupported("password reset") }
    public func userInfo(_ session: Session) async throws -> UserInfo { throw unsupported("user info") }
    public func deleteAccount(_ session: Session) async throws { throw unsupported("account deletion") }
}
