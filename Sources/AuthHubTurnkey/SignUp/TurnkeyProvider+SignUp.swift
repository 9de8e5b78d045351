import AuthHub
import Foundation

extension TurnkeyProvider: PasskeySignUpProvider {
    /// Creates the user's sub-organization with a new passkey and signs in with it:
    /// 1. the email's format is checked, then the proxy lookup must find no account for it
    ///    (``AuthErrorCode/emailAlreadyInUse`` otherwise). The lookup is a courtesy check, made
    ///    before a passkey is created for nothing: a backend that serves only `createSubOrg` — as
    ///    Turnkey's own example backend does — answers it 404 or 405, which means "cannot check",
    ///    and sign-up goes on; a duplicate is then reported from `createSubOrg`'s own answer
    ///    (``AuthErrorCode/emailAlreadyInUse`` when it says the email exists). Other lookup
    ///    failures (network, 5xx, 401, …) stop the sign-up before any passkey is made;
    /// 2. the context's passkey authenticator makes a credential for the configured `rpId` (ES256,
    ///    resident key, a random 32-byte challenge and 16-byte user handle, the email as name);
    /// 3. `TurnkeyAPI.createSubOrganization(email:passkeyName:challenge:registration:)` registers it
    ///    through the app backend;
    /// 4. `stamp_login` into the new sub-organization, stamped with the passkey, gives the session.
    public func signUpWithPasskey(email rawEmail: String, displayName: String?) async throws -> Session {
        let email = rawEmail.trimmingCharacters(in: .whitespacesAndNewlines)
        try checkEmail(email)
        guard let authenticator = context.passkeyAuthenticator else {
            throw AuthError(.invalidConfiguration,
                            message: "Provider '\(id)' (turnkey) needs a passkey authenticator for sign-up: pass one as passkeyAuthenticator in the ProviderContext.",
                            provider: id)
        }
        do {
            _ = try await api.lookupSubOrganizations(email: email)
            throw AuthError(.emailAlreadyInUse, message: "A Turnkey account is already registered for this email.", provider: id)
        } catch let error as AuthError where error.code == .userNotFound {
            // No account yet: go on.
        } catch let error as AuthError where error.code != .emailAlreadyInUse && Self.lookupRouteIsMissing(error) {
            // The backend has no lookup route: createSubOrg's answer reports a duplicate.
            context.logger.debug("Turnkey sign-up: the app backend serves no sub-organization lookup; going on with createSubOrg",
                                 metadata: ["provider": "\(id)", "status": "\(error.statusCode ?? 0)"])
        }
        let challenge = context.random.bytes(32)
        let userHandle = context.random.bytes(16)
        guard challenge.count == 32, userHandle.count == 16 else {
            throw AuthError(.unknown, message: "The random source returned too few bytes.", provider: id)
        }
        let registration = try await authenticator.makeCredential(PasskeyRegistrationOptions(
            relyingParty: PasskeyRelyingParty(id: configuration.rpId, name: configuration.rpId),
            user: PasskeyUser(id: userHandle, name: email, displayName: displayName ?? email),
            challenge: challenge, algorithms: [.es256], residentKey: .required))
        let organizationId = try await api.createSubOrganization(email: email, passkeyName: "AuthHub passkey", challenge: challenge,
                                                                 registration: registration)
        let stamper = TurnkeyPasskeyStamper(authenticator: authenticator, relyingPartyID: configuration.rpId)
        return try await login(organizationId: organizationId, expectedOrganizationId: organizationId, stamper: stamper,
                               errorContext: .passkeyLogin)
    }

    /// Whether a failed lookup means the backend has no such route: HTTP 404 (Not Found) or 405
    /// (Method Not Allowed) — what a web framework answers for a path or method it does not serve.
    static func lookupRouteIsMissing(_ error: AuthError) -> Bool {
        error.statusCode == 404 || error.statusCode == 405
    }
}
