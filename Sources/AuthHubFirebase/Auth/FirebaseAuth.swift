import AuthHub
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
///   those to ``AuthErrorCode/refreshTokenInvalid``), elsewhere this type clears it. Other
///   failures (network, 429, 5xx, `CREDENTIAL_TOO_OLD_LOGIN_AGAIN`, …) leave it.
/// - **Credential changes** store the session with the new tokens the reply carries (the core has
///   one way to replace a session, ``SessionManager/store(_:)``, so listeners see `signedIn`).
public actor FirebaseAuth {
    /// The session's key.
    public nonisolated let key: SessionKey
    /// The session manager.
    public nonisolated let sessions: SessionManager
    /// The provider.
    public nonisolated let provider: FirebaseProvider
    /// The least remaining lifetime, in seconds, of the ID tokens this type hands out.
    public nonisolated let refreshWindow: TimeInterval

    /// Creates the object.
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
        try await sessions.store(provider.signIn(.password(identifier: email, password: password)))
    }

    /// Creates the user, signs them in and stores the session.
    @discardableResult
    public func signUp(email: String, password: Secret<String>, displayName: String? = nil) async throws -> Session {
        let result = try await provider.signUp(SignUpRequest(email: email, password: password, displayName: displayName))
        switch result {
        case .signedIn(let session): return try await sessions.store(session)
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

    // MARK: - Account operations

    /// Sends a password-reset email.
    public func sendPasswordReset(email: String) async throws {
        try await provider.sendPasswordReset(email: email)
    }

    /// Sends the signed-in user an email-verification link.
    public func sendEmailVerification(continueURL: String? = nil, locale: String? = nil) async throws {
        let session = try await validSession()
        try await endingSessionOnDeadUser { try await provider.sendEmailVerification(session, continueURL: continueURL, locale: locale) }
    }

    /// Changes the display name and/or photo URL; new tokens in the reply are stored.
    public func updateProfile(displayName: FirebaseProfileChange = .unchanged, photoURL: FirebaseProfileChange = .unchanged) async throws {
        let session = try await validSession()
        if let renewed = try await endingSessionOnDeadUser({
            try await provider.updateProfile(session, displayName: displayName, photoURL: photoURL)
        }) {
            try await sessions.store(renewed)
        }
    }

    /// Changes the password and stores the session with the reply's new tokens.
    @discardableResult
    public func updatePassword(_ newPassword: Secret<String>) async throws -> Session {
        let session = try await validSession()
        return try await sessions.store(endingSessionOnDeadUser { try await provider.updatePassword(session, newPassword: newPassword) })
    }

    /// Changes the email and stores the session with the reply's new tokens.
    @discardableResult
    public func updateEmail(_ newEmail: String) async throws -> Session {
        let session = try await validSession()
        return try await sessions.store(endingSessionOnDeadUser { try await provider.updateEmail(session, newEmail: newEmail) })
    }

    /// Deletes the signed-in user's account, then the local session.
    /// - Throws: ``AuthErrorCode/requiresRecentLogin`` when the sign-in is too old (session kept).
    public func deleteAccount() async throws {
        let session = try await validSession()
        try await endingSessionOnDeadUser { try await provider.deleteAccount(session) }
        try await sessions.clear()
    }

    /// Runs a token operation; when it fails with one of ``FirebaseErrorMapper/signOutCodes``, the
    /// session is cleared before the error is rethrown.
    private func endingSessionOnDeadUser<T: Sendable>(_ body: () async throws -> T) async throws -> T {
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
