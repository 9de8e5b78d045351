import AuthHub
import Foundation

extension OpenfortProvider: EmailActionProvider {
    /// With `email`, the emailed code of an OTP reset (`POST /email-otp/reset-password`); without,
    /// the token of the reset link that ``sendPasswordReset(email:)`` sends (`POST /reset-password`).
    public func confirmPasswordReset(email: String?, code: Secret<String>, newPassword: Secret<String>) async throws {
        if let email {
            try await resetPassword(email: email, otp: code, newPassword: newPassword)
        } else {
            try await resetPassword(token: code, newPassword: newPassword)
        }
    }

    /// `POST /send-verification-email` for the session's email (read from the user when the
    /// session's claims lack it).
    public func sendEmailVerification(_ session: Session) async throws {
        var email = session.claims["email"]?.stringValue
        if email == nil { email = try await userInfo(session).email }
        guard let email else {
            throw AuthError(.invalidRequest, message: "The signed-in user has no email address to verify.", provider: id)
        }
        try await requestEmailVerification(email: email)
    }

    /// `GET /verify-email?token=…` with the link's token.
    public func confirmEmailVerification(code: Secret<String>, session: Session?) async throws {
        _ = try await verifyEmail(token: code, session: session)
    }
}
