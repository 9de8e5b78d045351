import AuthHub
import Foundation

/// The v2 (better-auth) backend of ``OpenfortProvider``: `/iam/v2/auth/*` and `/iam/v2/me` through ``OpenfortAPI``.
struct OpenfortV2Backend: OpenfortBackend {
    let id: String
    let api: OpenfortAPI
    let clock: any AuthClock

    var capabilities: Set<AuthCapability> { OpenfortPlugin.providerCapabilities }

    private func unsupported(_ operation: String) -> AuthError { Self.unsupported(operation, provider: id) }

    /// A session for a session token and its user.
    func session(token: Secret<String>, userID: String?, user: OpenfortUser? = nil, expiresAt: Date? = nil) -> Session {
        OpenfortProvider.session(providerID: id, token: token, userID: userID, user: user, expiresAt: expiresAt, now: clock.now)
    }

    /// The session of a sign-in reply.
    /// - Throws: ``AuthErrorCode/invalidRequest`` when the reply has no token.
    func session(_ reply: OpenfortAuthResponse, what: String) throws -> Session {
        guard let token = reply.token else {
            throw AuthError(.invalidRequest, message: "The \(what) reply from '\(id)' has no session token.", provider: id)
        }
        return session(token: token, userID: reply.user?.id, user: reply.user)
    }

    func session(credentials token: Secret<String>, userID: String?, refreshToken: Secret<String>?) -> Session {
        session(token: token, userID: userID)
    }

    func signIn(_ request: SignInRequest) async throws -> Session {
        switch request {
        case .password(let email, let password, _, _):
            return try session(await api.signIn(email: email, password: password), what: "sign-in")
        case .guest:
            return try session(await api.signInAnonymously(), what: "guest sign-in")
        case .emailCode(let email, let code, _):
            return try session(await api.signInWithEmailOTP(email: email, otp: code), what: "email OTP sign-in")
        case .idToken(let socialProvider, let token, let nonce):
            return try await signIn(idTokenProvider: socialProvider, token: token, nonce: nonce, accessToken: nil)
        default:
            throw unsupported("sign-in with \(request.methodName)")
        }
    }

    func signIn(idTokenProvider: String, token: Secret<String>, nonce: String?, accessToken: Secret<String>?) async throws -> Session {
        try session(await api.signInWithIDToken(provider: idTokenProvider, token: token, nonce: nonce, accessToken: accessToken),
                    what: "ID-token sign-in")
    }

    func startSignIn(_ request: SignInStartRequest) async throws -> SignInChallenge {
        guard case .emailCode(let email) = request else { throw unsupported("SMS sign-in") }
        try await api.sendEmailOTP(email: email, type: .signIn)
        return SignInChallenge(destination: email)
    }

    func signUp(_ request: SignUpRequest, callbackURL: String?, upgrading guest: Session?) async throws -> SignUpResult {
        let reply = try await api.signUp(email: request.email, password: request.password, name: request.displayName ?? request.username,
                                         callbackURL: callbackURL, image: request.metadata["image"]?.stringValue,
                                         bearer: guest?.accessToken)
        guard reply.token != nil else { return .verificationRequired(email: request.email) }
        return .signedIn(try session(reply, what: "sign-up"))
    }

    /// `GET /get-session` and what the server said: its token, user and expiry. What the reply
    /// leaves out — the user (claims, extras, user id), `issuedAt` — is left empty for the
    /// ``SessionManager`` to keep from the stored session. The one exception is the access token
    /// itself: a reply without a session token means the sent one is still the session's, so it
    /// stays the access token (the manager keeps refresh tokens, not access tokens).
    func refresh(_ session: Session) async throws -> Session {
        // A 401 is mapped to refreshTokenInvalid by OpenfortErrorMapper (operation: refresh).
        let info = try await api.getSession(bearer: session.accessToken)
        guard let info else {
            throw AuthError(.refreshTokenInvalid, message: "The session is no longer valid; sign in again.", provider: id,
                            providerCode: "SESSION_NOT_FOUND", statusCode: 200)
        }
        var renewed = self.session(token: info.token ?? session.accessToken, userID: info.userID, user: info.user,
                                   expiresAt: info.expiresAt)
        renewed.refreshToken = info.token
        renewed.issuedAt = nil
        return renewed
    }

    func signOut(_ session: Session) async throws {
        try await api.signOut(bearer: session.accessToken)
    }

    func currentUser(_ session: Session) async throws -> OpenfortAuthUser {
        try await api.me(bearer: session.accessToken)
    }

    func oauthURL(provider socialProvider: String, redirectURL: String, scopes: [String]?, errorRedirectURL: String?,
                  upgrading guest: Session?) async throws -> URL {
        try await api.startOAuth(provider: socialProvider, callbackURL: redirectURL, scopes: scopes,
                                 errorCallbackURL: errorRedirectURL, bearer: guest?.accessToken)
    }

    func linkSocial(_ session: Session, provider socialProvider: String, redirectURL: String, scopes: [String]?,
                    idToken: Secret<String>?) async throws -> URL? {
        if OpenfortProvider.isAnonymous(session), idToken == nil {
            return try await api.startOAuth(provider: socialProvider, callbackURL: redirectURL, scopes: scopes, bearer: session.accessToken)
        }
        return try await api.linkSocial(provider: socialProvider, callbackURL: redirectURL, scopes: scopes, idToken: idToken,
                                        bearer: session.accessToken).url
    }

    func unlink(_ session: Session, provider providerID: String, accountID: String?) async throws {
        try await api.unlinkAccount(providerID: providerID, accountID: accountID, bearer: session.accessToken)
    }

    func requestEmailVerification(email: String, redirectURL: String?) async throws {
        try await api.sendVerificationEmail(email: email, callbackURL: redirectURL)
    }

    func verifyEmail(token: Secret<String>, callbackURL: String?, session: Session?) async throws -> OpenfortUser? {
        try await api.verifyEmail(token: token, callbackURL: callbackURL, bearer: session?.accessToken)
    }

    func verifyEmailOTP(email: String, otp: Secret<String>, session: Session?) async throws -> Session? {
        let reply = try await api.verifyEmailOTP(email: email, otp: otp, bearer: session?.accessToken)
        return reply.token == nil ? nil : try self.session(reply, what: "email OTP verification")
    }

    func requestEmailOTP(email: String, type: OpenfortAPI.EmailOTPType) async throws {
        try await api.sendEmailOTP(email: email, type: type)
    }

    func signInWithEmailOTP(email: String, otp: Secret<String>, upgrading guest: Session?) async throws -> Session {
        try session(await api.signInWithEmailOTP(email: email, otp: otp, bearer: guest?.accessToken), what: "email OTP sign-in")
    }

    func requestPasswordReset(email: String, redirectURL: String?) async throws {
        try await api.requestPasswordReset(email: email, redirectTo: redirectURL)
    }

    func resetPassword(token: Secret<String>, newPassword: Secret<String>) async throws {
        try await api.resetPassword(token: token, newPassword: newPassword)
    }

    func requestPasswordResetOTP(email: String) async throws {
        try await api.requestPasswordResetOTP(email: email)
    }

    func resetPassword(email: String, otp: Secret<String>, newPassword: Secret<String>) async throws {
        try await api.resetPassword(email: email, otp: otp, newPassword: newPassword)
    }
}
