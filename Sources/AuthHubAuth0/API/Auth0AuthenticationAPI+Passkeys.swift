import AuthHub
import Foundation

extension Auth0AuthenticationAPI {
    /// Asks for a passkey login challenge (<doc:Auth0Endpoints>: “Passkeys”, `POST /passkey/challenge`).
    /// - Parameter origin: the client origin the assertion will carry; defaults to `https://<rpId>`.
    public func passkeyLoginChallenge(connection: String? = nil, organization: String? = nil, origin: String? = nil,
                                      options: Options = .none) async throws -> Auth0PasskeyLoginChallenge {
        let reply = try json(try await post("passkey/challenge", Self.body([
            "realm": connection.map(JSONValue.string), "organization": organization.map(JSONValue.string),
        ]), options: options, retry: .never))
        guard let parameters = reply["authn_params_public_key"] else {
            throw AuthError(.invalidRequest, message: "The passkey challenge from '\(api.provider)' has no authn_params_public_key.",
                            provider: api.provider)
        }
        return Auth0PasskeyLoginChallenge(
            authenticationSession: Secret(try required("auth_session", in: reply, of: "passkey challenge")),
            options: try PasskeyAssertionOptions(json: parameters, origin: origin))
    }

    /// Asks for a passkey signup challenge (<doc:Auth0Endpoints>: “Passkeys”, `POST /passkey/register`) for a new user
    /// described by `userProfile` (`email`, `phone_number`, `username`, `name`, …).
    public func passkeySignupChallenge(userProfile: [String: JSONValue], connection: String? = nil,
                                       organization: String? = nil, userMetadata: [String: JSONValue]? = nil,
                                       origin: String? = nil, options: Options = .none) async throws -> Auth0PasskeySignupChallenge {
        let reply = try json(try await post("passkey/register", Self.body([
            "user_profile": .object(userProfile), "realm": connection.map(JSONValue.string),
            "organization": organization.map(JSONValue.string), "user_metadata": userMetadata.map(JSONValue.object),
        ]), options: options, retry: .never))
        guard let parameters = reply["authn_params_public_key"] else {
            throw AuthError(.invalidRequest, message: "The passkey challenge from '\(api.provider)' has no authn_params_public_key.",
                            provider: api.provider)
        }
        return Auth0PasskeySignupChallenge(
            authenticationSession: Secret(try required("auth_session", in: reply, of: "passkey challenge")),
            options: try PasskeyRegistrationOptions(json: parameters, origin: origin))
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
        try await token(Self.body([
            "grant_type": .string(GrantType.webAuthn), "auth_session": .string(session.revealed()), "authn_response": response,
            "realm": connection.map(JSONValue.string), "audience": audience.map(JSONValue.string), "scope": .string(scope),
            "organization": organization.map(JSONValue.string),
        ]), options: options, retry: .never)
    }
}
