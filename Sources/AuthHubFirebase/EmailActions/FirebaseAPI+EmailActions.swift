import AuthHub
import Foundation

extension FirebaseAPI {
    // MARK: - Email actions (AuthHubFirebase docs, FirebaseEndpoints: “Email action codes” and “Reset password”)

    /// Sends a password-reset email (`sendOobCode`, `requestType: PASSWORD_RESET`).
    /// - Parameters:
    ///   - continueURL: where the email's link continues to (`continueUrl`), if any.
    ///   - locale: the language of the email (`X-Firebase-Locale`), if any.
    /// - Returns: the email the reply names.
    @discardableResult
    package func sendPasswordResetEmail(email: String, continueURL: String? = nil, locale: String? = nil) async throws -> String? {
        try await accounts("sendOobCode", FirebaseOobCodeRequest(requestType: "PASSWORD_RESET", email: email, continueUrl: continueURL,
                                                                 tenantId: tenant),
                           as: FirebaseEmailReply.self, operation: .passwordReset, headerFields: Self.localeHeader(locale)).email
    }

    /// Sends the signed-in user an email-verification link (`sendOobCode`, `requestType:
    /// VERIFY_EMAIL` with the ID token; the address comes from the token's user).
    @discardableResult
    package func sendEmailVerification(idToken: Secret<String>, continueURL: String? = nil, locale: String? = nil) async throws -> String? {
        try await accounts("sendOobCode", FirebaseOobCodeRequest(requestType: "VERIFY_EMAIL", idToken: idToken.revealed(),
                                                                 continueUrl: continueURL, tenantId: tenant),
                           as: FirebaseEmailReply.self, operation: .emailVerification, headerFields: Self.localeHeader(locale)).email
    }

    /// Sends a link to `newEmail` that changes the signed-in user's email once followed
    /// (`sendOobCode`, `requestType: VERIFY_AND_CHANGE_EMAIL`) — the way to change an email in
    /// projects with email-enumeration protection.
    @discardableResult
    package func sendVerifyAndChangeEmail(idToken: Secret<String>, newEmail: String, continueURL: String? = nil,
                                         locale: String? = nil) async throws -> String? {
        try await accounts("sendOobCode", FirebaseOobCodeRequest(requestType: "VERIFY_AND_CHANGE_EMAIL", idToken: idToken.revealed(),
                                                                 newEmail: newEmail, continueUrl: continueURL, tenantId: tenant),
                           as: FirebaseEmailReply.self, operation: .emailVerification, headerFields: Self.localeHeader(locale)).email
    }

    /// Checks a password-reset code without using it (`resetPassword {oobCode}`).
    /// - Returns: the account's email and the code's request type.
    /// - Throws: ``AuthErrorCode/expiredActionCode``, ``AuthErrorCode/invalidActionCode``, …
    package func verifyPasswordResetCode(_ code: Secret<String>) async throws -> FirebaseActionCodeInfo {
        try await accounts("resetPassword", FirebaseResetPasswordRequest(oobCode: code.revealed(), tenantId: tenant),
                           as: FirebaseActionCodeInfo.self, operation: .passwordReset, retry: .idempotent)
    }

    /// Sets a new password with a password-reset code (`resetPassword {oobCode, newPassword}`).
    /// Returns no tokens: sign in again with the new password.
    package func confirmPasswordReset(code: Secret<String>, newPassword: Secret<String>) async throws -> FirebaseActionCodeInfo {
        try await accounts("resetPassword", FirebaseResetPasswordRequest(oobCode: code.revealed(), newPassword: newPassword.revealed(),
                                                                         tenantId: tenant),
                           as: FirebaseActionCodeInfo.self, operation: .passwordReset, retry: .never)
    }
}
