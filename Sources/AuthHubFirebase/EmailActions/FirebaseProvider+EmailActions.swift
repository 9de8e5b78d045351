import AuthHub
import Foundation

extension FirebaseProvider: EmailActionProvider {
    /// `accounts:resetPassword {oobCode, newPassword}`; the code alone identifies the account.
    public func confirmPasswordReset(email: String?, code: Secret<String>, newPassword: Secret<String>) async throws {
        _ = try await confirmPasswordReset(code: code, newPassword: newPassword)
    }

    /// `accounts:sendOobCode {requestType: VERIFY_EMAIL, idToken}`.
    public func sendEmailVerification(_ session: Session) async throws {
        try await sendEmailVerification(session, continueURL: nil, locale: nil)
    }

    /// `accounts:update {oobCode}` (applying the verification code).
    public func confirmEmailVerification(code: Secret<String>, session: Session?) async throws {
        _ = try await applyActionCode(code)
    }
}
