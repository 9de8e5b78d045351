import AuthHub
import Foundation

/// An Openfort project as an ``AuthProvider``: the first native (non-web-view) Openfort client,
/// speaking the v2 auth API of <doc:OpenfortEndpoints> through its REST client (`OpenfortAPI`).
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
/// **Sessions.** v2 has no refresh token and no client-side expiry (<doc:OpenfortEndpoints>: “Sessions”): the opaque session token
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
/// **Legacy v1** (``OpenfortConfiguration/APIVersion/v1``, <doc:OpenfortEndpoints>: “Legacy v1”, through ``legacyAPI``):
/// password sign-in and sign-up, guest, ID token, refresh (`POST /iam/v1/sessions` with the
/// refresh token; a 401/403/404 → ``AuthErrorCode/refreshTokenInvalid``), logout, `/iam/v1/me`,
/// OAuth init (the redirect carries `access_token`, `refresh_token`, `player_id`), email
/// verification and the link-based password reset. v1 sessions carry the access JWT (its `exp`
/// is ``Session/expiresAt``) and a real refresh token. The v2-only calls (email OTP, link/unlink,
/// OTP reset, verify-email by link token) throw ``AuthErrorCode/unsupported`` under v1.
public struct OpenfortProvider: AuthProvider {
    public let id: String
    public var type: String { OpenfortPlugin.typeName }
    public var capabilities: Set<AuthCapability> { backend.capabilities }
    /// The entry's settings.
    public let configuration: OpenfortConfiguration
    /// The REST client (v2).
    package let api: OpenfortAPI
    /// The legacy v1 REST client.
    package let legacyAPI: OpenfortLegacyAPI
    /// Transport, clock, randomness and logger shared with the hub.
    let context: ProviderContext
    /// The API generation every call goes to, chosen once from ``OpenfortConfiguration/apiVersion``.
    let backend: any OpenfortBackend

    /// The ``Session/extras`` key telling whether the session belongs to a guest.
    public static let anonymousExtra = "isAnonymous"

    /// Creates the provider.
    public init(id: String, configuration: OpenfortConfiguration, context: ProviderContext = ProviderContext()) {
        self.id = id
        self.configuration = configuration
        self.context = context
        self.api = OpenfortAPI(providerID: id, configuration: configuration, context: context)
        self.legacyAPI = OpenfortLegacyAPI(providerID: id, configuration: configuration, context: context)
        switch configuration.apiVersion {
        case .v2: backend = OpenfortV2Backend(id: id, api: api, clock: context.clock)
        case .v1: backend = OpenfortLegacyBackend(id: id, api: legacyAPI, clock: context.clock)
        }
    }

    // MARK: - Sessions from replies

    /// A session for a session token and its user (not stored).
    public func session(token: Secret<String>, userID: String?, user: OpenfortUser? = nil, expiresAt: Date? = nil) -> Session {
        Self.session(providerID: id, token: token, userID: userID, user: user, expiresAt: expiresAt, now: context.clock.now)
    }

    /// A v2 session: the session token is the access token and the credential renewal uses.
    static func session(providerID: String, token: Secret<String>, userID: String?, user: OpenfortUser?, expiresAt: Date?,
                        now: Date) -> Session {
        var extras: [String: JSONValue] = [:]
        if let user { extras[anonymousExtra] = .bool(user.isAnonymous) }
        return Session(providerID: providerID, accessToken: token, tokenType: "Bearer", refreshToken: token, expiresAt: expiresAt,
                       userID: userID ?? user?.id, claims: user?.raw ?? [:], extras: extras, issuedAt: now)
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
        backend.session(credentials: token, userID: userID, refreshToken: refreshToken)
    }

    // MARK: - AuthProvider

    public func signIn(_ request: SignInRequest) async throws -> Session {
        try await backend.signIn(request)
    }

    /// Signs in with an ID token issued to the app by Apple or Google (native sign-in).
    /// - Parameters:
    ///   - idTokenProvider: `apple`, `google` (or another social provider the project accepts ID tokens from).
    ///   - nonce: the raw nonce, when one was used.
    public func signIn(idTokenProvider: String, token: Secret<String>, nonce: String? = nil,
                       accessToken: Secret<String>? = nil) async throws -> Session {
        try await backend.signIn(idTokenProvider: idTokenProvider, token: token, nonce: nonce, accessToken: accessToken)
    }

    /// Sends a sign-in code (`type: sign-in`).
    public func startSignIn(_ request: SignInStartRequest) async throws -> SignInChallenge {
        try await backend.startSignIn(request)
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
        try await backend.signUp(request, callbackURL: callbackURL, upgrading: guest)
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
        try await backend.refresh(session)
    }

    /// Ends the session at the server (v2 `POST /sign-out`; v1 `POST /iam/v1/sessions/logout`).
    public func signOut(_ session: Session) async throws {
        try await backend.signOut(session)
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
        try await backend.currentUser(session)
    }

    /// The authorization URL that starts an OAuth sign-in; the browser comes back to `redirectURL`
    /// with `access_token` and `user_id` (finish with ``OpenfortAuth/completeOAuth(callbackURL:)``
    /// or ``OpenfortOAuthCallback/parse(_:provider:)``).
    /// - Parameters:
    ///   - socialProvider: `google`, `apple`, `twitter`, `facebook`, `discord`, `epic_games`, `line`.
    ///   - guest: a guest's session, to attach the social account to that guest.
    public func oauthURL(provider socialProvider: String, redirectURL: String, scopes: [String]? = nil,
                         errorRedirectURL: String? = nil, upgrading guest: Session? = nil) async throws -> URL {
        try await backend.oauthURL(provider: socialProvider, redirectURL: redirectURL, scopes: scopes, errorRedirectURL: errorRedirectURL,
                                   upgrading: guest)
    }

    /// Starts linking a social account to the signed-in user (`POST /link-social`); a guest is
    /// linked through `POST /sign-in/social` with its token instead, as the SDK does.
    /// - Returns: the authorization URL to open, or nil when the server linked at once.
    public func linkSocial(_ session: Session, provider socialProvider: String, redirectURL: String,
                           scopes: [String]? = nil, idToken: Secret<String>? = nil) async throws -> URL? {
        try await backend.linkSocial(session, provider: socialProvider, redirectURL: redirectURL, scopes: scopes, idToken: idToken)
    }

    /// Unlinks an account from the signed-in user (`POST /unlink-account`).
    public func unlink(_ session: Session, provider providerID: String, accountID: String? = nil) async throws {
        try await backend.unlink(session, provider: providerID, accountID: accountID)
    }

    /// Sends an email-verification link (`POST /send-verification-email`).
    public func requestEmailVerification(email: String, redirectURL: String? = nil) async throws {
        try await backend.requestEmailVerification(email: email, redirectURL: redirectURL)
    }

    /// Verifies an email with the token of the verification link (`GET /verify-email`).
    @discardableResult
    public func verifyEmail(token: Secret<String>, callbackURL: String? = nil, session: Session? = nil) async throws -> OpenfortUser? {
        try await backend.verifyEmail(token: token, callbackURL: callbackURL, session: session)
    }

    /// Verifies an email with an emailed code (`POST /email-otp/verify-email`).
    /// - Returns: a session when the server signs the user in with the verification, else nil.
    @discardableResult
    public func verifyEmailOTP(email: String, otp: Secret<String>, session: Session? = nil) async throws -> Session? {
        try await backend.verifyEmailOTP(email: email, otp: otp, session: session)
    }

    /// Sends an email OTP of any type (`POST /email-otp/send-verification-otp`).
    public func requestEmailOTP(email: String, type: OpenfortEmailOTPType) async throws {
        try await backend.requestEmailOTP(email: email, type: type)
    }

    /// Signs in with an emailed code, upgrading a guest when one is given (sent as Bearer).
    public func signInWithEmailOTP(email: String, otp: Secret<String>, upgrading guest: Session?) async throws -> Session {
        try await backend.signInWithEmailOTP(email: email, otp: otp, upgrading: guest)
    }

    /// Sends a password-reset link (`POST /request-password-reset {email, redirectTo}`).
    public func requestPasswordReset(email: String, redirectURL: String?) async throws {
        try await backend.requestPasswordReset(email: email, redirectURL: redirectURL)
    }

    /// Sets a new password with the reset link's token (`POST /reset-password`).
    public func resetPassword(token: Secret<String>, newPassword: Secret<String>) async throws {
        try await backend.resetPassword(token: token, newPassword: newPassword)
    }

    /// Sends a password-reset code (`POST /forget-password/email-otp`).
    public func requestPasswordResetOTP(email: String) async throws {
        try await backend.requestPasswordResetOTP(email: email)
    }

    /// Sets a new password with an emailed code (`POST /email-otp/reset-password`).
    public func resetPassword(email: String, otp: Secret<String>, newPassword: Secret<String>) async throws {
        try await backend.resetPassword(email: email, otp: otp, newPassword: newPassword)
    }
}
