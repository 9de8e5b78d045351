import AuthHub
import Foundation

/// An Openfort auth client on AuthHub's session layer — the calls an app makes on
/// `openfort.auth` (sign up, sign in, guest, email OTP, OAuth, ID tokens, links, verification,
/// password reset, current user, sign out), for one account of one ``OpenfortProvider``.
///
/// The session lives in a core ``SessionManager`` (storage, single-flight validation, events);
/// this type adds the SDK's policy (<doc:OpenfortEndpoints>: “Sessions”):
/// - **Guards, no HTTP.** Signing in while signed in throws ``AuthErrorCode/conflict``
///   (`providerCode` `ALREADY_LOGGED_IN`), openfort-js's rule — kept as the ``signInPolicy``
///   ``SignInPolicy/refusing(providerCode:)`` of the hub's one sign-in component
///   (``SessionManager/signIn(method:policy:upgradesGuest:isolation:_:)``), which also stores,
///   publishes and counts every sign-in as ``AuthHub`` does. Pass `signInPolicy: .replace` to follow
///   the hub's rule instead (replace, revoke the old session in the background). A call that needs a
///   session while signed out throws ``AuthErrorCode/noSession`` (`NOT_LOGGED_IN`). A *guest* session
///   does not block sign-up, email-OTP sign-in, OAuth or stored credentials: those upgrade the guest
///   (its token is sent as Bearer, <doc:OpenfortEndpoints>: “Endpoints”); password, ID-token and guest
///   sign-in still refuse it (sign out first).
/// - **Validation is get-session.** ``validateSession()`` renews through the manager: a `null`
///   answer or a 401 clears the session (event `sessionExpired`); network errors, 429 and 5xx keep it.
/// - **401 ends the session.** As in openfort-js, a 401 on any call made with the session token
///   (current user, link, unlink, change email) clears the stored session before the error is rethrown.
/// - **Sign-out** calls `POST /sign-out` and clears the local session whatever the server answered.
public actor OpenfortAuth {
    /// The session's key.
    public nonisolated let key: SessionKey
    /// The session manager.
    public nonisolated let sessions: SessionManager
    /// The provider.
    public nonisolated let provider: OpenfortProvider
    /// What a sign-in does while signed in: openfort-js's refusal by default (``defaultSignInPolicy``).
    public nonisolated let signInPolicy: SignInPolicy

    /// openfort-js's rule: a sign-in while signed in is refused with `ALREADY_LOGGED_IN`.
    public static let defaultSignInPolicy = SignInPolicy.refusing(providerCode: "ALREADY_LOGGED_IN")

    /// Creates the client over a hub's session: the hub's ``SessionManager`` for an Openfort provider
    /// account, so the hub, its ``AuthHub/events()`` and this client share one owner and one cache of
    /// the session.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` for an unknown id or a provider of another type.
    public init(hub: AuthHub, provider id: String? = nil, account: String = SessionKey.defaultAccount,
                signInPolicy: SignInPolicy = OpenfortAuth.defaultSignInPolicy) throws {
        try self.init(manager: hub.manager(provider: id, account: account), signInPolicy: signInPolicy)
    }

    /// Creates the client over an existing session manager (the hub's: ``AuthHub/manager(provider:account:)``).
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` when the manager's provider is not an ``OpenfortProvider``.
    public init(manager: SessionManager, signInPolicy: SignInPolicy = OpenfortAuth.defaultSignInPolicy) throws {
        let provider = try manager.provider(as: OpenfortProvider.self)
        self.key = manager.key
        self.provider = provider
        self.sessions = manager
        self.signInPolicy = signInPolicy
    }

    /// Creates a standalone client that owns its session (an app without an ``AuthHub``). With a hub,
    /// use ``init(hub:provider:account:)``: two owners of one key would keep two caches.
    /// - Parameters:
    ///   - provider: the Openfort provider.
    ///   - store: where the session lives.
    ///   - account: the account key.
    ///   - refreshLock: serialises validations; by default the store's own.
    ///   - clock: the time source.
    public init(provider: OpenfortProvider, store: any SessionStore, account: String = SessionKey.defaultAccount,
                refreshLock: (any RefreshLock)? = nil, clock: any AuthClock = SystemClock(),
                signInPolicy: SignInPolicy = OpenfortAuth.defaultSignInPolicy) {
        let key = SessionKey(provider: provider.id, account: account)
        self.key = key
        self.provider = provider
        self.signInPolicy = signInPolicy
        self.sessions = SessionManager(key: key, provider: provider, store: store, refreshLock: refreshLock, clock: clock)
    }

    // MARK: - Guards

    /// The `ALREADY_LOGGED_IN` guard error.
    public nonisolated var alreadyLoggedIn: AuthError {
        AuthError(.conflict, message: "Already signed in; sign out first.", provider: key.provider, providerCode: "ALREADY_LOGGED_IN")
    }

    /// The `NOT_LOGGED_IN` guard error.
    public nonisolated var notLoggedIn: AuthError {
        AuthError(.noSession, message: "Not signed in.", provider: key.provider, providerCode: "NOT_LOGGED_IN")
    }

    private func requireSignedIn() async throws -> Session {
        guard let current = try await sessions.current() else { throw notLoggedIn }
        return current
    }

    /// Runs a call made with the session token; a 401 clears the session before rethrowing.
    private func endingSessionOn401<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as AuthError where error.statusCode == 401 {
            try? await sessions.clear()
            throw error
        }
    }

    // MARK: - Signing in

    /// Signs in with email and password and stores the session.
    @discardableResult
    public func signIn(email: String, password: Secret<String>) async throws -> Session {
        let provider = self.provider
        return try await sessions.signIn(method: "password", policy: signInPolicy) { _ in
            try await provider.signIn(.password(identifier: email, password: password))
        }
    }

    /// Creates an email/password user (upgrading a signed-in guest) and stores the session.
    /// - Parameters:
    ///   - name: the display name; the email when nil.
    ///   - callbackURL: where the verification link leads, when the project requires verification.
    /// - Returns: ``SignUpResult/verificationRequired(email:)`` when the server answered with no
    ///   token (nothing is stored; a guest session is kept).
    @discardableResult
    public func signUp(email: String, password: Secret<String>, name: String? = nil, callbackURL: String? = nil) async throws -> SignUpResult {
        let provider = self.provider
        return try await sessions.signUp(policy: signInPolicy, upgradesGuest: true) { guest in
            try await provider.signUp(SignUpRequest(email: email, password: password, displayName: name), callbackURL: callbackURL, upgrading: guest)
        }
    }

    /// Signs in as a new guest and stores the session.
    @discardableResult
    public func signInAsGuest() async throws -> Session {
        let provider = self.provider
        return try await sessions.signIn(method: "guest", policy: signInPolicy) { _ in try await provider.signIn(.guest) }
    }

    /// Emails a one-time code: type `email-verification` when a non-guest user is signed in, else
    /// `sign-in` (as the SDK chooses).
    public func requestEmailOTP(email: String) async throws {
        let current = try await sessions.current()
        let type: OpenfortAPI.EmailOTPType = current.map { OpenfortProvider.isAnonymous($0) } == false ? .emailVerification : .signIn
        try await provider.requestEmailOTP(email: email, type: type)
    }

    /// Signs in with an emailed code (upgrading a signed-in guest) and stores the session.
    @discardableResult
    public func signIn(email: String, otp: Secret<String>) async throws -> Session {
        let provider = self.provider
        return try await sessions.signIn(method: "emailCode", policy: signInPolicy, upgradesGuest: true) { guest in
            try await provider.signInWithEmailOTP(email: email, otp: otp, upgrading: guest)
        }
    }

    /// Verifies an email with an emailed code; a session in the reply is stored.
    public func verifyEmailOTP(email: String, otp: Secret<String>) async throws {
        let current = try await sessions.current()
        if let session = try await provider.verifyEmailOTP(email: email, otp: otp, session: current) {
            try await sessions.store(session)
        }
    }

    /// Signs in with an Apple or Google ID token and stores the session.
    @discardableResult
    public func signIn(idTokenProvider: String, token: Secret<String>, nonce: String? = nil) async throws -> Session {
        let provider = self.provider
        return try await sessions.signIn(method: "idToken", policy: signInPolicy) { _ in
            try await provider.signIn(idTokenProvider: idTokenProvider, token: token, nonce: nonce)
        }
    }

    // MARK: - OAuth

    /// The URL that starts an OAuth sign-in; the browser returns to `redirectURL` (finish with
    /// ``completeOAuth(callbackURL:)``). A signed-in guest is linked to the social account.
    public func oauthURL(provider socialProvider: String, redirectURL: String, scopes: [String]? = nil,
                         errorRedirectURL: String? = nil) async throws -> URL {
        let guest = try await sessions.beginSignIn(policy: signInPolicy, upgradesGuest: true).guest
        return try await provider.oauthURL(provider: socialProvider, redirectURL: redirectURL, scopes: scopes,
                                           errorRedirectURL: errorRedirectURL, upgrading: guest)
    }

    /// Finishes an OAuth sign-in from the redirect URL: parses `access_token`/`user_id` (or
    /// `error`), stores the credentials and validates them with get-session.
    /// - Throws: the mapped `?error=` code; ``AuthErrorCode/invalidRequest`` for a malformed URL or
    ///   one without a token; ``AuthErrorCode/refreshTokenInvalid`` when get-session rejects the
    ///   token (nothing stays stored); transient errors as they are (the credentials stay stored).
    @discardableResult
    public func completeOAuth(callbackURL: String) async throws -> Session {
        let callback = try OpenfortOAuthCallback.parse(callbackURL, provider: key.provider)
        let provider = self.provider
        try await sessions.signIn(method: "oauth", policy: signInPolicy, upgradesGuest: true) { _ in
            try await provider.session(credentials: callback.token, userID: callback.userID, refreshToken: callback.refreshToken)
        }
        return try await validateSession()
    }

    /// Stores a session token that arrived out of band (openfort-js `storeCredentials`), replacing a
    /// guest session; with `validate`, confirms it with get-session.
    @discardableResult
    public func storeCredentials(token: Secret<String>, userID: String?, validate: Bool = false) async throws -> Session {
        let provider = self.provider
        let stored = try await sessions.signIn(method: "credentials", policy: signInPolicy, upgradesGuest: true) { _ in
            try await provider.session(credentials: token, userID: userID)
        }
        return validate ? try await validateSession() : stored
    }

    // MARK: - Session

    /// The stored session, without contacting the server (nil when signed out).
    public func currentSession() async throws -> Session? {
        try await sessions.current()
    }

    /// Validates the session with `GET /get-session` and stores what the server answered (a
    /// rotated token, the expiry, the user).
    /// - Throws: ``AuthErrorCode/noSession`` (`NOT_LOGGED_IN`) when signed out;
    ///   ``AuthErrorCode/refreshTokenInvalid`` when the server answered `null` or 401 (the session
    ///   is cleared); transient errors as they are (the session is kept).
    @discardableResult
    public func validateSession() async throws -> Session {
        _ = try await requireSignedIn()
        return try await sessions.renew()
    }

    /// The signed-in user from `/iam/v2/me`, after validating the session (as the SDK's `user.get()`).
    /// - Throws: ``AuthErrorCode/noSession`` when signed out.
    public func currentUser() async throws -> OpenfortAuthUser {
        let session = try await validateSession()
        return try await endingSessionOn401 { try await provider.currentUser(session) }
    }

    /// Signs out: `POST /sign-out` (its errors ignored, as the SDK does), then clears the session.
    /// Does nothing when signed out.
    public func signOut() async throws {
        guard let session = try await sessions.current() else { return }
        try? await provider.signOut(session)
        try await sessions.clear()
    }

    /// The session's events, starting with the current state: `initialSession`, then `signedIn`
    /// (every sign-in, sign-up, stored credential), `tokenRefreshed` (validation), `signedOut`,
    /// `sessionExpired` (validation answered `null`/401).
    public func authStateChanges() async -> AsyncStream<AuthEvent> {
        await sessions.events()
    }

    // MARK: - Signed-in operations

    /// Starts linking a social account; returns the authorization URL to open (nil when linked at once).
    public func linkSocial(provider socialProvider: String, redirectURL: String, scopes: [String]? = nil,
                           idToken: Secret<String>? = nil) async throws -> URL? {
        let session = try await requireSignedIn()
        return try await endingSessionOn401 {
            try await provider.linkSocial(session, provider: socialProvider, redirectURL: redirectURL, scopes: scopes, idToken: idToken)
        }
    }

    /// Unlinks a sign-in method from the signed-in user.
    public func unlink(provider providerID: String, accountID: String? = nil) async throws {
        let session = try await requireSignedIn()
        try await endingSessionOn401 { try await provider.unlink(session, provider: providerID, accountID: accountID) }
    }

    /// Changes (or adds) the signed-in user's email (`POST /change-email`).
    @discardableResult
    public func changeEmail(_ newEmail: String, callbackURL: String? = nil) async throws -> String? {
        let session = try await requireSignedIn()
        return try await endingSessionOn401 {
            try await provider.api.changeEmail(newEmail: newEmail, callbackURL: callbackURL, bearer: session.accessToken)
        }
    }

    // MARK: - Verification and reset (no session needed)

    /// Sends an email-verification link.
    public func requestEmailVerification(email: String, redirectURL: String? = nil) async throws {
        try await provider.requestEmailVerification(email: email, redirectURL: redirectURL)
    }

    /// Verifies an email with the link's token (the session token is sent when signed in).
    @discardableResult
    public func verifyEmail(token: Secret<String>, callbackURL: String? = nil) async throws -> OpenfortUser? {
        try await provider.verifyEmail(token: token, callbackURL: callbackURL, session: try await sessions.current())
    }

    /// Sends a password-reset link leading to `redirectURL`.
    public func requestPasswordReset(email: String, redirectURL: String? = nil) async throws {
        try await provider.requestPasswordReset(email: email, redirectURL: redirectURL)
    }

    /// Sets a new password with the reset link's token.
    public func resetPassword(token: Secret<String>, newPassword: Secret<String>) async throws {
        try await provider.resetPassword(token: token, newPassword: newPassword)
    }

    /// Sends a password-reset code.
    public func requestPasswordResetOTP(email: String) async throws {
        try await provider.requestPasswordResetOTP(email: email)
    }

    /// Sets a new password with an emailed code.
    public func resetPassword(email: String, otp: Secret<String>, newPassword: Secret<String>) async throws {
        try await provider.resetPassword(email: email, otp: otp, newPassword: newPassword)
    }
}
