import Foundation

/// A provider whose emailed codes can be completed from the app: a password reset finished with
/// the reset message's code, and email verification sent and confirmed. (Starting a reset is
/// ``AuthProvider/sendPasswordReset(email:)``, for every provider.)
///
/// Firebase and Openfort implement it. Auth0 does not: its reset and verification links complete
/// on Auth0's own hosted pages.
public protocol EmailActionProvider: AuthProvider {
    /// Sets a new password with the code (or link token) from a password-reset message.
    /// - Parameters:
    ///   - email: the account's address, for providers whose reset codes are per address (an
    ///     Openfort email OTP); nil for a code that stands alone (Firebase `oobCode`, Openfort link token).
    ///   - code: the code or link token from the message.
    ///   - newPassword: the new password.
    /// - Throws: the provider's errors for a wrong, used or expired code and a weak password.
    func confirmPasswordReset(email: String?, code: Secret<String>, newPassword: Secret<String>) async throws

    /// Sends the signed-in user a message to verify their email address.
    func sendEmailVerification(_ session: Session) async throws

    /// Verifies the email address with the code (or link token) from that message.
    /// - Parameter session: the signed-in user's session, when there is one.
    func confirmEmailVerification(code: Secret<String>, session: Session?) async throws
}
