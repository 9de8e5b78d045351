import AuthHub
import AuthHubOIDC
import Foundation

/// Auth0's Authentication API (<doc:Auth0Endpoints>: “Conventions” and “Authentication API”), request for request as Auth0.swift sends
/// them: JSON bodies with `client_id`, the `Auth0-Client` header, `openid` ensured in login scopes,
/// caller parameters and headers merged last (caller values win).
///
/// Replies that fail become ``AuthError``s through the module's error mapper (<doc:Auth0Errors>); tokens come back as
/// ``Auth0Credentials`` with every token in a `Secret`.
public struct Auth0AuthenticationAPI: Sendable {
    /// The scope Auth0.swift v3 requests by default.
    public static let defaultScope = "openid profile email offline_access"
    /// The default database connection of signup and the DB-connection OTP.
    public static let defaultDatabaseConnection = "Username-Password-Authentication"

    /// Grant types (<doc:Auth0Endpoints>: “Authentication API”).
    public enum GrantType {
        public static let password = "password"
        public static let passwordRealm = "http://auth0.com/oauth/grant-type/password-realm"
        public static let passwordlessOTP = "http://auth0.com/oauth/grant-type/passwordless/otp"
        public static let refreshToken = "refresh_token"
        public static let authorizationCode = "authorization_code"
        public static let tokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
        public static let webAuthn = "urn:okta:params:oauth:grant-type:webauthn"
        public static let mfaOTP = "http://auth0.com/oauth/grant-type/mfa-otp"
        public static let mfaOOB = "http://auth0.com/oauth/grant-type/mfa-oob"
        public static let mfaRecoveryCode = "http://auth0.com/oauth/grant-type/mfa-recovery-code"
    }

    /// Extra body parameters and headers for one request; they win over AuthHub's values.
    public struct Options: Sendable {
        /// Merged into the JSON body (then `scope` is re-normalised to contain `openid` where the
        /// request ensures it).
        public var parameters: [String: JSONValue]
        /// Merged into the request's header fields (replacing fields of the same name).
        public var headerFields: HTTPFields

        /// Creates options.
        public init(parameters: [String: JSONValue] = [:], headerFields: HTTPFields = [:]) {
            self.parameters = parameters
            self.headerFields = headerFields
        }

        /// No extras.
        public static let none = Options()
    }

    /// The application's client ID.
    public let clientID: String
    /// The tenant's base URL (`https://tenant.auth0.com/`).
    public let baseURL: URL
    /// The telemetry sent as `Auth0-Client`; nil sends none.
    public let telemetry: Auth0Telemetry?
    /// Whether sign-ins bind the tokens to a new DPoP key (RFC 9449; the `dpop` setting).
    public var usesDPoP = false
    /// How a confidential application authenticates at the endpoints that authenticate the client
    /// (``clientAuthenticatedPaths``); nil: a public client.
    public var clientAuthentication: OIDCClientAuthentication?
    /// The endpoints where the client's authentication is added: `/oauth/token`, `/oauth/revoke`,
    /// `/oauth/par`, `/oauth/device/code`.
    public static let clientAuthenticatedPaths: Set<String> = ["oauth/token", "oauth/revoke", "oauth/par", "oauth/device/code"]
    let api: APIClient
    let clock: any AuthClock

    /// Creates a client.
    /// - Parameters:
    ///   - providerID: the provider id errors are attributed to.
    ///   - clientID: the Auth0 application's client ID.
    ///   - baseURL: the tenant's base URL (see `Auth0Configuration.baseURL`).
    ///   - context: transport, clock, randomness and logger.
    ///   - telemetry: the `Auth0-Client` value; nil disables the header.
    public init(providerID: String, clientID: String, baseURL: URL, context: ProviderContext,
                telemetry: Auth0Telemetry? = Auth0Telemetry()) {
        self.clientID = clientID
        self.baseURL = baseURL
        self.telemetry = telemetry
        self.clock = context.clock
        var headers: HTTPFields = [:]
        if let telemetry { headers[Auth0Telemetry.headerName] = telemetry.value }
        self.api = APIClient(provider: providerID, baseURL: baseURL, context: context, errorMapper: Auth0ErrorMapper(),
                             defaultHeaderFields: headers)
    }

    /// `"openid " + scope` when `scope` lacks the `openid` token; nil stays nil (<doc:Auth0Endpoints>: “Conventions”, the OIDC
    /// core's rule).
    public static func includeRequiredScope(_ scope: String?) -> String? {
        scope.map(OIDCAuthorizationRequest.includingOpenID)
    }

    // MARK: - Sending

    /// Sends a JSON POST built from `body` merged with `options` (caller wins).
    func post(_ path: String, _ body: [String: JSONValue], options: Options = .none, ensureOpenID: Bool = false,
              retry: APIRequest.RetryMode = .automatic, operation: AuthOperation) async throws -> HTTPReply {
        try await api.send(try request(path, body, options: options, ensureOpenID: ensureOpenID, retry: retry, operation: operation))
    }

    /// Sends a JSON POST built from a wire body merged with `options` (caller wins).
    func post<Body: Encodable>(_ path: String, _ body: Body, options: Options = .none, ensureOpenID: Bool = false,
                               retry: APIRequest.RetryMode = .automatic, operation: AuthOperation) async throws -> HTTPReply {
        try await post(path, try Self.members(body), options: options, ensureOpenID: ensureOpenID, retry: retry,
                       operation: operation)
    }

    /// Sends a JSON POST built from a wire body merged with `options` and decodes the reply.
    func post<Body: Encodable, Reply: Decodable>(_ path: String, _ body: Body, as reply: Reply.Type, options: Options = .none,
                                                 retry: APIRequest.RetryMode = .automatic,
                                                 operation: AuthOperation) async throws -> Reply {
        try await api.send(try request(path, try Self.members(body), options: options, ensureOpenID: false, retry: retry,
                                       operation: operation), as: reply)
    }

    func request(_ path: String, _ body: [String: JSONValue], options: Options, ensureOpenID: Bool,
                         retry: APIRequest.RetryMode, operation: AuthOperation) throws -> APIRequest {
        var merged = body.merging(options.parameters) { _, caller in caller }
        merged["client_id"] = merged["client_id"] ?? .string(clientID)
        if ensureOpenID, let scope = merged["scope"]?.stringValue {
            merged["scope"] = Self.includeRequiredScope(scope).map(JSONValue.string)
        }
        let authentication = Self.clientAuthenticatedPaths.contains(path) ? clientAuthentication : nil
        let (members, clientID, audience, clock, random, extra) = (merged, clientID, baseURL.absoluteString, clock, api.random, options.headerFields)
        // One assertion per attempt (its own jti): the server spends it even on a refused attempt.
        let build: @Sendable () throws -> (body: APIRequest.Body, headerFields: HTTPFields) = {
            var members = members
            var headers: HTTPFields = [:]
            try authentication?.apply(clientId: clientID, audience: audience, members: &members, headers: &headers, now: clock.now, random: random)
            headers.merge(extra)
            return (try APIRequest.json(.post, path, JSONValue.object(members)).body, headers)
        }
        let (body, headers) = try build()
        var request = APIRequest(.post, path, headerFields: headers, body: body, retry: retry, operation: operation)
        if case .privateKeyJWT = authentication { request.renewCredentials = build }
        return request
    }

    /// The members of a wire body, so that caller ``Options`` can be merged into them.
    static func members<Body: Encodable>(_ body: Body) throws -> [String: JSONValue] {
        do {
            return try JSONDecoder().decode([String: JSONValue].self, from: try JSONEncoder().encode(body))
        } catch {
            throw AuthError(.invalidRequest, message: "The request body could not be encoded.", underlying: error)
        }
    }

    /// Sends a token request and reads the credentials (`access_token` required, see ``OIDCTokenReply``).
    ///
    /// With a DPoP key — `dpopKey`, else a new one when ``usesDPoP`` — the request carries a proof
    /// (a server nonce asked for is sent on one retry) and a `DPoP` reply keeps the key in the
    /// credentials (``Auth0Credentials/dpopKey``).
    func token(_ body: Auth0TokenRequest, options: Options, ensureOpenID: Bool = true, retry: APIRequest.RetryMode = .automatic,
               operation: AuthOperation, extra: [String: JSONValue] = [:], dpopKey: DPoPKey? = nil) async throws -> Auth0Credentials {
        var members = try Self.members(body)
        for (key, value) in extra where members[key] == nil { members[key] = value }
        var request = try self.request("oauth/token", members, options: options, ensureOpenID: ensureOpenID, retry: retry,
                                       operation: operation)
        let key = dpopKey ?? (usesDPoP ? DPoPKey() : nil)
        request.dpop = key.map { DPoPProofing(key: $0) }
        let reply = try await api.send(request, as: OIDCTokenReply.self)
        do {
            var credentials = try Auth0Credentials(reply, now: clock.now, provider: api.provider)
            credentials.dpopKey = try DPoPKey.binding(tokenType: credentials.tokenType, sent: key, provider: api.provider)
            return credentials
        } catch let error as AuthError {
            throw error.with(details: error.details.merging(["operation": operation.rawValue]) { old, _ in old })
        }
    }

    // MARK: - Logins (AuthHubAuth0 docs, Auth0Endpoints: “Authentication API”)

    /// Resource-owner password login: `password-realm` when `realm` is given, else the tenant's
    /// default directory (`password`).
    /// - Parameter dpopKey: bind the tokens to this key (else a new one when ``usesDPoP``).
    public func login(usernameOrEmail: String, password: Secret<String>, realm: String? = nil, audience: String? = nil,
                      scope: String = defaultScope, options: Options = .none, dpopKey: DPoPKey? = nil) async throws -> Auth0Credentials {
        try await token(Auth0TokenRequest(grantType: realm == nil ? GrantType.password : GrantType.passwordRealm,
                                          username: usernameOrEmail, password: password.revealed(), realm: realm,
                                          audience: audience, scope: scope),
                        options: options, retry: .never, operation: .signIn, dpopKey: dpopKey)
    }

    /// Exchanges an authorization code from Web Auth (<doc:Auth0Endpoints>: “Code exchange”).
    /// - Parameter dpopKey: the key whose thumbprint the authorization request sent as `dpop_jkt`.
    public func exchange(code: Secret<String>, codeVerifier: Secret<String>, redirectURI: String,
                         options: Options = .none, dpopKey: DPoPKey? = nil) async throws -> Auth0Credentials {
        try await token(Auth0TokenRequest(grantType: GrantType.authorizationCode, code: code.revealed(),
                                          codeVerifier: codeVerifier.revealed(), redirectURI: redirectURI),
                        options: options, ensureOpenID: false, retry: .never, operation: .tokenExchange, dpopKey: dpopKey)
    }

    /// Renews with a refresh token (<doc:Auth0Endpoints>: “Refresh”): without `audience` the scope is sent exactly as
    /// given; with one, `openid` is ensured so an ID token comes back.
    /// - Parameter dpopKey: the key a DPoP-bound refresh token is bound to (the session's).
    public func renew(refreshToken: Secret<String>, scope: String? = nil, audience: String? = nil,
                      options: Options = .none, dpopKey: DPoPKey? = nil) async throws -> Auth0Credentials {
        try await token(Auth0TokenRequest(grantType: GrantType.refreshToken,
                                          audience: audience,
                                          scope: audience == nil ? scope : Self.includeRequiredScope(scope ?? "openid"),
                                          refreshToken: refreshToken.revealed()),
                        options: options, ensureOpenID: audience != nil, operation: .refresh, dpopKey: dpopKey)
    }

    /// Revokes a refresh token (<doc:Auth0Endpoints>: “Authentication API”); the reply has no body.
    public func revoke(refreshToken: Secret<String>, options: Options = .none) async throws {
        _ = try await post("oauth/revoke", Auth0RevokeRequest(token: refreshToken.revealed()), options: options, operation: .signOut)
    }

    /// Exchanges a refresh token for a session transfer token (<doc:Auth0Endpoints>: “Session transfer”): a refresh-token grant
    /// with the audience `urn:<domain host>:session_transfer`.
    public func ssoExchange(refreshToken: Secret<String>, options: Options = .none) async throws -> Auth0Credentials {
        try await token(Auth0TokenRequest(grantType: GrantType.refreshToken, audience: "urn:\(baseURL.host ?? ""):session_transfer",
                                          refreshToken: refreshToken.revealed()),
                        options: options, ensureOpenID: false, operation: .tokenExchange)
    }

    /// The user's profile from `/userinfo` (<doc:Auth0Endpoints>: “Authentication API”); the reply must carry `sub`.
    /// - Parameter dpopKey: the key a `DPoP` access token is bound to (a proof with `ath` goes along).
    public func userInfo(accessToken: Secret<String>, tokenType: String = "Bearer", dpopKey: DPoPKey? = nil) async throws -> UserInfo {
        var request = APIRequest(.get, "userinfo", operation: .userInfo)
        request.headerFields[.authorization] = "\(tokenType) \(accessToken.revealed())"
        request.dpop = dpopKey.map { DPoPProofing(key: $0, accessToken: accessToken) }
        return try await api.send(request, as: Auth0UserInfoReply.self).userInfo
    }

    /// The tenant's signing keys (`/.well-known/jwks.json`), as published (a JWKS is handed on as is).
    public func jwks() async throws -> JSONValue {
        try await api.send(APIRequest(.get, ".well-known/jwks.json", operation: .keys), as: JSONValue.self)
    }
}
