import AuthHub
import Foundation
import AuthHubFactors

/// Second factors of the signed-in user (TOTP), as the Firebase SDKs' `multiFactor` object.
extension FirebaseAuth {
    // MARK: - Second factors

    /// Starts enrolling a TOTP authenticator for the signed-in user (`mfaEnrollment:start`).
    /// - Parameters:
    ///   - issuer: the issuer the authenticator app shows; the project id by default.
    ///   - account: the account name it shows; the user's email by default.
    /// - Returns: the secret (as a ``TOTP`` and an `otpauth://` URI for a QR code) and the session
    ///   value for ``finalizeTOTPEnrollment(_:code:displayName:)``.
    /// - Throws: ``AuthErrorCode/emailNotVerified`` when the email is not verified (Identity
    ///   Platform's `UNVERIFIED_EMAIL`), ``AuthErrorCode/conflict`` at the factor limit, …
    public func startTOTPEnrollment(issuer: String? = nil, account: String? = nil) async throws -> FirebaseTOTPEnrollmentChallenge {
        let session = try await validSession()
        let info = try await endingSessionOnDeadUser { try await provider.api.startTOTPEnrollment(idToken: FirebaseProvider.idToken(of: session)) }
        return try FirebaseTOTPEnrollmentChallenge(sessionInfo: info, account: account ?? session.claims["email"]?.stringValue ?? "",
                                                   issuer: issuer ?? provider.configuration.projectId, provider: key.provider)
    }

    /// Finishes a TOTP enrollment with a code from the authenticator (`mfaEnrollment:finalize`) and
    /// stores the session with the reply's new tokens. From then on, password sign-in throws
    /// ``AuthErrorCode/mfaRequired``.
    /// - Throws: ``AuthErrorCode/invalidMFACode`` for a wrong code; ``AuthErrorCode/sessionExpired``
    ///   when the enrollment's deadline passed.
    @discardableResult
    public func finalizeTOTPEnrollment(_ challenge: FirebaseTOTPEnrollmentChallenge, code: Secret<String>,
                                       displayName: String? = nil) async throws -> Session {
        try await finalizeTOTPEnrollment(sessionInfo: challenge.sessionInfo, code: code, displayName: displayName)
    }

    /// ``finalizeTOTPEnrollment(_:code:displayName:)`` with the challenge's `sessionInfo` alone (what
    /// the account API keeps between the two halves).
    func finalizeTOTPEnrollment(sessionInfo: Secret<String>, code: Secret<String>, displayName: String?) async throws -> Session {
        let session = try await validSession()
        let tokens = try await endingSessionOnDeadUser {
            try await provider.api.finalizeTOTPEnrollment(idToken: FirebaseProvider.idToken(of: session), sessionInfo: sessionInfo,
                                                          code: code, displayName: displayName)
        }
        return try await storeReplacement(for: session, tokens)
    }

    /// Removes a second factor (`mfaEnrollment:withdraw`).
    ///
    /// When the reply carries new tokens, the session is stored with them and the result is
    /// ``FirebaseMFAWithdrawal/renewed(_:)``. Identity Platform may answer without tokens (both are
    /// optional in its `WithdrawMfaResponse`): the factor is removed but the backend ended the
    /// user's session. As firebase-ios-sdk, the user is then signed out — the stored session is
    /// removed and `signedOut` is published through the ``SessionManager`` — and the result is
    /// ``FirebaseMFAWithdrawal/signedOut``; the withdrawal itself succeeded, so nothing is thrown.
    /// - Throws: ``AuthErrorCode/noSession`` when signed out; ``AuthErrorCode/invalidRequest`` for an
    ///   unknown enrollment (`MFA_ENROLLMENT_NOT_FOUND`); ID-token errors (which end the session as
    ///   for every token operation). Nothing was removed when it throws.
    @discardableResult
    public func withdrawMFA(enrollmentID: String) async throws -> FirebaseMFAWithdrawal {
        let session = try await validSession()
        let tokens = try await endingSessionOnDeadUser {
            try await provider.api.withdrawMFA(idToken: FirebaseProvider.idToken(of: session), enrollmentID: enrollmentID)
        }
        guard let tokens else {
            try await sessions.clear()
            return .signedOut
        }
        return .renewed(try await storeReplacement(for: session, tokens))
    }

    private func storeReplacement(for session: Session, _ tokens: FirebaseMFATokens) async throws -> Session {
        var renewed = try await provider.session(idToken: tokens.idToken, refreshToken: tokens.refreshToken, expiresIn: tokens.expiresIn,
                                                 uid: session.userID, receivedAt: provider.context.clock.now, accountKey: session.accountKey)
        renewed.issuedAt = session.issuedAt
        return try await sessions.store(renewed)
    }
}
