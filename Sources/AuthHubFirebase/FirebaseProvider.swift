import AuthHub
import Foundation

/// A Firebase Authentication project as an ``AuthProvider``: email/password sign-in and sign-up,
/// refresh through the Secure Token service, password reset, user info (`accounts:lookup`) and
/// account deletion, over its REST client (`FirebaseAPI`) — against production or the Auth emulator.
///
/// **Sessions.** The Firebase ID token is both the session's ``Session/accessToken`` and its
/// ``Session/idToken`` (Firebase has no separate access token); ``Session/expiresAt`` is the time
/// the reply arrived plus `expiresIn`; ``Session/userID`` is the `localId`; ``Session/claims`` are
/// the claims of the ID token after ``FirebaseIDTokenVerifier`` accepted it (every sign-in, sign-up,
/// refresh and credential change verifies the new token).
///
/// **Refresh.** ``refresh(_:scope:)`` exchanges the refresh token; a new refresh token in the reply
/// replaces the stored one. Renew in the iOS SDK's 5-minute window by asking the core
/// ``SessionManager`` for `session(minTTL: FirebaseProvider.tokenRefreshWindow)` (``FirebaseAuth``
/// does); the manager makes concurrent renewals one request. A refresh failing with
/// `USER_NOT_FOUND`, `USER_DISABLED`, `TOKEN_EXPIRED`, `INVALID_ID_TOKEN` or
/// `INVALID_REFRESH_TOKEN` throws ``AuthErrorCode/refreshTokenInvalid`` (the raw code in
/// ``AuthError/providerCode``), so the manager clears the session as the iOS SDK signs the user out;
/// network errors, 429 and 5xx keep it.
///
/// **Sign-out** is local only: Firebase has no endpoint that revokes a client's refresh token
/// (revocation is an Admin SDK operation), so ``signOut(_:)`` does nothing at the provider and the
/// hub just removes the stored session.
///
/// Firebase-only operations (password-reset codes, email verification, profile and credential
/// changes, the full ``FirebaseUser``) are reached by casting:
/// `try hub.provider("firebase", as: FirebaseProvider.self)`.
public struct FirebaseProvider: AuthProvider {
    public let id: String
    public var type: String { FirebasePlugin.typeName }
    public var capabilities: Set<AuthCapability> { FirebasePlugin.providerCapabilities }
    /// The entry's settings.
    public let configuration: FirebaseConfiguration
    /// The REST client, for what the generic ``AuthProvider`` surface does not cover.
    package let api: FirebaseAPI
    /// Verifies every ID token the provider receives (emulator mode exactly when `emulatorHost` is set).
    public let verifier: FirebaseIDTokenVerifier
    /// Transport, clock, randomness and logger shared with the hub.
    let context: ProviderContext

    /// The iOS SDK's refresh window: a token with less than 5 minutes left is renewed (<doc:FirebaseEndpoints>: “Refresh policy”).
    /// Pass it as `minTTL` to ``SessionManager/session(minTTL:scope:)`` or `AuthHub.session(minTTL:)`.
    public static let tokenRefreshWindow: TimeInterval = 300

    /// Creates the provider.
    /// - Parameters:
    ///   - keySource: where production ID-token keys come from (Google's JWKS by default; the X.509
    ///     map works too). Unused in emulator mode.
    public init(id: String, configuration: FirebaseConfiguration, context: ProviderContext = ProviderContext(),
                keySource: FirebasePublicKeyCache.Source = .googleJWKS) {
        self.init(id: id, configuration: configuration, context: context,
                  verifier: FirebaseIDTokenVerifier(configuration: configuration, context: context, keySource: keySource, provider: id))
    }

    /// Creates the provider with a given verifier (e.g. one whose key cache tests control).
    public init(id: String, configuration: FirebaseConfiguration, context: ProviderContext, verifier: FirebaseIDTokenVerifier) {
        self.id = id
        self.configuration = configuration
        self.context = context
        self.api = FirebaseAPI(providerID: id, configuration: configuration, context: context)
        self.verifier = verifier
    }

    // MARK: - Sessions

    /// A session from new tokens: the ID token is verified, and must belong to `uid` when given.
    /// - Parameters:
    ///   - receivedAt: when the reply arrived; `expiresAt` is this plus `expiresIn`.
    public func session(idToken: Secret<String>, refreshToken: Secret<String>?, expiresIn: TimeInterval, uid: String?,
                        receivedAt: Date, accountKey: String = SessionKey.defaultAccount) async throws -> Session {
        let verified = try await verifier.verify(idToken)
        if let uid, uid != verified.uid {
            throw AuthError(.invalidToken, message: "The ID token belongs to another user than the reply names.", provider: id,
                            details: ["reason": "sub"])
        }
        var extras: [String: JSONValue] = [:]
        if let method = verified.signInProvider { extras["firebase.sign_in_provider"] = .string(method) }
        if let factor = verified.signInSecondFactor { extras["firebase.sign_in_second_factor"] = .string(factor) }
        return Session(providerID: id, accountKey: accountKey, accessToken: idToken, tokenType: "Bearer", idToken: idToken,
                       refreshToken: refreshToken.flatMap { $0.isEmpty ? nil : $0 },
                       expiresAt: try SessionTimeLimits.expiry(afterSeconds: expiresIn, from: receivedAt, provider: id, field: "expiresIn"),
                       userID: verified.uid, claims: verified.claims,
                       extras: extras)
    }

    /// A session from a sign-in, sign-up or credential-change reply.
    package func session(from tokens: FirebaseTokenResponse, receivedAt: Date,
                        accountKey: String = SessionKey.defaultAccount) async throws -> Session {
        try await session(idToken: tokens.idToken, refreshToken: tokens.refreshToken, expiresIn: tokens.expiresIn,
                          uid: tokens.localID, receivedAt: receivedAt, accountKey: accountKey)
    }

    /// The ID token of a session (``Session/idToken``, else the access token, which is the same).
    static func idToken(of session: Session) -> Secret<String> { session.idToken ?? session.accessToken }

    // MARK: - AuthProvider

    /// Signs in with `.password` (`accounts:signInWithPassword`) or finishes a second-factor
    /// sign-in with `.mfa` (see ``signIn(mfa:_:)``); other methods are unsupported.
    /// - Throws: ``AuthErrorCode/mfaRequired`` (pending credential and enrolled factors in
    ///   ``AuthError/mfa``) for users with a second factor; ``AuthErrorCode/invalidCredentials``,
    ///   ``AuthErrorCode/userNotFound``, …
    public func signIn(_ request: SignInRequest) async throws -> Session {
        switch request {
        case .password(let identifier, let password, _, _):
            let tokens = try await api.signInWithPassword(email: identifier, password: password)
            return try await session(from: tokens, receivedAt: context.clock.now)
        case .mfa(let requirement, let response):
            return try await signIn(mfa: requirement, response)
        default:
            throw unsupported("sign-in with \(request.methodName)")
        }
    }

    /// Finishes a sign-in that failed with ``AuthErrorCode/mfaRequired``: a `.otp` code goes to
    /// `v2/accounts/mfaSignIn:finalize` with the requirement's token (`mfaPendingCredential`) and
    /// the first enrolled factor of kind `totp` in ``MFARequirement/enrolledFactors`` (its
    /// `mfaEnrollmentId`). The new ID token is verified like any other.
    /// - Throws: ``AuthErrorCode/unsupported`` for recovery codes and out-of-band codes (Firebase
    ///   has neither) and when the user has no TOTP factor (phone factors need reCAPTCHA and SMS,
    ///   which AuthHub does not drive); ``AuthErrorCode/invalidMFACode`` for a wrong code;
    ///   ``AuthErrorCode/sessionExpired`` when the pending credential expired.
    public func signIn(mfa requirement: MFARequirement, _ response: MFAResponse) async throws -> Session {
        guard case .otp(let code) = response else {
            let kind = if case .recoveryCode = response { "a recovery code" } else { "an out-of-band code" }
            throw unsupported("finishing a second-factor sign-in with \(kind) (Firebase offers TOTP and phone factors)")
        }
        guard let factor = requirement.enrolledFactors.first(where: { $0.kind == "totp" }) else {
            throw unsupported("finishing a second-factor sign-in without an enrolled TOTP factor")
        }
        let tokens = try await api.finalizeTOTPSignIn(pendingCredential: requirement.token, enrollmentID: factor.id, code: code)
        return try await session(idToken: tokens.idToken, refreshToken: tokens.refreshToken, expiresIn: tokens.expiresIn, uid: nil,
                                 receivedAt: context.clock.now)
    }

    /// Creates the user (`accounts:signUp`, with the display name when given); Firebase signs the
    /// new user in at once, so the result is always `.signedIn`.
    public func signUp(_ request: SignUpRequest) async throws -> SignUpResult {
        let tokens = try await api.signUp(email: request.email, password: request.password, displayName: request.displayName)
        return .signedIn(try await session(from: tokens, receivedAt: context.clock.now))
    }

    /// Renews the ID token with the refresh token (Secure Token service) and returns what the
    /// server said: the reply's refresh token when it sent one (else none — the ``SessionManager``
    /// keeps the stored one, as it keeps `issuedAt`). The new ID token is verified before the
    /// session is returned, and must belong to the reply's `user_id`, else to the session's user.
    public func refresh(_ session: Session, scope: String?) async throws -> Session {
        guard let refreshToken = session.refreshToken, !refreshToken.isEmpty else {
            throw AuthError(.refreshTokenInvalid, message: "The session has no refresh token.", provider: id)
        }
        let reply = try await api.refresh(refreshToken: refreshToken)
        return try await self.session(idToken: reply.idToken, refreshToken: reply.refreshToken,
                                      expiresIn: reply.expiresIn, uid: reply.userID ?? session.userID,
                                      receivedAt: context.clock.now, accountKey: session.accountKey)
    }

    /// Local only: Firebase cannot revoke a client's tokens (see the type's documentation).
    public func signOut(_ session: Session) async throws {}

    /// Sends a password-reset email (`sendOobCode`, `PASSWORD_RESET`).
    public func sendPasswordReset(email: String) async throws {
        try await api.sendPasswordResetEmail(email: email)
    }

    /// The user from `accounts:lookup`, as a core ``UserInfo`` (see ``currentUser(_:)`` for all fields).
    public func userInfo(_ session: Session) async throws -> UserInfo {
        try await currentUser(session).userInfo
    }

    /// Deletes the signed-in user (`accounts:delete`).
    /// - Throws: ``AuthErrorCode/requiresRecentLogin`` when the sign-in is too old.
    public func deleteAccount(_ session: Session) async throws {
        try await api.deleteAccount(idToken: Self.idToken(of: session))
    }
}
