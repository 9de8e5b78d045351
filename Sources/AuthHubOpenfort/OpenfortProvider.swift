import AuthHub
import Foundation

/// An Openfort project as an ``AuthProvider``: the first native (non-web-view) Openfort client,
/// speaking the v2 auth API of spec/openfort.md through ``OpenfortAPI``.
///
/// Generic requests and the endpoints they use:
/// - ``SignInRequest/password(identifier:password:realm:scope:)`` → `POST /sign-in/email`;
/// - ``SignInRequest/guest`` → `POST /sign-in/anonymous`;
/// - ``SignInStartRequest/emailCode(email:)`` → `POST /email-otp/send-verification-otp` (type
///   `sign-in`), then ``SignInRequest/emailCode(email:code:context:)`` → `POST /sign-in/email-otp`;
/// - ``SignInRequest/idToken(provider:token:nonce:)`` (`apple`, `google`, …) → `POST /sign-in/social`
///   with `idToken`;
/// - ``signUp(_:)`` → `POST /sign-up/email` (`name` = display name, else the email; a `null` token
///   → ``SignUpResult/verificationRequired(email:)``);
/// - ``refresh(_:scope:)`` → `GET /get-session` (see below); ``signOut(_:)`` → `POST /sign-out`;
/// - ``sendPasswordReset(email:)`` → `POST /request-password-reset`; ``userInfo(_:)`` → `GET /iam/v2/me`.
/// Anything else (SMS codes, passkeys, authorization codes, account deletion) throws
/// ``AuthErrorCode/unsupported``.
///
/// **Sessions.** v2 has no refresh token and no client-side expiry (§5): the opaque session token
/// is the ``Session/accessToken``, and — so that the core ``SessionManager``'s single-flight
/// renewal drives get-session — it is also stored as the ``Session/refreshToken`` (it is the
/// credential renewal uses; it is a ``Secret`` like the rest). ``Session/expiresAt`` is the
/// server's `session.expiresAt` once get-session has reported it, nil before. Renewal: a `null`
/// answer or a 401 throws ``AuthErrorCode/refreshTokenInvalid`` (the manager then clears the
/// session); network errors, 429 and 5xx are thrown as they are (the session is kept). A changed
/// `session.token` replaces the stored one. ``Session/extras`` holds `isAnonymous`.
///
/// Openfort-specific calls (OAuth, links, email verification, reset variants, email OTP
/// verification) are on this type (reach it with `hub.provider("openfort", as: OpenfortProvider.self)`)
/// and on ``api``; ``OpenfortAuth`` adds the SDK's signed-in/signed-out guards and storage.
///
/// **Legacy v1** (``OpenfortConfiguration/APIVersion/v1``, spec §8, through ``legacyAPI``):
/// password sign-in and sign-up, guest, ID token, refresh (`POST /iam/v1/sessions` with the
/// refresh token; a 401/403/404 → ``AuthErrorCode/refreshTokenInvalid``), logout, `/iam/v1/me`,
/// OAuth init (the redirect carries `access_token`, `refresh_token`, `player_id`), email
/// verification and the link-based password reset. v1 sessions carry the access JWT (its `exp`
/// is ``Session/expiresAt``) and a real refresh token. The v2-only calls (email OTP, link/unlink,
/// OTP reset, verify-email by link token) throw ``AuthErrorCode/unsupported`` under v1.
public struct OpenfortProvider: AuthProvider {
    public let id: String
    public var type: String { OpenfortPlugin.typeName }
    public var capabilities: Set<AuthCapability> {
        configuration.apiVersion == .v2 ? OpenfortPlugin.providerCapabilities : OpenfortPlugin.legacyCapabilities
    }
    /// The entry's settings.
    public let configuration: OpenfortConfiguration
    /// The REST client (v2).
    public let api: OpenfortAPI
    /// The legacy v1 REST client.
    public let legacyAPI: OpenfortLegacyAPI
    /// Transport, clock, randomness and logger shared with the hub.
    let context: ProviderContext

    /// The ``Session/extras`` key telling whether the session belongs to a guest.
    public static let anonymousExtra = "isAnonymous"

    /// Creates the provider.
    public init(id: String, configuration: OpenfortConfiguration, context: ProviderContext = ProviderContext()) {
        self.id = id
        self.configuration = configuration
        self.context = context
        self.api = OpenfortAPI(providerID: id, configuration: configuration, context: context)
        self.legacyAPI = OpenfortLegacyAPI(providerID: id, configuration: configuration, context: context)
    }

    private func requireV2(_ operation: String) throws {
        guard configuration.apiVersion == .v2 else {
            throw AuthError(.unsupported, message: "Provider '\(id)' uses the legacy v1 API, which has no \(operation).",
                            provider: id)
        }
    }

    // MARK: - Sessions from replies

    /// A session for a session token and its user (not stored).
    public func session(token: Secret<String>, userID: String?, user: OpenfortUser? = nil, expiresAt: Date? = nil) -> Session {
        var extras: [String: JSONValue] = [:]
        if let user { extras[Self.anonymousExtra] = .bool(user.isAnonymous) }
        return Session(providerID: id, accessToken: token, tokenType: "Bearer", refreshToken: token, expiresAt: expiresAt,
                       userID: userID ?? user?.id, claims: user?.raw ?? [:], extras: extras, issuedAt: context.clock.now)
    }

    /// The session of a sign-in reply.
    /// - Throws: ``AuthErrorCode/invalidRequest`` when the reply has no token.
    func session(_ reply: OpenfortAuthResponse, what: String) throws -> Session {
        guard let token = reply.token else {
            throw AuthError(.invalidRequest, message: "The \(what) reply from '\(id)' has no session token.", provider: id)
        }
        return session(token: token, userID: reply.user?.id, user: reply.user)
    }

    /// The session of a v1 auth response (access JWT, refresh token, player).
    func legacySession(_ reply: OpenfortLegacyAuthResponse) -> Session {
        Self.legacySession(providerID: id, token: reply.token, refreshToken: reply.refreshToken, playerID: reply.playerID,
                           player: reply.player, now: context.clock.now)
    }

    static func legacySession(providerID: String, token: Secret<String>, refreshToken: Secret<String>?, playerID: String?,
                              player: [String: JSONValue], now: Date) -> Session {
        let payload = JWTParts.decode(token)?.payload
        // An unverified claim: kept only when it is a real date (else the session has no known expiry and
        // is refreshed on use).
        let expiresAt = payload?["exp"]?.doubleValue.flatMap { SessionTimeLimits.isValidDate($0) ? Date(timeIntervalSince1970: $0) : nil }
        return Session(providerID: providerID, accessToken: token, tokenType: "Bearer", refreshToken: refreshToken, expiresAt: expiresAt,
                       userID: playerID ?? payload?["sub"]?.stringValue, claims: player, extras: ["apiVersion": "v1"], issuedAt: now)
    }

    /// Whether a session belongs to a guest user.
    public static func isAnonymous(_ session: Session) -> Bool {
        session.extras[anonymousExtra]?.boolValue ?? session.claims["isAnonymous"]?.boolValue ?? false
    }

    /// The credentials of an OAuth redirect as a session — openfort-js `storeCredentials({token, userId})`:
    /// purely local, no HTTP. Validate it with ``refresh(_:scope:)`` (``OpenfortAuth/completeOAuth(callbackURL:)`` does).
    /// - Parameter refreshToken: the v1 redirect's `refresh_token` (ignored under v2).
    public func session(credentials token: Secret<String>, userID: String?, refreshToken: Secret<String>? = nil) -> Session {
        guard configuration.apiVersion == .v1 else { return session(token: token, userID: userID) }
        return Self.legacySession(providerID: id, token: token, refreshToken: refreshToken, playerID: userID, player: [:], now: context.clock.now)
    }

    // MARK: - AuthProvider

    public func signIn(_ request: SignInRequest) async throws -> Session {
        if configuration.apiVersion == .v1 { return try await legacySignIn(request) }
        switch request {
        case .password(let email, let password, _, _):
            return try session(await api.signIn(email: email, password: password), what: "sign-in")
        case .guest:
            return try session(await api.signInAnonymously(), what: "guest sign-in")
        case .emailCode(let email, let code, _):
            return try session(await api.signInWithEmailOTP(email: email, otp: code), what: "email OTP sign-in")
        case .idToken(let socialProvider, let token, let nonce):
            return try await signIn(idTokenProvider: socialProvider, token: token, nonce: nonce)
        default:
            throw unsupported("sign-in with \(request.methodName)")
        }
    }

    private func legacySignIn(_ request: SignInRequest) async throws -> Session {
        switch request {
        case .password(let email, let password, _, _):
            guard let reply = try await legacyAPI.logIn(email: email, password: password) else {
                throw AuthError(.emailNotVerified, message: "The email address must be verified before signing in.", provider: id,
                                providerCode: "verify_email")
            }
            return legacySession(reply)
        case .guest:
            return legacySession(try await legacyAPI.guest())
        case .idToken(let socialProvider, let token, _):
            return legacySession(try await legacyAPI.logInWithIDToken(provider: socialProvider, token: token))
        default:
            throw unsupported("sign-in with \(request.methodName) (legacy v1 API)")
        }
    }

    /// Signs in with an ID token issued to the app by Apple or Google (native sign-in).
    /// - Parameters:
    ///   - idTokenProvider: `apple`, `google` (or another social provider the project accepts ID tokens from).
    ///   - nonce: the raw nonce, when one was used.
    public func signIn(idTokenProvider: String, token: Secret<String>, nonce: String? = nil,
                       accessToken: Secret<String>? = nil) async throws -> Session {
        if configuration.apiVersion == .v1 { return try await legacySignIn(.idToken(provider: idTokenProvider, token: token, nonce: nonce)) }
        return try session(await api.signInWithIDToken(provider: idTokenProvider, token: token, nonce: nonce, accessToken: accessToken),
                           what: "ID-token sign-in")
    }

    /// Sends a sign-in code (`type: sign-in`).
    public func startSignIn(_ request: SignInStartRequest) async throws -> SignInChallenge {
        try requireV2("email OTP")
        guard case .emailCode(let email) = request else { throw unsupported("SMS sign-in") }
        try await api.sendEmailOTP(email: email, type: .signIn)
        return SignInChallenge(destination: email)
    }

    public func signUp(_ request: SignUpRequest) async throws -> SignUpResult {
        try await signUp(request, callbackURL: nil, upgrading: nil)
    }

    /// Creates an email/password user.
    /// - Parameters:
    ///   - callbackURL: where the verification link leads (when the project requires verification).
    ///   - upgrading: a guest's session, whose user becomes the new account (sent as Bearer).
    /// - Returns: the session, or ``SignUpResult/verificationRequired(email:)`` when the reply's token is `null`.
    public func signUp(_ request: SignUpRequest, callbackURL: String?, upgrading guest: Session?) async throws -> SignUpResult {
        if configuration.apiVersion == .v1 {
            guard let reply = try await legacyAPI.signUp(email: request.email, password: request.password,
                                                         name: request.displayName ?? request.username) else {
                return .verificationRequired(email: request.email)
            }
            return .signedIn(legacySession(reply))
        }
        let reply = try await api.signUp(email: request.email, password: request.password, name: request.displayName ?? request.username,
                                         callbackURL: callbackURL, image: request.metadata["image"]?.stringValue,
                                         bearer: guest?.accessToken)
        guard reply.token != nil else { return .verificationRequired(email: request.email) }
        return .signedIn(try session(reply, what: "sign-up"))
    }

    /// Validates the session with `GET /get-session` (Openfort's only "refresh") and returns what
    /// the server said: its token, user and expiry. What the reply leaves out — the user (claims,
    /// extras, user id), `issuedAt` — is left empty for the ``SessionManager`` to keep from the
    /// stored session. The one exception is the access token itself: a reply without a session
    /// token means the sent one is still the session's, so it stays the access token (the manager
    /// keeps refresh tokens, not access tokens).
    /// - Throws: ``AuthErrorCode/refreshTokenInvalid`` when the server answers `null` or 401 (the
    ///   session is over); other errors as they are.
    public func refresh(_ session: Session, scope: String?) async throws -> Session {
        if configuration.apiVersion == .v1 { return try await legacyRefresh(session) }
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

    private func legacyRefresh(_ session: Session) async throws -> Session {
        guard let refreshToken = session.refreshToken else {
            throw AuthError(.refreshTokenInvalid, message: "The session has no refresh token; sign in again.", provider: id)
        }
        // 400/401/403/404 are mapped to refreshTokenInvalid by OpenfortErrorMapper (legacy API, refresh).
        // What the server said; the SessionManager keeps the stored issuedAt.
        var renewed = legacySession(try await legacyAPI.refresh(refreshToken: refreshToken, force: true))
        renewed.issuedAt = nil
        return renewed
    }

    /// Ends the session at the server (v2 `POST /sign-out`; v1 `POST /iam/v1/sessions/logout`).
    public func signOut(_ session: Session) async throws {
        if configuration.apiVersion == .v1 {
            guard let refreshToken = session.refreshToken else { return }
            return try await legacyAPI.logOut(accessToken: session.accessToken, refreshToken: refreshToken)
        }
        try await api.signOut(bearer: session.accessToken)
    }

    /// Sends a password-reset link (`POST /request-password-reset`, no redirect).
    public func sendPasswordReset(email: String) async throws {
        try await requestPasswordReset(email: email, redirectURL: nil)
    }

    /// The user from `GET /iam/v2/me`.
    public func userInfo(_ session: Session) async throws -> UserInfo {
        var info = try await currentUser(session).userInfo
        if info.email == nil {
            info.email = (info.claims["linkedAccounts"]?.arrayValue ?? []).lazy.compactMap { $0["email"]?.stringValue }.first
        }
        return info
    }

    // MARK: - Openfort-specific

    /// The current user with linked accounts (`GET /iam/v2/me`).
    public func currentUser(_ session: Session) async throws -> OpenfortAuthUser {
        if configuration.apiVersion == .v1 {
            // The v1 player (id, createdAt, linkedAccounts) reads with the same tolerant reader.
            return try await legacyAPI.player(accessToken: session.accessToken)
        }
        return try await api.me(bearer: session.accessToken)
    }

    /// The authorization URL that starts an OAuth sign-in; the browser comes back to `redirectURL`
    /// with `access_token` and `user_id` (finish with ``OpenfortAuth/completeOAuth(callbackURL:)``
    /// or ``OpenfortOAuthCallback/parse(_:provider:)``).
    /// - Parameters:
    ///   - socialProvider: `google`, `apple`, `twitter`, `facebook`, `discord`, `epic_games`, `line`.
    ///   - guest: a guest's session, to attach the social account to that guest.
    public func oauthURL(provider socialProvider: String, redirectURL: String, scopes: [String]? = nil,
                         errorRedirectURL: String? = nil, upgrading guest: Session? = nil) async throws -> URL {
        if configuration.apiVersion == .v1 { return try await legacyAPI.initOAuth(provider: socialProvider, redirectTo: redirectURL) }
        return try await api.startOAuth(provider: socialProvider, callbackURL: redirectURL, scopes: scopes,
                                        errorCallbackURL: errorRedirectURL, bearer: guest?.accessToken)
    }

    /// Starts linking a social account to the signed-in user (`POST /link-social`); a guest is
    /// linked through `POST /sign-in/social` with its token instead, as the SDK does.
    /// - Returns: the authorization URL to open, or nil when the server linked at once.
    public func linkSocial(_ session: Session, provider socialProvider: String, redirectURL: String,
                           scopes: [String]? = nil, idToken: Secret<String>? = nil) async throws -> URL? {
        try requireV2("account linking")
        if Self.isAnonymous(session), idToken == nil {
            return try await api.startOAuth(provider: socialProvider, callbackURL: redirectURL, scopes: scopes, bearer: session.accessToken)
        }
        return try await api.linkSocial(provider: socialProvider, callbackURL: redirectURL, scopes: scopes, idToken: idToken,
                                        bearer: session.accessToken).url
    }

    /// Unlinks an account from the signed-in user (`POST /unlink-account`).
    public func unlink(_ session: Session, provider providerID: String, accountID: String? = nil) async throws {
        try requireV2("account unlinking")
        try await api.unlinkAccount(providerID: providerID, accountID: accountID, bearer: session.accessToken)
    }

    /// Sends an email-verification link (`POST /send-verification-email`).
    public func requestEmailVerification(email: String, redirectURL: String? = nil) async throws {
        if configuration.apiVersion == .v1 { return try await legacyAPI.requestEmailVerification(email: email, redirectURL: redirectURL) }
        try await api.sendVerificationEmail(email: email, callbackURL: redirectURL)
    }

    /// Verifies an email with the token of the verification link (`GET /verify-email`).
    @discardableResult
    public func verifyEmail(token: Secret<String>, callbackURL: String? = nil, session: Session? = nil) async throws -> OpenfortUser? {
        try requireV2("email verification")
        return try await api.verifyEmail(token: token, callbackURL: callbackURL, bearer: session?.accessToken)
    }

    /// Verifies an email with an emailed code (`POST /email-otp/verify-email`).
    /// - Returns: a session when the server signs the user in with the verification, else nil.
    @discardableResult
    public func verifyEmailOTP(email: String, otp: Secret<String>, session: Session? = nil) async throws -> Session? {
        try requireV2("email OTP verification")
        let reply = try await api.verifyEmailOTP(email: email, otp: otp, bearer: session?.accessToken)
        return reply.token == nil ? nil : try self.session(reply, what: "email OTP verification")
    }

    /// Sends an email OTP of any type (`POST /email-otp/send-verification-otp`).
    public func requestEmailOTP(email: String, type: OpenfortAPI.EmailOTPType) async throws {
        try requireV2("email OTP")
        try await api.sendEmailOTP(email: email, type: type)
    }

    /// Signs in with an emailed code, upgrading a guest when one is given (sent as Bearer).
    public func signInWithEmailOTP(email: String, otp: Secret<String>, upgrading guest: Session?) async throws -> Session {
        try requireV2("email OTP sign-in")
        return try session(await api.signInWithEmailOTP(email: email, otp: otp, bearer: guest?.accessToken), what: "email OTP sign-in")
    }

    /// Sends a password-reset link (`POST /request-password-reset {email, redirectTo}`).
    public func requestPasswordReset(email: String, redirectURL: String?) async throws {
        if configuration.apiVersion == .v1 { return try await legacyAPI.requestReset(email: email, redirectURL: redirectURL) }
        try await api.requestPasswordReset(email: email, redirectTo: redirectURL)
    }

    /// Sets a new password with the reset link's token (`POST /reset-password`).
    public func resetPassword(token: Secret<String>, newPassword: Secret<String>) async throws {
        try requireV2("password reset")
        try await api.resetPassword(token: token, newPassword: newPassword)
    }

    /// Sends a password-reset code (`POST /forget-password/email-otp`).
    public func requestPasswordResetOTP(email: String) async throws {
        try requireV2("password reset")
        try await api.requestPasswordResetOTP(email: email)
    }

    /// Sets a new password with an emailed code (`POST /email-otp/reset-password`).
    public func resetPassword(email: String, otp: Secret<String>, newPassword: Secret<String>) async throws {
        try requireV2("password reset")
        try await api.resetPassword(email: email, otp: otp, newPassword: newPassword)
    }
}
