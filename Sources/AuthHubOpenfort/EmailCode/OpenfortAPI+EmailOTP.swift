import AuthHub
import Foundation

extension OpenfortAPI {
    // MARK: - Email OTP

    /// The `type` of an email OTP request (``OpenfortEmailOTPType``).
    package typealias EmailOTPType = OpenfortEmailOTPType

    /// Sends a one-time code: `POST /email-otp/send-verification-otp {email, type}`.
    /// - Returns: the reply's `success`.
    @discardableResult
    package func sendEmailOTP(email: String, type: EmailOTPType) async throws -> Bool {
        try await send(.post, "email-otp/send-verification-otp", body: OpenfortEmailOTPRequest(email: email, type: type.rawValue),
                       operation: Self.operation(type), as: OpenfortAcknowledgement.self)?.success ?? true
    }

    /// Signs in with an emailed code: `POST /sign-in/email-otp {email, otp}`.
    /// - Parameter bearer: a guest's session token, to upgrade that guest.
    package func signInWithEmailOTP(email: String, otp: Secret<String>, bearer: Secret<String>? = nil) async throws -> OpenfortAuthResponse {
        try await sendRequired(.post, "sign-in/email-otp", body: OpenfortEmailOTPRequest(email: email, otp: otp.revealed()),
                               bearer: bearer, retry: .never, operation: .signIn, as: OpenfortAuthResponse.self)
    }

    /// Verifies an email with an emailed code: `POST /email-otp/verify-email {email, otp}`.
    /// - Returns: the reply (a token when the server signs the user in).
    package func verifyEmailOTP(email: String, otp: Secret<String>, bearer: Secret<String>? = nil) async throws -> OpenfortAuthResponse {
        try await sendRequired(.post, "email-otp/verify-email", body: OpenfortEmailOTPRequest(email: email, otp: otp.revealed()),
                               bearer: bearer, retry: .never, operation: .emailVerification, as: OpenfortAuthResponse.self)
    }

    /// Checks a code without using it: `POST /email-otp/check-verification-otp {email, type, otp}`.
    package func checkEmailOTP(email: String, type: EmailOTPType, otp: Secret<String>) async throws -> Bool {
        try await send(.post, "email-otp/check-verification-otp",
                       body: OpenfortEmailOTPRequest(email: email, type: type.rawValue, otp: otp.revealed()),
                       retry: .never, operation: Self.operation(type), as: OpenfortAcknowledgement.self)?.success ?? false
    }
}

/// The `type` of an emailed one-time code (`POST /email-otp/send-verification-otp`).
public enum OpenfortEmailOTPType: String, Sendable, CaseIterable {
    /// A code to sign in with.
    case signIn = "sign-in"
    /// A code that verifies the signed-in user's email.
    case emailVerification = "email-verification"
    /// A code to reset the password with.
    case forgetPassword = "forget-password"
}
