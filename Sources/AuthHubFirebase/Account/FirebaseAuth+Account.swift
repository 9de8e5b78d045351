import AuthHub
import Foundation

/// Account operations of the signed-in user: emails, profile, password, email address, deletion.
extension FirebaseAuth {
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

    /// Sends `newEmail` a link that changes the signed-in user's email once followed (the Firebase
    /// SDKs' `verifyBeforeUpdateEmail`; the way to change an email under email-enumeration protection).
    public func verifyBeforeUpdateEmail(_ newEmail: String, continueURL: String? = nil, locale: String? = nil) async throws {
        let session = try await validSession()
        try await endingSessionOnDeadUser {
            try await provider.sendVerifyAndChangeEmail(session, newEmail: newEmail, continueURL: continueURL, locale: locale)
        }
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
}
