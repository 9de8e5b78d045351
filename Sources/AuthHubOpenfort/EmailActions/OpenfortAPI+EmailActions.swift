import AuthHub
import Foundation

extension OpenfortAPI {
    // MARK: - Email verification and password reset

    /// Sends a verification link: `POST /send-verification-email {email, callbackURL?}`.
    @discardableResult
    package func sendVerificationEmail(email: String, callbackURL: String? = nil) async throws -> Bool {
        try await send(.post, "send-verification-email", body: OpenfortEmailLinkRequest(email: email, callbackURL: callbackURL),
                       operation: .emailVerification, as: OpenfortAcknowledgement.self)?.status ?? true
    }

    /// Verifies an email with the link's token: `GET /verify-email?token=…[&callbackURL=…]`.
    /// - Returns: the verified user, when the reply names one.
    @discardableResult
    package func verifyEmail(token: Secret<String>, callbackURL: String? = nil, bearer: Secret<String>? = nil) async throws -> OpenfortUser? {
        var query = [("token", token.revealed())]
        if let callbackURL { query.append(("callbackURL", callbackURL)) }
        return try await send(.get, "verify-email", query: query, bearer: bearer, retry: .never, operation: .emailVerification,
                              as: OpenfortVerifyEmailReply.self)?.user
    }

    /// Sends a password-reset link: `POST /request-password-reset {email, redirectTo?}`.
    @discardableResult
    package func requestPasswordReset(email: String, redirectTo: String? = nil) async throws -> Bool {
        try await send(.post, "request-password-reset", body: OpenfortEmailLinkRequest(email: email, redirectTo: redirectTo),
                       operation: .passwordReset, as: OpenfortAcknowledgement.self)?.status ?? true
    }

    /// Sets a new password with the reset link's token: `POST /reset-password {newPassword, token}`.
    package func resetPassword(token: Secret<String>, newPassword: Secret<String>) async throws {
        _ = try await send(.post, "reset-password", body: OpenfortResetPasswordRequest(newPassword: newPassword.revealed(), token: token.revealed()),
                           retry: .never, operation: .passwordReset, as: OpenfortAcknowledgement.self)
    }

    /// Sends a password-reset code: `POST /forget-password/email-otp {email}`.
    @discardableResult
    package func requestPasswordResetOTP(email: String) async throws -> Bool {
        try await send(.post, "forget-password/email-otp", body: OpenfortEmailLinkRequest(email: email), operation: .passwordReset,
                       as: OpenfortAcknowledgement.self)?.success ?? true
    }

    /// Sets a new password with an emailed code: `POST /email-otp/reset-password {email, otp, password}`.
    package func resetPassword(email: String, otp: Secret<String>, newPassword: Secret<String>) async throws {
        _ = try await send(.post, "email-otp/reset-password",
                           body: OpenfortEmailOTPRequest(email: email, otp: otp.revealed(), password: newPassword.revealed()),
                           retry: .never, operation: .passwordReset, as: OpenfortAcknowledgement.self)
    }

    /// Changes (or adds) the signed-in user's email: `POST /change-email {newEmail, callbackURL?}`.
    /// - Returns: the reply's `message` (`Email updated` or `Verification email sent`).
    @discardableResult
    package func changeEmail(newEmail: String, callbackURL: String? = nil, bearer: Secret<String>) async throws -> String? {
        try await send(.post, "change-email", body: OpenfortChangeEmailRequest(newEmail: newEmail, callbackURL: callbackURL),
                       bearer: bearer, operation: .management, as: OpenfortAcknowledgement.self)?.message
    }
}
