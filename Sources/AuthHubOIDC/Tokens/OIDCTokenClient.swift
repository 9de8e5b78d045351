import AuthHub
import Foundation
import HTTPTypes

/// Talks to a token endpoint: the authorization code exchange (with PKCE) and the refresh grant.
///
/// Requests go through the core ``APIClient`` (timeouts, logging with secrets redacted, error
/// mapping). A code exchange is never retried, since the code is single use.
public struct OIDCTokenClient: Sendable {
    /// How the body of a token request is encoded.
    public enum BodyEncoding: Sendable {
        /// `application/x-www-form-urlencoded`, as RFC 6749 requires (the generic OIDC default).
        case form
        /// `application/json`, as the Auth0 SDK sends every request (AuthHubAuth0 docs, Auth0Endpoints: “Conventions”).
        case json
    }

    /// The client that sends the requests (its base URL resolves a relative ``tokenEndpoint``).
    public var api: APIClient
    /// The token endpoint: a path relative to the API client's base URL or an absolute URL.
    public var tokenEndpoint: String
    /// The client ID, sent in the body of every request.
    public var clientId: String
    /// A confidential client's secret, sent as HTTP Basic authentication (`client_secret_basic`)
    /// unless ``clientAuthentication`` says otherwise.
    public var clientSecret: Secret<String>?
    /// How the client authenticates at the token, device authorization, PAR and revocation
    /// endpoints; nil: `client_secret_basic` with ``clientSecret`` when there is one, else none.
    public var clientAuthentication: OIDCClientAuthentication?
    /// The `aud` of `private_key_jwt` assertions: the issuer identifier (nil: the token endpoint's
    /// URL). Ignored when ``assertionAudiencePerEndpoint``.
    public var assertionAudience: String?
    /// Whether each assertion's `aud` is the URL of the endpoint it is sent to
    /// (``ClientAssertionAudience/endpoint``) instead of ``assertionAudience``.
    public var assertionAudiencePerEndpoint = false
    /// The body encoding.
    public var bodyEncoding: BodyEncoding
    /// The DPoP key every token request proves (RFC 9449); nil sends no proof. A `DPoP` reply
    /// carries it in ``OIDCTokenResponse/dpopKey``.
    public var dpopKey: DPoPKey?

    /// Creates a token client.
    /// - Parameters:
    ///   - api: the API client (its clock also dates `expires_in`).
    ///   - tokenEndpoint: e.g. `/oauth/token` or the discovered `token_endpoint`.
    ///   - clientId: the registered client ID.
    ///   - clientSecret: the secret of a confidential client; nil for a public client.
    ///   - bodyEncoding: form (default) or JSON.
    public init(api: APIClient, tokenEndpoint: String, clientId: String, clientSecret: Secret<String>? = nil,
                bodyEncoding: BodyEncoding = .form, dpopKey: DPoPKey? = nil,
                clientAuthentication: OIDCClientAuthentication? = nil, assertionAudience: String? = nil) {
        self.dpopKey = dpopKey
        self.clientAuthentication = clientAuthentication
        self.assertionAudience = assertionAudience
        self.api = api
        self.tokenEndpoint = tokenEndpoint
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.bodyEncoding = bodyEncoding
    }

    /// Exchanges an authorization code: `POST` with `client_id`, `grant_type=authorization_code`,
    /// `code`, `code_verifier` and `redirect_uri`.
    /// - Parameters:
    ///   - code: the code from the callback.
    ///   - codeVerifier: the transaction's PKCE verifier.
    ///   - redirectURI: the same absolute string that the authorization request sent.
    /// - Returns: the tokens.
    /// - Throws: the mapped token endpoint error (see ``OAuthErrorMapper``), or
    ///   ``AuthErrorCode/invalidRequest`` for a reply that is not a JSON object.
    public func exchange(code: Secret<String>, codeVerifier: Secret<String>, redirectURI: String) async throws -> OIDCTokenResponse {
        let body = OIDCTokenRequest(clientID: clientId, grantType: "authorization_code", code: code.revealed(),
                                    codeVerifier: codeVerifier.revealed(), redirectURI: redirectURI)
        return try await send(body, retry: .never, operation: .tokenExchange)
    }

    /// Exchanges the code of a callback for the transaction it belongs to.
    /// - Parameters:
    ///   - response: the parsed callback.
    ///   - transaction: the transaction the callback was parsed with.
    public func exchange(_ response: OIDCAuthorizationResponse, of transaction: OIDCAuthorizationTransaction) async throws -> OIDCTokenResponse {
        try await exchange(code: response.code, codeVerifier: transaction.codeVerifier, redirectURI: transaction.redirectURI)
    }

    /// Renews tokens: `POST` with `client_id`, `grant_type=refresh_token`, `refresh_token` and,
    /// when given, `scope` (sent exactly as given).
    /// - Parameters:
    ///   - refreshToken: the refresh token.
    ///   - scope: a narrower scope, or nil.
    public func refresh(refreshToken: Secret<String>, scope: String? = nil) async throws -> OIDCTokenResponse {
        let body = OIDCTokenRequest(clientID: clientId, grantType: "refresh_token", refreshToken: refreshToken.revealed(),
                                    scope: scope)
        return try await send(body, retry: .never, operation: .refresh)
    }

    /// The `grant_type` of the device authorization grant (RFC 8628, section 3.4).
    public static let deviceCodeGrantType = "urn:ietf:params:oauth:grant-type:device_code"

    /// Asks a device authorization endpoint for a code (RFC 8628, section 3.1): `POST`, form-encoded,
    /// with `client_id`, `scope` and, when given, `audience` and further parameters. Never retried:
    /// each request issues a new code.
    /// - Parameters:
    ///   - endpoint: the discovered `device_authorization_endpoint`, or a path such as `/oauth/device/code`.
    ///   - scope: the scopes to ask for.
    ///   - parameters: further form fields (`audience`, …).
    /// - Throws: mapped provider errors; ``AuthErrorCode/invalidRequest`` for a malformed reply (see
    ///   ``DeviceAuthorization``).
    public func requestDeviceAuthorization(endpoint: String, scope: String, parameters: [(String, String)] = []) async throws -> DeviceAuthorization {
        let fields = ([("client_id", clientId), ("scope", scope)] + parameters).filter { !$0.1.isEmpty }
        let request = try authenticatedForm(endpoint, fields, retry: .never, operation: .signIn)
        let reply = try await api.send(request, as: OIDCDeviceAuthorizationReply.self)
        return try DeviceAuthorization(deviceCode: reply.deviceCode, userCode: reply.userCode, verificationURI: reply.verificationURI,
                                       verificationURIComplete: reply.verificationURIComplete, expiresIn: reply.expiresIn,
                                       interval: reply.interval, now: api.clock.now, provider: api.provider)
    }

    /// One poll of the token endpoint with a device code (RFC 8628, sections 3.4 and 3.5):
    /// `grant_type=urn:ietf:params:oauth:grant-type:device_code`, `device_code`, `client_id`.
    /// - Returns: nil for `authorization_pending` and `slow_down` (told apart by `slowDown`); the
    ///   tokens once the user approved.
    /// - Throws: ``AuthErrorCode/accessDenied`` for `access_denied`, ``AuthErrorCode/timeout`` for
    ///   `expired_token` (both keep the raw code in `providerCode`); other mapped errors.
    public func pollDeviceCode(_ deviceCode: Secret<String>) async throws -> DeviceTokenPoll {
        let body = OIDCTokenRequest(clientID: clientId, grantType: Self.deviceCodeGrantType, deviceCode: deviceCode.revealed())
        do {
            return .tokens(try await send(body, retry: .never, operation: .signIn))
        } catch let error as AuthError {
            switch error.providerCode {
            case "authorization_pending": return .pending
            case "slow_down": return .slowDown
            case "access_denied":
                throw error.with(code: .accessDenied, isRetryable: false)
            case "expired_token":
                throw AuthError(.timeout, message: "The code expired before the sign-in was approved; start again.",
                                provider: error.provider, providerCode: "expired_token", statusCode: error.statusCode, isRetryable: false)
            default: throw error
            }
        }
    }

    /// The outcome of one device-code poll.
    public enum DeviceTokenPoll: Sendable {
        case pending
        case slowDown
        case tokens(OIDCTokenResponse)
    }

    /// The client authentication in effect: ``clientAuthentication``, else `client_secret_basic`
    /// with ``clientSecret``, else none.
    public var effectiveClientAuthentication: OIDCClientAuthentication {
        clientAuthentication ?? clientSecret.map { .clientSecretBasic($0) } ?? .none
    }

    /// Adds the client's credentials to a form request (see ``OIDCClientAuthentication/apply(clientId:audience:fields:headers:now:random:)``).
    /// `endpoint` is where the request goes (a path of the API client's base URL or an absolute URL).
    func authenticate(_ fields: inout [(String, String)], _ headers: inout HTTPFields, endpoint: String) throws {
        let audience = assertionAudiencePerEndpoint ? absoluteURL(endpoint) : assertionAudience ?? absoluteURL(tokenEndpoint)
        try effectiveClientAuthentication.apply(clientId: clientId, audience: audience, fields: &fields,
                                                headers: &headers, now: api.clock.now, random: api.random)
    }

    /// A form POST to `endpoint` with the client's credentials added — and added anew for every
    /// retry (``APIRequest/renewCredentials``: a `private_key_jwt` assertion is single-use).
    func authenticatedForm(_ endpoint: String, _ fields: [(String, String)], retry: APIRequest.RetryMode,
                           operation: AuthOperation) throws -> APIRequest {
        let build: @Sendable () throws -> (body: APIRequest.Body, headerFields: HTTPFields) = { [self] in
            var fields = fields
            var headers: HTTPFields = [:]
            try authenticate(&fields, &headers, endpoint: endpoint)
            return (.form(fields), headers)
        }
        let (body, headers) = try build()
        var request = APIRequest(.post, endpoint, headerFields: headers, body: body, retry: retry, operation: operation)
        if case .privateKeyJWT = effectiveClientAuthentication { request.renewCredentials = build }
        return request
    }

    /// `endpoint` as the absolute URL the API client sends to.
    private func absoluteURL(_ endpoint: String) -> String {
        if endpoint.hasPrefix("http://") || endpoint.hasPrefix("https://") { return endpoint }
        var base = api.baseURL.absoluteString
        if !base.hasSuffix("/") { base += "/" }
        return base + (endpoint.hasPrefix("/") ? String(endpoint.dropFirst()) : endpoint)
    }

    /// `transaction` with its authorization request pushed first (RFC 9126): every parameter of its
    /// URL goes to `endpoint` with the client's authentication (and a DPoP proof with ``dpopKey``),
    /// and the URL the browser opens becomes `authorizationEndpoint` with only `client_id` and the
    /// returned `request_uri`.
    /// - Parameter requestURIPrefix: a prefix the `request_uri` must have (Auth0's
    ///   `urn:ietf:params:oauth:request_uri:`); nil takes any.
    /// - Throws: the endpoint's mapped errors; ``AuthErrorCode/invalidRequest`` for an unusable reply.
    public func pushing(_ transaction: OIDCAuthorizationTransaction, to endpoint: String, authorizationEndpoint: URL,
                        requestURIPrefix: String? = nil) async throws -> OIDCAuthorizationTransaction {
        let parameters = OrderedParameters.decodeQuery(of: transaction.url)
        let pushed = try await pushAuthorizationRequest(endpoint: endpoint, parameters: parameters)
        if let requestURIPrefix, !pushed.requestURI.hasPrefix(requestURIPrefix) {
            throw AuthError(.invalidRequest, message: "The pushed authorization request's request_uri does not start with \(requestURIPrefix).",
                            provider: api.provider, details: ["reason": "unexpectedRequestURI"])
        }
        let url = try OIDCAuthorizationRequest.url(authorizationEndpoint, adding: [("client_id", clientId), ("request_uri", pushed.requestURI)])
        return transaction.opening(url)
    }

    /// Pushes an authorization request (RFC 9126): `POST` of the authorization parameters, form
    /// encoded, with the client's authentication, to the pushed authorization request endpoint.
    /// - Returns: the `request_uri` to send to the authorization endpoint with `client_id`, and how
    ///   long it is valid.
    /// - Throws: the mapped error of a refusal; ``AuthErrorCode/invalidRequest`` for a reply without
    ///   a `request_uri` (at most 2,048 characters) or whose `expires_in` is not 1…3,600 seconds.
    public func pushAuthorizationRequest(endpoint: String, parameters: [(String, String)]) async throws -> (requestURI: String, expiresIn: Int) {
        var request = try authenticatedForm(endpoint, parameters.filter { $0.0 != "client_id" }, retry: .never, operation: .signIn)
        request.dpop = dpopKey.map { DPoPProofing(key: $0) }
        let reply = try await api.send(request)
        guard let object = (try? JSONValue.parse(reply.body))?.objectValue,
              let requestURI = object["request_uri"]?.stringValue, !requestURI.isEmpty, requestURI.utf8.count <= 2_048,
              TokenSyntax.isVisibleASCII(requestURI) else {
            throw AuthError(.invalidRequest, message: "The pushed authorization request's reply has no usable request_uri.", provider: api.provider,
                            statusCode: reply.status, details: ["field": "request_uri", "operation": AuthOperation.signIn.rawValue])
        }
        guard let expiresIn = object["expires_in"]?.doubleValue, expiresIn.isFinite, expiresIn >= 1, expiresIn <= 3_600 else {
            throw AuthError(.invalidRequest, message: "The pushed authorization request's reply has no valid expires_in (1…3600 s).",
                            provider: api.provider, statusCode: reply.status, details: ["field": "expires_in", "operation": AuthOperation.signIn.rawValue])
        }
        return (requestURI, Int(expiresIn))
    }

    /// Revokes a token at the revocation endpoint (RFC 7009), with the client's authentication.
    /// - Parameters:
    ///   - token: the token.
    ///   - hint: `refresh_token` or `access_token`.
    public func revoke(_ token: Secret<String>, hint: String, endpoint: String) async throws {
        _ = try await api.send(try authenticatedForm(endpoint, [("token", token.revealed()), ("token_type_hint", hint)],
                                                     retry: .never, operation: .signOut))
    }

    private func send(_ body: OIDCTokenRequest, retry: APIRequest.RetryMode,
                      operation: AuthOperation) async throws -> OIDCTokenResponse {
        var headers: HTTPFields = [:]
        let request: APIRequest
        switch bodyEncoding {
        case .form:
            request = try authenticatedForm(tokenEndpoint, body.fields, retry: retry, operation: operation)
        case .json:
            // The JSON body carries client_id; of the other credentials only a header (Basic) can go
            // with it — a method that adds body fields needs a form-encoded request.
            switch effectiveClientAuthentication {
            case .none: break
            case .clientSecretBasic(let secret): headers[.authorization] = OIDCClientAuthentication.basicAuthorization(clientId: clientId, secret: secret)
            case .clientSecretPost, .privateKeyJWT:
                throw AuthError(.invalidConfiguration, message: "\(effectiveClientAuthentication.methodName) needs a form-encoded token request.",
                                provider: api.provider)
            }
            request = try APIRequest.json(.post, tokenEndpoint, body, headerFields: headers, retry: retry, operation: operation)
        }
        var proved = request
        proved.dpop = dpopKey.map { DPoPProofing(key: $0) }
        let reply = try await api.send(proved, as: OIDCTokenReply.self)
        do {
            var response = try OIDCTokenResponse(reply, now: api.clock.now, provider: api.provider)
            response.dpopKey = try DPoPKey.binding(tokenType: response.tokenType, sent: dpopKey, provider: api.provider)
            return response
        } catch let error as AuthError {
            throw error.with(details: error.details.merging(["operation": operation.rawValue]) { old, _ in old })
        }
    }
}

/// The tokens of a token endpoint reply (the OAuth field names), decoded from ``OIDCTokenReply``.
///
/// `access_token` is required (a reply without one is ``AuthErrorCode/invalidRequest`` naming the
/// field); other missing string fields read as empty (the Auth0 SDK's rule), and a missing
/// `expires_in` gives an ``expiresAt`` of "now". `description` shows no token.
public struct OIDCTokenResponse: Sendable, CustomStringConvertible {
    /// `access_token`.
    public var accessToken: Secret<String>
    /// `token_type` (`Bearer`, `DPoP`).
    public var tokenType: String
    /// `id_token` (empty when absent).
    public var idToken: Secret<String>
    /// `refresh_token`, when issued.
    public var refreshToken: Secret<String>?
    /// `now + expires_in` (`expires_in` may be a number or a numeric string).
    public var expiresAt: Date
    /// `scope`, when the reply has one.
    public var scope: String?
    /// `recovery_code`, when the reply has one.
    public var recoveryCode: Secret<String>?
    /// The DPoP key the tokens are bound to (`token_type` `DPoP`, a proof sent); nil for bearer tokens.
    public var dpopKey: DPoPKey?

    /// Creates a response from values.
    public init(accessToken: Secret<String>, tokenType: String, idToken: Secret<String>, refreshToken: Secret<String>?,
                expiresAt: Date, scope: String?, recoveryCode: Secret<String>? = nil) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.scope = scope
        self.recoveryCode = recoveryCode
    }

    /// Decodes a token endpoint reply.
    /// - Parameters:
    ///   - response: the 2xx reply.
    ///   - now: the time `expires_in` counts from.
    ///   - provider: the provider id for errors.
    /// - Throws: ``AuthErrorCode/invalidRequest`` naming the field when the body is not a JSON object,
    ///   lacks `access_token`, or `expires_in` is neither a number nor a numeric string, or is
    ///   negative, zero or not finite (a huge one is clamped: ``SessionTimeLimits``).
    public init(_ response: HTTPReply, now: Date, provider: String? = nil) throws {
        let reply: OIDCTokenReply
        do {
            reply = try JSONDecoder().decode(OIDCTokenReply.self, from: response.body)
        } catch {
            throw ReplyDecodingFailure.error(error, provider: provider ?? "the provider", operation: .other,
                                             statusCode: response.status, emptyBody: response.body.isEmpty)
        }
        let expiresAt: Date
        do {
            expiresAt = try reply.expiresAt(now: now, provider: provider ?? "the provider")
        } catch let error as AuthError {
            throw error.with(statusCode: response.status)
        }
        self.init(reply, expiresAt: expiresAt)
    }

    /// The tokens of a decoded reply, `expires_in` counted from `now`.
    package init(_ reply: OIDCTokenReply, now: Date, provider: String?) throws {
        self.init(reply, expiresAt: try reply.expiresAt(now: now, provider: provider ?? "the provider"))
    }

    private init(_ reply: OIDCTokenReply, expiresAt: Date) {
        self.init(accessToken: Secret(reply.accessToken), tokenType: reply.tokenType ?? "",
                  idToken: Secret(reply.idToken ?? ""), refreshToken: reply.refreshToken.map(Secret.init),
                  expiresAt: expiresAt, scope: reply.scope, recoveryCode: reply.recoveryCode.map(Secret.init))
    }

    /// Shows the token type, expiry and scope; never a token.
    public var description: String {
        "OIDCTokenResponse(tokenType: \(tokenType), expiresAt: \(expiresAt), scope: \(scope ?? "-"), refreshToken: \(refreshToken == nil ? "none" : "<redacted>"))"
    }
}
