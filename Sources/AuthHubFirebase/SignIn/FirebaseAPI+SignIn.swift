import AuthHub
import Foundation

extension FirebaseAPI {
    // MARK: - Sign-up and sign-in (AuthHubFirebase docs, FirebaseEndpoints: “Sign-up” and “Password sign-in”)

    /// Creates an email/password user (`accounts:signUp`).
    /// - Returns: the new user's tokens.
    /// - Throws: `EMAIL_EXISTS` → ``AuthErrorCode/emailAlreadyInUse``, `WEAK_PASSWORD` →
    ///   ``AuthErrorCode/weakPassword`` (with the rule as message), … (see ``FirebaseErrorMapper``).
    package func signUp(email: String, password: Secret<String>, displayName: String? = nil) async throws -> FirebaseTokenResponse {
        try await accounts("signUp", FirebaseSignUpRequest(email: email, password: password.revealed(), displayName: displayName,
                                                           tenantId: tenant),
                           as: FirebaseTokenResponse.self, operation: .signUp, retry: .never)
    }

    /// Signs in with email and password (`accounts:signInWithPassword`).
    /// - Throws: ``AuthErrorCode/mfaRequired`` when the user has a second factor: the reply's
    ///   `mfaPendingCredential` is ``MFARequirement/token`` and the factor kinds of `mfaInfo[]`
    ///   (`phone`, `totp`) are its ``MFARequirement/challengeTypes``; every entry with an
    ///   `mfaEnrollmentId` is one of its ``MFARequirement/enrolledFactors`` (id, kind, `displayName`),
    ///   in the reply's order (the ids also in `details["mfaEnrollmentIds"]`, comma-separated, and
    ///   the reply's `localId` in `details["localId"]`); `INVALID_LOGIN_CREDENTIALS` /
    ///   `INVALID_PASSWORD` → ``AuthErrorCode/invalidCredentials``; …
    package func signInWithPassword(email: String, password: Secret<String>) async throws -> FirebaseTokenResponse {
        let reply = try await accounts("signInWithPassword",
                                       FirebasePasswordSignInRequest(email: email, password: password.revealed(), tenantId: tenant),
                                       as: FirebasePasswordSignInReply.self, operation: .signIn, retry: .never)
        switch reply {
        case .tokens(let tokens): return tokens
        case .mfaRequired(let pending): throw Self.mfaRequired(pending, provider: provider)
        }
    }

    /// The ``AuthErrorCode/mfaRequired`` error of a sign-in reply that asks for a second factor.
    static func mfaRequired(_ reply: FirebaseMFAPendingReply, provider: String) -> AuthError {
        let enrollments = reply.mfaInfo
        var kinds: [String] = []
        for factor in enrollments.map(\.factor) where !kinds.contains(factor) { kinds.append(factor) }
        var details: [String: String] = ["mfaEnrollmentIds": enrollments.map(\.enrollmentID).joined(separator: ",")]
        if let email = reply.email { details["email"] = email }
        if let uid = reply.localId { details["localId"] = uid }
        let factors = enrollments.filter { !$0.enrollmentID.isEmpty }.map {
            MFARequirement.EnrolledFactor(id: $0.enrollmentID, kind: $0.factor, displayName: $0.displayName)
        }
        return AuthError(.mfaRequired, message: "A second factor is required to finish signing in.", provider: provider,
                         statusCode: 200, mfa: MFARequirement(token: Secret(reply.mfaPendingCredential), challengeTypes: kinds,
                                                              enrolledFactors: factors),
                         details: details)
    }
}
