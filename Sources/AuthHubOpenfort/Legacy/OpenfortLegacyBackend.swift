import AuthHub
import Foundation

/// The legacy v1 backend of ``OpenfortProvider``: `/iam/v1/*` through ``OpenfortLegacyAPI``
/// (players, access JWTs and refresh tokens). The v2-only calls (email OTP, link/unlink, OTP
/// reset, verify-email by link token) throw ``AuthErrorCode/unsupported``.
struct OpenfortLegacyBackend: OpenfortBackend {
    let id: String
    let api: OpenfortLegacyAPI
    let clock: any AuthClock

    var capabilities: Set<AuthCapability> { OpenfortPlugin.legacyCapabilities }

    private func unsupported(_ operation: String) -> AuthError { Self.unsupported(operation, provider: id) }

    /// The error of a v2-only call.
    private func v2Only(_ operation: String) -> AuthError {
        AuthError(.unsupported, message: "Provider '\(id)' uses the legacy v1 API, which has no \(operation).", provider: id)
    }

    /// The session of a v1 auth response (access JWT, refresh token, player).
    func session(_ reply: OpenfortLegacyAuthResponse) -> Session {
        OpenfortProvider.legacySession(providerID: id, token: reply.token, refreshToken: reply.refreshToken, playerID: reply.playerID,
                                       player: reply.player, now: clock.now)
    }

    func session(credentials token: Secret<String>, userID: String?, refreshToken: Secret<String>?) -> Session {
        OpenfortProvider.legacySession(providerID: id, token: token, refreshToken: refreshToken, playerID: userID, player: [:], now: clock.now)
    }

    func signIn(_ request: SignInRequest) async throws -> Session {
        switch request {
        case .password(let email, let password, _, _):
            guard let reply = try await api.logIn(email: email, password: password) else {
                throw AuthError(.emailNotVerified, message: "The email address must be verified before signing in.", provider: id,
                                providerCode: "verify_email")
            }
            return session(reply)
        case .guest:
            return session(try await api.guest())
        case .idToken(let socialProvider, let token, _):
            return session(try await api.logInWithIDToken(provider: socialProvider, token: token))
        default:
            throw unsupported("sign-in with \(request.methodName) (legacy v1 API)")
        }
    }

    func signIn(idTokenProvider: String, token: Secret<String>, nonce: String?, accessToken: Secret<String>?) async throws -> Session {
        try await signIn(.idToken(provider: idTokenProvider, token: token, nonce: nonce))
    }

    func startSignIn(_ request: SignInStartRequest) async throws -> SignInChallenge { throw v2Only("email OTP") }

    func signUp(_ request: SignUpRequest, callbackURL: String?, upgrading guest: Session?) async throws -> SignUpResult {
        guard let reply = try await api.signUp(email: request.email, password: request.password,
                                               name: request.displayName ?? request.username) else {
            return .verificationRequired(email: request.email)
        }
        return .signedIn(session(reply))
    }

    /// `POST /iam/v1/sessions` with the refresh token: the new tokens, nothing carried over (the
    /// ``SessionManager`` keeps the stored `issuedAt`).
    func refresh(_ session: Session) async throws -> Session {
        guard let refreshToken = session.refreshToken else {
            throw AuthError(.refreshTokenInvalid, message: "The session has no refresh token; sign in again.", provider: id)
        }
        // 400/401/403/404 are mapped to refreshTokenInvalid by OpenfortErrorMapper (legacy API, refresh).
        var renewed = self.session(try await api.refresh(refreshToken: refreshToken, force: true))
        renewed.issuedAt = nil
        return renewed
    }

    func signOut(_ session: Session) async throws {
        guard let refreshToken = session.refreshToken else { return }
        try await api.logOut(accessToken: session.accessToken, refreshToken: refreshToken)
    }

    func currentUser(_ session: Session) async throws -> OpenfortAuthUser {
        // The v1 player (id, createdAt, linkedAccounts) reads with the same tolerant reader.
        try await api.player(accessToken: session.accessToken)
    }

    func oauthURL(provider socialProvider: String, redirectURL: String, scopes: [String]?, errorRedirectURL: String?,
                  upgrading guest: Session?) async throws -> URL {
        try await api.initOAuth(provider: socialProvider, redirectTo: redirectURL)
    }

    func linkSocial(_ session: Session, provider socialProvider: String, redirectURL: String, scopes: [String]?,
                    idToken: Secret<String>?) async throws -> URL? { throw v2Only("account linking") }

    func unlink(_ session: Session, provider providerID: String, accountID: String?) async throws { throw v2Only("account unlinking") }

    func requestEmailVerification(email: String, redirectURL: String?) async throws {
        try await api.requestEmailVerification(email: email, redirectURL: redirectURL)
    }

    func verifyEmail(token: Secret<String>, callbackURL: String?, session: Session?) async throws -> OpenfortUser? {
        throw v2Only("email verification")
    }

    func verifyEmailOTP(email: String, otp: Secret<String>, session: Session?) async throws -> Session? {
        throw v2Only("email OTP verification")
    }

    func requestEmailOTP(email: String, type: OpenfortAPI.EmailOTPType) async throws { throw v2Only("email OTP") }

    func signInWithEmailOTP(email: String, otp: Secret<String>, upgrading guest: Session?) async throws -> Session {
        throw v2Only("email OTP sign-in")
    }

    func requestPasswordReset(email: String, redirectURL: String?) async throws {
        try await api.requestReset(email: email, redirectURL: redirectURL)
    }

    func resetPassword(token: Secret<String>, newPassword: Secret<String>) async throws { throw v2Only("password reset") }

    func requestPasswordResetOTP(email: String) async throws { throw v2Only("password reset") }

    func resetPassword(email: String, otp: Secret<String>, newPassword: Secret<String>) async throws { throw v2Only("password reset") }
}
