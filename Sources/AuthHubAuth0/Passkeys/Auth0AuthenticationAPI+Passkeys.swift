import AuthHub
import Foundation

extension Auth0AuthenticationAPI {
    /// Asks for a passkey login challenge (<doc:Auth0Endpoints>: “Passkeys”, `POST /passkey/challenge`).
    /// - Parameter origin: the client origin the assertion will carry; defaults to `https://<rpId>`.
    public func passkeyLoginChallenge(connection: String? = nil, organization: String? = nil, origin: String? = nil,
                                      options: Options = .none) async throws -> Auth0PasskeyLoginChallenge {
        let reply = try await post("passkey/challenge", Auth0PasskeyChallengeRequest(realm: connection, organization: organization),
                                   as: Auth0PasskeyChallengeReply.self, options: options, retry: .never, operation: .signIn)
        return Auth0PasskeyLoginChallenge(authenticationSession: Secret(reply.authSession),
                                          options: try PasskeyAssertionOptions(json: reply.publicKeyOptions, origin: origin))
    }

    /// Asks for a passkey signup challenge (<doc:Auth0Endpoints>: “Passkeys”, `POST /passkey/register`) for a new user
    /// described by `userProfile` (`email`, `phone_number`, `username`, `name`, …).
    public func passkeySignupChallenge(userProfile: [String: JSONValue], connection: String? = nil,
                                       organization: String? = nil, userMetadata: [String: JSONValue]? = nil,
                                       origin: String? = nil, options: Options = .none) async throws -> Auth0PasskeySignupChallenge {
        let reply = try await post("passkey/register",
                                   Auth0PasskeyChallengeRequest(userProfile: userProfile, realm: connection, organization: organization,
                                                                userMetadata: userMetadata),
                                   as: Auth0PasskeyChallengeReply.self, options: options, retry: .never, operation: .signUp)
        return Auth0PasskeySignupChallenge(authenticationSession: Secret(reply.authSession),
                                           options: try PasskeyRegistrationOptions(json: reply.publicKeyOptions, origin: origin))
    }

    /// Completes a passkey login: the assertion goes as `authn_response` with the `auth_session`.
    public func login(passkey assertion: PasskeyAssertion, challenge: Auth0PasskeyLoginChallenge, connection: String? = nil,
                      audience: String? = nil, scope: String = defaultScope, organization: String? = nil,
                      options: Options = .none) async throws -> Auth0Credentials {
        try await completePasskey(assertion.json, session: challenge.authenticationSession, connection: connection,
                                  audience: audience, scope: scope, organization: organization, options: options)
    }

    /// Completes a passkey signup: the attestation goes as `authn_response` with the `auth_session`.
    public func signup(passkey registration: PasskeyRegistration, challenge: Auth0PasskeySignupChallenge,
                       connection: String? = nil, audience: String? = nil, scope: String = defaultScope,
                       organization: String? = nil, options: Options = .none) async throws -> Auth0Credentials {
        try await completePasskey(registration.json, session: challenge.authenticationSession, connection: connection,
                                  audience: audience, scope: scope, organization: organization, options: options)
    }

    private func completePasskey(_ response: JSONValue, session: Secret<String>, connection: String?, audience: String?,
                                 scope: String, organization: String?, options: Options) async throws -> Auth0Credentials {
        try await token(Auth0TokenRequest(grantType: GrantType.webAuthn, realm: connection, audience: audience, scope: scope,
                                          authSession: session.revealed(), authnResponse: response, organization: organization),
                        options: options, retry: .never, operation: .signIn)
    }
}
