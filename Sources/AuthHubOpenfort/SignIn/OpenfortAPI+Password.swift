import AuthHub
import Foundation

extension OpenfortAPI {
    // MARK: - Email and password

    /// Creates an email/password user: `POST /sign-up/email`.
    /// - Parameters:
    ///   - name: required by the endpoint; the email when nil (as the SDK does).
    ///   - callbackURL: where the verification link leads, if verification is required.
    ///   - bearer: a guest's session token, to upgrade that guest.
    /// - Returns: the reply; its ``OpenfortAuthResponse/token`` is nil when verification is required.
    package func signUp(email: String, password: Secret<String>, name: String? = nil, callbackURL: String? = nil,
                       image: String? = nil, bearer: Secret<String>? = nil) async throws -> OpenfortAuthResponse {
        try await sendRequired(.post, "sign-up/email", body: OpenfortEmailSignUpRequest(
            email: email, password: password.revealed(), name: name ?? email, callbackURL: callbackURL, image: image),
                               bearer: bearer, retry: .never, operation: .signUp, as: OpenfortAuthResponse.self)
    }

    /// Signs in with email and password: `POST /sign-in/email`.
    package func signIn(email: String, password: Secret<String>, callbackURL: String? = nil) async throws -> OpenfortAuthResponse {
        try await sendRequired(.post, "sign-in/email", body: OpenfortEmailSignInRequest(email: email, password: password.revealed(),
                                                                                        callbackURL: callbackURL),
                               retry: .never, operation: .signIn, as: OpenfortAuthResponse.self)
    }

    /// Creates a guest user and session: `POST /sign-in/anonymous` (no body).
    package func signInAnonymously() async throws -> OpenfortAuthResponse {
        try await sendRequired(.post, "sign-in/anonymous", retry: .never, operation: .signIn, as: OpenfortAuthResponse.self)
    }
}
