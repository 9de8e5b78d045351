import AuthHub
import Foundation

/// The signed-in user's account at Firebase: lookup, action codes and profile, password and email changes.
extension FirebaseProvider {
    // MARK: - Firebase-specific

    /// The signed-in user with every field of `accounts:lookup` (<doc:FirebaseEndpoints>: “Lookup”).
    public func currentUser(_ session: Session) async throws -> FirebaseUser {
        try await api.lookup(idToken: Self.idToken(of: session))
    }

    /// Checks a password-reset code without using it.
    /// - Returns: the email of the account the code resets.
    public func verifyPasswordResetCode(_ code: Secret<String>) async throws -> String {
        try await api.verifyPasswordResetCode(code).email
    }

    /// Sets a new password with a password-reset code from the email. No session results: sign in
    /// with the new password (existing sessions of the user stop renewing).
    /// - Returns: the account's email.
    @discardableResult
    public func confirmPasswordReset(code: Secret<String>, newPassword: Secret<String>) async throws -> String {
        try await api.confirmPasswordReset(code: code, newPassword: newPassword).email
    }

    /// Sends the signed-in user an email-verification link.
    public func sendEmailVerification(_ session: Session, continueURL: String? = nil, locale: String? = nil) async throws {
        try await api.sendEmailVerification(idToken: Self.idToken(of: session), continueURL: continueURL, locale: locale)
    }

    /// Sends `newEmail` a link that changes the user's email once followed (`sendOobCode`,
    /// `VERIFY_AND_CHANGE_EMAIL`; the Firebase SDKs' `verifyBeforeUpdateEmail`) — the way to change
    /// an email in projects with email-enumeration protection.
    public func sendVerifyAndChangeEmail(_ session: Session, newEmail: String, continueURL: String? = nil,
                                         locale: String? = nil) async throws {
        try await api.sendVerifyAndChangeEmail(idToken: Self.idToken(of: session), newEmail: newEmail, continueURL: continueURL, locale: locale)
    }

    /// Applies an email action code (email verification or email change) from a link.
    @discardableResult
    package func applyActionCode(_ code: Secret<String>) async throws -> FirebaseAccountUpdate {
        try await api.applyActionCode(code)
    }

    /// Changes the display name and/or photo URL.
    /// - Returns: the session with new tokens when the reply carried some, else nil (the session
    ///   stays valid; its claims show the old profile until the next refresh).
    public func updateProfile(_ session: Session, displayName: FirebaseProfileChange = .unchanged,
                              photoURL: FirebaseProfileChange = .unchanged) async throws -> Session? {
        let update = try await api.updateProfile(idToken: Self.idToken(of: session), displayName: displayName, photoURL: photoURL)
        return try await replacement(for: session, update)
    }

    /// Changes the password. Firebase revokes the old tokens, so the returned session (with the
    /// reply's new tokens) must replace the stored one.
    /// - Throws: ``AuthErrorCode/requiresRecentLogin`` when the sign-in is too old;
    ///   ``AuthErrorCode/weakPassword``.
    public func updatePassword(_ session: Session, newPassword: Secret<String>) async throws -> Session {
        let update = try await api.updatePassword(idToken: Self.idToken(of: session), newPassword: newPassword)
        return try await replacement(for: session, update) ?? session
    }

    /// Changes the email (projects with email-enumeration protection refuse this with
    /// ``AuthErrorCode/unsupported``: use ``sendVerifyAndChangeEmail(_:newEmail:continueURL:locale:)``).
    /// The returned session carries the reply's new tokens.
    public func updateEmail(_ session: Session, newEmail: String) async throws -> Session {
        let update = try await api.updateEmail(idToken: Self.idToken(of: session), newEmail: newEmail)
        return try await replacement(for: session, update) ?? session
    }

    private func replacement(for session: Session, _ update: FirebaseAccountUpdate) async throws -> Session? {
        guard let tokens = update.tokens else { return nil }
        var renewed = try await self.session(idToken: tokens.idToken, refreshToken: tokens.refreshToken,
                                             expiresIn: tokens.expiresIn, uid: tokens.localID, receivedAt: context.clock.now,
                                             accountKey: session.accountKey)
        renewed.issuedAt = session.issuedAt
        return renewed
    }
}
