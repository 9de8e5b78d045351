import AuthHub
import Foundation

/// Openfort's legacy auth API, v1 (<doc:OpenfortEndpoints>: “Legacy v1”): `/iam/v1/*` with players, JWT access tokens and
/// refresh tokens — used when the configuration's ``OpenfortConfiguration/apiVersion`` is `v1`.
///
/// Headers: `Authorization: Bearer <publishable key>` on every call, `x-player-token: <access
/// token>` on user-scoped calls (logout, me, link), `x-request-id` per call as in v2. The v1 PKCE
/// `challenge` fields are optional and not sent; OAuth pooling is not used (the redirect carries
/// the tokens).
package struct OpenfortLegacyAPI: Sendable {
    /// The v1 prefix, relative to the base URL.
    package static let prefix = "iam/v1/"

    /// The provider's settings.
    package let configuration: OpenfortConfiguration
    let client: APIClient
    let random: any RandomSource
    var provider: String { client.provider }

    /// Creates a client.
    package init(providerID: String, configuration: OpenfortConfiguration, context: ProviderContext) {
        self.configuration = configuration
        self.random = context.random
        client = APIClient(provider: providerID, baseURL: configuration.baseURL, context: context, errorMapper: OpenfortErrorMapper(legacyAPI: true),
                           defaultHeaderFields: [.authorization: "Bearer \(configuration.publishableKey)"])
    }

    /// Sends a request under the v1 prefix and decodes its reply; an empty body reads as nil.
    func send<Reply: Decodable>(_ method: HTTPRequest.Method, _ path: String, body: (any Encodable & Sendable)?, query: [(String, String)] = [],
                                playerToken: Secret<String>? = nil, retry: APIRequest.RetryMode = .automatic,
                                operation: AuthOperation, as reply: Reply.Type) async throws -> Reply? {
        let request = try makeRequest(method, path, body: body, query: query, playerToken: playerToken, retry: retry, operation: operation)
        let response = try await client.send(request)
        if response.body.isEmpty { return nil }
        return try client.decode(Reply?.self, from: response, operation: operation)
    }

    /// Sends a request whose reply is required (an empty or `null` body is an error naming the operation).
    func sendRequired<Reply: Decodable>(_ method: HTTPRequest.Method, _ path: String, body: (any Encodable & Sendable)?,
                                        playerToken: Secret<String>? = nil, retry: APIRequest.RetryMode = .automatic,
                                        operation: AuthOperation, as reply: Reply.Type) async throws -> Reply {
        let request = try makeRequest(method, path, body: body, query: [], playerToken: playerToken, retry: retry, operation: operation)
        return try await client.send(request, as: reply)
    }

    /// The request for `path` under the v1 prefix: a JSON body when one is given, a new
    /// `x-request-id`, `x-player-token` when given.
    private func makeRequest(_ method: HTTPRequest.Method, _ path: String, body: (any Encodable & Sendable)?, query: [(String, String)],
                             playerToken: Secret<String>?, retry: APIRequest.RetryMode, operation: AuthOperation) throws -> APIRequest {
        var headers: HTTPFields = [.openfortRequestID: OpenfortRequestID.make(random)]
        if let playerToken { headers[.openfortPlayerToken] = playerToken.revealed() }
        guard let body else {
            return APIRequest(method, Self.prefix + path, query: query, headerFields: headers, retry: retry, operation: operation)
        }
        return try APIRequest.json(method, Self.prefix + path, body, query: query, headerFields: headers, retry: retry, operation: operation)
    }

    // MARK: - Calls

    /// `POST /iam/v1/password/signup {email, password, name?}` → tokens, or nil for `{action: "verify_email"}`.
    package func signUp(email: String, password: Secret<String>, name: String? = nil) async throws -> OpenfortLegacyAuthResponse? {
        try await sendRequired(.post, "password/signup", body: OpenfortLegacyPasswordRequest(email: email, password: password.revealed(),
                                                                                             name: name),
                               retry: .never, operation: .signUp, as: OpenfortLegacyAuthReply.self).response
    }

    /// `POST /iam/v1/password/login {email, password}` → tokens, or nil for `{action: "verify_email"}`.
    package func logIn(email: String, password: Secret<String>) async throws -> OpenfortLegacyAuthResponse? {
        try await sendRequired(.post, "password/login", body: OpenfortLegacyPasswordRequest(email: email, password: password.revealed()),
                               retry: .never, operation: .signIn, as: OpenfortLegacyAuthReply.self).response
    }

    /// `POST /iam/v1/guest {}`.
    package func guest() async throws -> OpenfortLegacyAuthResponse {
        try required(await sendRequired(.post, "guest", body: OpenfortEmptyBody(), retry: .never, operation: .signIn,
                                        as: OpenfortLegacyAuthReply.self))
    }

    /// `POST /iam/v1/sessions {refreshToken}` → new tokens.
    package func refresh(refreshToken: Secret<String>, force: Bool = false) async throws -> OpenfortLegacyAuthResponse {
        try required(await sendRequired(.post, "sessions", body: OpenfortLegacyRefreshRequest(refreshToken: refreshToken.revealed(),
                                                                                               forceRefresh: force ? true : nil),
                                        retry: .never, operation: .refresh, as: OpenfortLegacyAuthReply.self))
    }

    /// `POST /iam/v1/sessions/logout {refreshToken}` with `x-player-token`.
    package func logOut(accessToken: Secret<String>, refreshToken: Secret<String>) async throws {
        _ = try await send(.post, "sessions/logout", body: OpenfortLegacyRefreshRequest(refreshToken: refreshToken.revealed()),
                           playerToken: accessToken, retry: .never, operation: .signOut, as: OpenfortAcknowledgement.self)
    }

    /// `GET /iam/v1/me` with `x-player-token` → the player object.
    package func me(accessToken: Secret<String>) async throws -> [String: JSONValue] {
        try await player(accessToken: accessToken).raw
    }

    /// `GET /iam/v1/me` read as a user (id, createdAt, linkedAccounts; the player kept in ``OpenfortAuthUser/raw``).
    func player(accessToken: Secret<String>) async throws -> OpenfortAuthUser {
        try await sendRequired(.get, "me", body: nil, playerToken: accessToken, operation: .userInfo, as: OpenfortAuthUser.self)
    }

    /// `POST /iam/v1/oauth/init {provider, options: {redirectTo}}` (or `init_link` with `x-player-token`) → the URL to open.
    package func initOAuth(provider socialProvider: String, redirectTo: String, link accessToken: Secret<String>? = nil) async throws -> URL {
        try await sendRequired(.post, accessToken == nil ? "oauth/init" : "oauth/init_link",
                               body: OpenfortLegacyOAuthInitRequest(provider: socialProvider, options: .init(redirectTo: redirectTo)),
                               playerToken: accessToken, operation: accessToken == nil ? .signIn : .management,
                               as: OpenfortRedirectReply.self).url
    }

    /// `POST /iam/v1/oauth/login_id_token {provider, token}`.
    package func logInWithIDToken(provider socialProvider: String, token: Secret<String>) async throws -> OpenfortLegacyAuthResponse {
        try required(await sendRequired(.post, "oauth/login_id_token",
                                        body: OpenfortLegacyIDTokenRequest(provider: socialProvider, token: token.revealed()),
                                        retry: .never, operation: .signIn, as: OpenfortLegacyAuthReply.self))
    }

    /// `POST /iam/v1/password/request_email_verification {email, redirectUrl}`.
    package func requestEmailVerification(email: String, redirectURL: String?) async throws {
        _ = try await send(.post, "password/request_email_verification", body: OpenfortLegacyEmailRequest(email: email, redirectUrl: redirectURL),
                           operation: .emailVerification, as: OpenfortAcknowledgement.self)
    }

    /// `POST /iam/v1/password/verify_email {email, token}` (the `state` of the link as token).
    package func verifyEmail(email: String, token: Secret<String>) async throws {
        _ = try await send(.post, "password/verify_email", body: OpenfortLegacyVerifyEmailRequest(email: email, token: token.revealed()),
                           retry: .never, operation: .emailVerification, as: OpenfortAcknowledgement.self)
    }

    /// `POST /iam/v1/password/request_reset {email, redirectUrl}`.
    package func requestReset(email: String, redirectURL: String?) async throws {
        _ = try await send(.post, "password/request_reset", body: OpenfortLegacyEmailRequest(email: email, redirectUrl: redirectURL),
                           operation: .passwordReset, as: OpenfortAcknowledgement.self)
    }

    /// `POST /iam/v1/password/reset {email, password, state}`.
    package func reset(email: String, password: Secret<String>, state: Secret<String>) async throws {
        _ = try await send(.post, "password/reset", body: OpenfortLegacyResetRequest(email: email, password: password.revealed(),
                                                                                      state: state.revealed()),
                           retry: .never, operation: .passwordReset, as: OpenfortAcknowledgement.self)
    }

    private func required(_ reply: OpenfortLegacyAuthReply) throws -> OpenfortLegacyAuthResponse {
        guard let response = reply.response else {
            throw AuthError(.verificationRequired, message: "The email must be verified first.", provider: provider, providerCode: "verify_email")
        }
        return response
    }
}
