import AuthHub
import Foundation

/// Auth0's My Account API (<doc:Auth0Endpoints>: “My Account API”): the signed-in user's authentication methods and
/// factors, and enrollment of new ones.
///
/// Every call asks ``tokenProvider`` for an access token with the scope its endpoint needs
/// (<doc:Auth0Endpoints>: “Scopes”): by default ``Auth0CredentialsManager/apiCredentials(forAudience:scope:minTTL:)`` for
/// the audience `https://<domain>/me/`, so tokens are exchanged and cached per scope.
public struct Auth0MyAccountAPI: Sendable {
    /// Supplies an access token for the My Account audience with `scope`.
    public typealias TokenProvider = Auth0APITokenProvider

    /// Scopes per endpoint (<doc:Auth0Endpoints>: “Scopes”).
    public enum Scope {
        public static let create = "create:me:authentication_methods"
        public static let read = "read:me:authentication_methods"
        public static let update = "update:me:authentication_methods"
        public static let delete = "delete:me:authentication_methods"
        public static let readFactors = "read:me:factors"
    }

    /// The audience of My Account tokens: `https://<domain>/me/`.
    public var audience: String { client.audience }
    /// Where tokens come from.
    public var tokenProvider: TokenProvider { client.tokenProvider }
    let client: Auth0BearerClient
    var api: APIClient { client.api }

    /// Creates a client with your own token source.
    public init(provider: Auth0Provider, tokenProvider: @escaping TokenProvider) {
        client = Auth0BearerClient(provider: provider, audiencePath: "me/", errorMapper: Auth0MyAccountErrorMapper(),
                                   tokenProvider: tokenProvider)
    }

    /// Creates a client whose tokens come from a credentials manager (exchanged with the refresh token).
    public init(provider: Auth0Provider, credentials: Auth0CredentialsManager) {
        self.init(provider: provider, tokenProvider: Auth0BearerClient.tokens(from: credentials, audience: Auth0BearerClient.audience(provider, "me/")))
    }

    static func methodPath(_ id: String) -> String {
        "me/v1/authentication-methods/" + FormEncoding.escape(id)
    }

    // MARK: - Methods and factors (AuthHubAuth0 docs, Auth0Endpoints: “Endpoints”)

    /// The user's authentication methods, optionally of one `type`.
    public func authenticationMethods(type: String? = nil) async throws -> [Auth0AuthenticationMethod] {
        let reply = try await client.send(.get, "me/v1/authentication-methods", scope: Scope.read,
                                          query: type.map { [("type", $0)] } ?? [])
        return try client.decode(reply, as: Auth0AuthenticationMethodList.self).authenticationMethods ?? []
    }

    /// One authentication method.
    public func authenticationMethod(id: String) async throws -> Auth0AuthenticationMethod {
        try client.decode(try await client.send(.get, Self.methodPath(id), scope: Scope.read),
                   as: Auth0AuthenticationMethod.self)
    }

    /// Renames a method or changes a phone's preferred method (`sms` or `voice`).
    public func updateAuthenticationMethod(id: String, name: String? = nil,
                                           preferredAuthenticationMethod: String? = nil) async throws -> Auth0AuthenticationMethod {
        let body = Auth0AuthenticationMethodUpdate(name: name, preferredAuthenticationMethod: preferredAuthenticationMethod)
        return try client.decode(try await client.send(.patch, Self.methodPath(id), scope: Scope.update, body: body),
                          as: Auth0AuthenticationMethod.self)
    }

    /// Deletes a method (204).
    public func deleteAuthenticationMethod(id: String) async throws {
        _ = try await client.send(.delete, Self.methodPath(id), scope: Scope.delete)
    }

    /// The factor types enabled for the tenant: `[(type, usage)]`.
    public func factors() async throws -> [(type: String, usage: [String])] {
        let reply = try await client.send(.get, "me/v1/factors", scope: Scope.readFactors)
        return (try client.decode(reply, as: Auth0FactorList.self).factors ?? []).compactMap { entry in entry.type.map { ($0, entry.usage) } }
    }

    // MARK: - Enrollment (AuthHubAuth0 docs, Auth0Endpoints: “Starting an enrollment” and “Confirming an enrollment”)

    /// Starts an enrollment. The method id comes from the `Location` header (required).
    /// - Parameter origin: for passkeys, the client origin (defaults to `https://<rp id>`).
    /// - Throws: ``AuthErrorCode/invalidRequest`` for a reply without `Location` or `auth_session`.
    public func startEnrollment(_ request: Auth0EnrollmentRequest, origin: String? = nil) async throws -> Auth0EnrollmentChallenge {
        if case .passkey(_, let connection?) = request { try Self.checkConnection(connection) }
        if case .password(_, let connection?) = request { try Self.checkConnection(connection) }
        let reply = try await client.send(.post, "me/v1/authentication-methods", scope: Scope.create,
                                          body: Auth0EnrollmentStartRequest(request))
        guard let location = reply.headerFields[.location], let last = location.split(separator: "/").last,
              let methodID = String(last).removingPercentEncoding, !methodID.isEmpty else {
            throw AuthError(.invalidRequest, message: "The enrollment reply has no Location header.", provider: api.provider)
        }
        let json = try client.decode(reply, as: Auth0EnrollmentStartReply.self)
        let prompt: Auth0EnrollmentChallenge.Prompt
        switch request {
        case .passkey:
            guard let options = json.publicKeyOptions else {
                throw AuthError(.invalidRequest, message: "The passkey enrollment reply has no authn_params_public_key.", provider: api.provider)
            }
            prompt = .passkey(try PasskeyRegistrationOptions(json: options, origin: origin))
        case .totp, .pushNotification:
            guard let uri = json.barcodeURI else {
                throw AuthError(.invalidRequest, message: "The enrollment reply has no barcode_uri.", provider: api.provider)
            }
            prompt = .qrCode(uri: Secret(uri), manualInputCode: json.manualInputCode.map(Secret.init))
        case .email, .phone: prompt = .codeSent
        case .recoveryCode:
            guard let code = json.recoveryCode else {
                throw AuthError(.invalidRequest, message: "The enrollment reply has no recovery_code.", provider: api.provider)
            }
            prompt = .recoveryCode(Secret(code))
        case .password: prompt = .password(policy: json.policy)
        }
        return Auth0EnrollmentChallenge(methodID: methodID, authSession: Secret(json.authSession), prompt: prompt)
    }

    /// Confirms an enrollment with the user's response and returns the new method.
    public func confirmEnrollment(_ challenge: Auth0EnrollmentChallenge,
                                  response: Auth0EnrollmentResponse) async throws -> Auth0AuthenticationMethod {
        try await confirmEnrollment(methodID: challenge.methodID, authSession: challenge.authSession, response: response)
    }

    /// ``confirmEnrollment(_:response:)`` with the two values the verification needs (what the
    /// hub's account API keeps between the two halves).
    func confirmEnrollment(methodID: String, authSession: Secret<String>,
                           response: Auth0EnrollmentResponse) async throws -> Auth0AuthenticationMethod {
        var body = Auth0EnrollmentVerifyRequest(authSession: authSession.revealed())
        switch response {
        case .code(let code): body.otpCode = code.revealed()
        case .passkey(let registration): body.authnResponse = registration.json
        case .password(let password): body.newPassword = password.revealed()
        case .none: break
        }
        let reply = try await client.send(.post, Self.methodPath(methodID) + "/verify", scope: Scope.create, body: body)
        return try client.decode(reply, as: Auth0AuthenticationMethod.self)
    }

    /// `connection` must match `^[a-zA-Z0-9-]+$` and be 1–128 characters (<doc:Auth0Endpoints>: “Starting an enrollment”).
    static func checkConnection(_ connection: String) throws {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-"))
        guard (1...128).contains(connection.count), connection.unicodeScalars.allSatisfy({ $0.isASCII && allowed.contains($0) }) else {
            throw AuthError(.invalidRequest, message: "A connection name is 1 to 128 letters, digits or hyphens.")
        }
    }
}

extension Auth0Provider {
    /// The My Account API of this tenant, with tokens exchanged by `credentials` per scope.
    public func myAccount(credentials: Auth0CredentialsManager) -> Auth0MyAccountAPI {
        Auth0MyAccountAPI(provider: self, credentials: credentials)
    }
}
