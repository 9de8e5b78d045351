import AuthHub
import AuthHubFactors
import Foundation

/// A Firebase `Auth` object on AuthHub's session layer: the calls an app makes on the Firebase
/// client SDK (sign in, sign up, sign out, password reset, delete account, current user, ID
/// token, auth-state changes), for one account of one ``FirebaseProvider``.
///
/// It is thin on purpose: the session lives in a core ``SessionManager`` (single-flight and
/// cross-process-safe renewal, rotation-safe storage, events), the wire calls are the provider's.
/// What it adds is Firebase's policy:
/// - **5-minute refresh window.** ``idToken(forceRefresh:)`` and ``validSession()`` renew when the
///   ID token has less than ``refreshWindow`` seconds left (300 by default, the iOS SDK's
///   constant); concurrent callers share one refresh request.
/// - **Sign-out on dead users.** As the iOS SDK, a token operation (refresh, lookup, update,
///   verification email, delete) failing with `USER_NOT_FOUND`, `USER_DISABLED`, `TOKEN_EXPIRED`
///   or `INVALID_ID_TOKEN` ends the session: on refresh the manager clears it (the provider maps
///   those to ``AuthErrorCode/refreshTokenInvalid``), elsewhere this type clears it. So does a
///   reauthentication answered `EMAIL_NOT_FOUND`, `USER_NOT_FOUND` or `USER_DISABLED` (as the JS
///   SDK). Other failures (network, 429, 5xx, `CREDENTIAL_TOO_OLD_LOGIN_AGAIN`, a wrong
///   password, …) leave it.
/// - **Signing in while signed in** follows the hub's one rule (``SignInPolicy``, through
///   ``SessionManager/signIn(method:policy:upgradesGuest:isolation:_:)``): the new session replaces
///   the stored one (Firebase has no client-side revocation, so nothing is sent), with the same
///   events and telemetry as ``AuthHub/signIn(_:provider:account:)``.
/// - **Credential changes** of the signed-in user (reauthentication, new password or email) store the
///   session with the new tokens the reply carries (``SessionManager/store(_:)``, so listeners see
///   `signedIn`).
public actor FirebaseAuth {
    /// The session's key.
    public nonisolated let key: SessionKey
    /// The session manager.
    public nonisolated let sessions: SessionManager
    /// The provider.
    public nonisolated let provider: FirebaseProvider
    /// The least remaining lifetime, in seconds, of the ID tokens this type hands out.
    public nonisolated let refreshWindow: TimeInterval

    /// Creates the object over a hub's session: the hub's ``SessionManager`` for a Firebase provider
    /// account, so the hub, its ``AuthHub/events()`` and this object share one owner and one cache of
    /// the session.
    /// - Parameters:
    ///   - hub: the hub.
    ///   - id: the provider id (the environment's default when nil); it must be a Firebase provider.
    ///   - account: the account key.
    ///   - refreshWindow: renew when less than this many seconds are left (default 300).
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` for an unknown id or a provider of another type.
    public init(hub: AuthHub, provider id: String? = nil, account: String = SessionKey.defaultAccount,
                refreshWindow: TimeInterval = FirebaseProvider.tokenRefreshWindow) throws {
        try self.init(manager: hub.manager(provider: id, account: account), refreshWindow: refreshWindow)
    }

    /// Creates the object over an existing session manager (the hub's: ``AuthHub/manager(provider:account:)``).
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` when the manager's provider is not a ``FirebaseProvider``.
    public init(manager: SessionManager, refreshWindow: TimeInterval = FirebaseProvider.tokenRefreshWindow) throws {
        let provider = try manager.provider(as: FirebaseProvider.self)
        self.key = manager.key
        self.provider = provider
        self.refreshWindow = refreshWindow
        self.sessions = manager
    }

    /// Creates a standalone object that owns its session (an app without an ``AuthHub``). With a hub,
    /// use ``init(hub:provider:account:refreshWindow:)``: two owners of one key would keep two caches.
    /// - Parameters:
    ///   - provider: the Firebase provider.
    ///   - store: where the session lives.
    ///   - account: the account key (several users may be signed in under different keys).
    ///   - refreshLock: serialises renewals; by default the store's own.
    ///   - clock: the time source.
    ///   - refreshWindow: renew when less than this many seconds are left (default 300).
    public init(provider: FirebaseProvider, store: any SessionStore, account: String = SessionKey.defaultAccount,
                refreshLock: (any RefreshLock)? = nil, clock: any AuthClock = SystemClock(),
                refreshWindow: TimeInterval = FirebaseProvider.tokenRefreshWindow) {
        let key = SessionKey(provider: provider.id, account: account)
        self.key = key
        self.provider = provider
        self.refreshWindow = refreshWindow
        self.sessions = SessionManager(key: key, provider: provider, store: store, refreshLock: refreshLock, clock: clock)
    }

    // MARK: - Signing in and out

    /// Signs in with email and password and stores the session.
    /// - Throws: ``AuthErrorCode/mfaRequired``, ``AuthErrorCode/invalidCredentials``, … (nothing is stored).
    @discardableResult
    public func signIn(email: String, password: Secret<String>) async throws -> Session {
        let provider = self.provider
        return try await sessions.signIn(method: "password") { _ in try await provider.signIn(.password(identifier: email, password: password)) }
    }

    /// Finishes a sign-in that failed with ``AuthErrorCode/mfaRequired`` and stores the session:
    /// `.otp(code)` is checked by `v2/accounts/mfaSignIn:finalize` against the first enrolled TOTP
    /// factor of `requirement` (see ``FirebaseProvider/signIn(mfa:_:)``).
    /// - Throws: ``AuthErrorCode/invalidMFACode`` for a wrong or reused code (nothing is stored; the
    ///   requirement stays usable until it expires), ``AuthErrorCode/sessionExpired`` when the
    ///   pending credential expired, ``AuthErrorCode/unsupported`` for other answers.
    @discardableResult
    public func signIn(mfa requirement: MFARequirement, response: MFAResponse) async throws -> Session {
        let provider = self.provider
        return try await sessions.signIn(method: "mfa") { _ in try await provider.signIn(.mfa(requirement: requirement, response: response)) }
    }

    /// Signs the current user in again with their password, as the Firebase SDKs'
    /// `reauthenticateWithCredential`: after ``AuthErrorCode/requiresRecentLogin``
    /// (`CREDENTIAL_TOO_OLD_LOGIN_AGAIN`), the next sensitive change (``deleteAccount()``,
    /// ``updatePassword(_:)``, ``updateEmail(_:)``) succeeds.
    ///
    /// The email is the stored session's `email` claim; the sign-in must return the same user
    /// (`localId`), else nothing is stored and ``AuthErrorCode/invalidCredentials`` with provider code
    /// `USER_MISMATCH` (iOS `userMismatch`, 17024) is thrown. The new session is stored through the
    /// same ``SessionManager``.
    /// - Throws: ``AuthErrorCode/noSession`` when signed out; ``AuthErrorCode/invalidCredentials``
    ///   for a wrong password; ``AuthErrorCode/mfaRequired`` for a user with second factors (finish
    ///   with ``reauthenticate(mfa:response:)``); ``AuthErrorCode/userNotFound`` (`EMAIL_NOT_FOUND`,
    ///   `USER_NOT_FOUND`) or ``AuthErrorCode/accessDenied`` (`USER_DISABLED`) when the user was
    ///   deleted or disabled — then, as the JS SDK does, the session is signed out (removed from
    ///   the store, `signedOut` published) before the error is thrown: it belongs to a user who can
    ///   no longer sign in.
    @discardableResult
    public func reauthenticate(password: Secret<String>) async throws -> Session {
        let current = try await signedInSession()
        guard let email = current.claims["email"]?.stringValue, !email.isEmpty else {
            throw AuthError(.unsupported, message: "The signed-in user has no email address to sign in again with.", provider: key.provider)
        }
        let renewed = try await endingSessionOnGoneUser { try await provider.signIn(.password(identifier: email, password: password)) }
        return try await sessions.store(try sameUser(renewed, as: current))
    }

    /// Finishes a ``reauthenticate(password:)`` that needed a second factor: like
    /// ``signIn(mfa:response:)``, but the result must be the current user (`USER_MISMATCH` otherwise).
    /// A deleted or disabled user signs the session out, as in ``reauthenticate(password:)``.
    @discardableResult
    public func reauthenticate(mfa requirement: MFARequirement, response: MFAResponse) async throws -> Session {
        let current = try await signedInSession()
        let renewed = try await endingSessionOnGoneUser { try await provider.signIn(.mfa(requirement: requirement, response: response)) }
        return try await sessions.store(try sameUser(renewed, as: current))
    }

    /// The sign-in answers that mean the signed-in user was deleted or disabled: `EMAIL_NOT_FOUND`
    /// (password sign-in's word for a deleted user, without email-enumeration protection — with it,
    /// `INVALID_LOGIN_CREDENTIALS` cannot be told from a wrong password and keeps the session),
    /// `USER_NOT_FOUND` and `USER_DISABLED`.
    static let goneUserCodes: Set<String> = ["EMAIL_NOT_FOUND", "USER_NOT_FOUND", "USER_DISABLED"]

    /// Runs a reauthentication sign-in; when it fails with one of ``goneUserCodes``, the session is
    /// cleared before the error is rethrown.
    private func endingSessionOnGoneUser<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as AuthError {
            if let code = error.providerCode, Self.goneUserCodes.contains(code) {
                try? await sessions.clear()
            }
            throw error
        }
    }

    func signedInSession() async throws -> Session {
        guard let current = try await sessions.current() else {
            throw AuthError(.noSession, message: "No user is signed in.", provider: key.provider)
        }
        return current
    }

    private func sameUser(_ renewed: Session, as current: Session) throws -> Session {
        guard renewed.userID != nil, renewed.userID == current.userID else {
            throw AuthError(.invalidCredentials, message: "The credentials belong to another user than the one signed in.",
                            provider: key.provider, providerCode: "USER_MISMATCH", details: ["iosCode": "17024"])
        }
        return renewed
    }

    /// Creates the user, signs them in and stores the session.
    @discardableResult
    public func signUp(email: String, password: Secret<String>, displayName: String? = nil) async throws -> Session {
        let provider = self.provider
        let result = try await sessions.signUp { _ in try await provider.signUp(SignUpRequest(email: email, password: password, displayName: displayName)) }
        switch result {
        case .signedIn(let session): return session
        case .verificationRequired:
            throw AuthError(.verificationRequired, message: "The account was created but not signed in.", provider: key.provider)
        }
    }

    /// Signs out locally (Firebase cannot revoke client tokens) and publishes `signedOut`.
    public func signOut() async throws {
        try await sessions.clear()
    }

    // MARK: - State

    /// The stored session, without renewing it (nil when signed out).
    public func currentSession() async throws -> Session? {
        try await sessions.current()
    }

    /// A session whose ID token has at least ``refreshWindow`` seconds left, renewed when needed.
    /// - Throws: ``AuthErrorCode/noSession`` when signed out; ``AuthErrorCode/refreshTokenInvalid``
    ///   when the session ended (it is cleared); transient errors as they are (session kept).
    public func validSession() async throws -> Session {
        try await sessions.session(minTTL: refreshWindow)
    }

    /// The ID token to send to a backend: the stored one while it has ``refreshWindow`` seconds
    /// left, else a renewed one; `forceRefresh` renews regardless.
    public func idToken(forceRefresh: Bool = false) async throws -> Secret<String> {
        let session = forceRefresh ? try await sessions.renew() : try await validSession()
        return FirebaseProvider.idToken(of: session)
    }

    /// The signed-in user as `accounts:lookup` returns them now; nil when signed out.
    public func currentUser() async throws -> FirebaseUser? {
        guard try await sessions.current() != nil else { return nil }
        let session = try await validSession()
        return try await endingSessionOnDeadUser { try await provider.currentUser(session) }
    }

    /// The auth state now, then every change: see ``FirebaseAuthState``.
    public func authStateChanges() async -> AsyncStream<FirebaseAuthState> {
        let events = await sessions.events()
        return AsyncStream { continuation in
            let task = Task {
                for await event in events { continuation.yield(FirebaseAuthState(event)) }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Runs a token operation; when it fails with one of ``FirebaseErrorMapper/signOutCodes``, the
    /// session is cleared before the error is rethrown.
    func endingSessionOnDeadUser<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as AuthError {
            if let code = error.providerCode, FirebaseErrorMapper.signOutCodes.contains(code) {
                try? await sessions.clear()
            }
            throw error
        }
    }
}
