import AuthHub
import Foundation

/// Openfort's legacy auth API, v1 (<doc:OpenfortEndpoints>: “Legacy v1”): `/iam/v1/*` with players, JWT access tokens and
/// refresh tokens — used when the configuration's ``OpenfortConfiguration/apiVersion`` is `v1`.
///
/// Headers: `Authorization: Bearer <publishable key>` on every call, `x-player-token: <access
/// token>` on user-scoped calls (logout, me, link), `x-request-id` per call as in v2. The v1 PKCE
/// `challenge` fields are optional and not sent; OAuth pooling is not used (the redirect carries
/// the tokens).
public struct OpenfortLegacyAPI: Sendable {
    /// The v1 prefix, relative to the base URL.
    public static let prefix = "iam/v1/"

    /// The provider's settings.
    public let configuration: OpenfortConfiguration
    let client: APIClient
    let random: any RandomSource
    var provider: String { client.provider }

    /// Creates a client.
    public init(providerID: String, configuration: OpenfortConfiguration, context: ProviderContext) {
        self.configuration = configuration
        self.random = context.random
        client = APIClient(provider: providerID, baseURL: configuration.baseURL, context: context, errorMapper: OpenfortErrorMapper(legacyAPI: true),
                           defaultHeaders: ["Authorization": "Bearer \(configuration.publishableKey)"])
    }

    func send(_ method: HTTPMethod, _ path: String, body: [String: JSONValue?]?, query: [(String, String)] = [],
              playerToken: Secret<String>? = nil, retry: APIRequest.RetryMode = .automatic,
              operation: AuthOperation = .other) async throws -> JSONValue {
        var headers: HTTPHeaders = ["x-request-id": OpenfortRequestID.make(random)]
        if let playerToken { headers["x-player-token"] = playerToken.revealed() }
        let request: APIRequest
        if let body {
            request = try APIRequest.json(method, Self.prefix + path, JSONValue.object(body.compactMapValues { $0 }), query: query,
                                          headers: headers, retry: retry, operation: operation)
        } else {
            request = APIRequest(method, Self.prefix + path, query: query, headers: headers, retry: retry, operation: operation)
        }
        let reply = try await client.send(request)
        if reply.body.isEmpty { return .null }
        do {
            return try JSONValue.parse(reply.body)
        } catch {
            throw AuthError(.invalidRequest, message: "The reply from '\(provider)' to \(path) is not JSON.", provider: provider,
                            statusCode: reply.status, underlying: error)
        }
    }

    // MARK: - Calls

    /// `POST /iam/v1/password/signup {email, password, name?}` → tokens, or nil for `{action: "verify_email"}`.
    public func signUp(email: String, password: Secret<String>, name: String? = nil) async throws -> OpenfortLegacyAuthResponse? {
        try OpenfortLegacyAuthResponse.read(await send(.post, "password/signup", body: [
            "email": .string(email), "password": .string(password.revealed()), "name": name.map(JSONValue.string),
        ], retry: .never), provider: provider)
    }

    /// `POST /iam/v1/password/login {email, password}` → tokens, or nil for `{action: "verify_email"}`.
    public func logIn(email: String, password: Secret<String>) async throws -> OpenfortLegacyAuthResponse? {
        try OpenfortLegacyAuthResponse.read(await send(.post, "password/login", body: [
            "email": .string(email), "password": .string(password.revealed()),
        ], retry: .never), provider: provider)
    }

    /// `POST /iam/v1/guest {}`.
    public func guest() async throws -> OpenfortLegacyAuthResponse {
        try required(await send(.post, "guest", body: [:], retry: .never), "guest")
    }

    /// `POST /iam/v1/sessions {refreshToken}` → new tokens.
    public func refresh(refreshToken: Secret<String>, force: Bool = false) async throws -> OpenfortLegacyAuthResponse {
        try required(await send(.post, "sessions", body: [
            "refreshToken": .string(refreshToken.revealed()), "forceRefresh": force ? .bool(true) : nil,
        ], retry: .never, operation: .refresh), "refresh")
    }

    /// `POST /iam/v1/sessions/logout {refreshToken}` with `x-player-token`.
    public func logOut(accessToken: Secret<String>, refreshToken: Secret<String>) async throws {
        _ = try await send(.post, "sessions/logout", body: ["refreshToken": .string(refreshToken.revealed())], playerToken: accessToken,
                           retry: .never)
    }

    /// `GET /iam/v1/me` with `x-player-token` → the player object.
    public func me(accessToken: Secret<String>) async throws -> [String: JSONValue] {
        guard let player = try await send(.get, "me", body: nil, playerToken: accessToken).objectValue, player["id"]?.stringValue != nil else {
            throw AuthError(.invalidRequest, message: "The /iam/v1/me reply from '\(provider)' has no player id.", provider: provider)
        }
        return player
    }

    /// `POST /iam/v1/oauth/init {provider, options: {redirectTo}}` (or `init_link` with `x-player-token`) → the URL to open.
    public func initOAuth(provider socialProvider: String, redirectTo: String, link accessToken: Secret<String>? = nil) async throws -> URL {
        let reply = try await send(.post, accessToken == nil ? "oauth/init" : "oauth/init_link", body: [
            "provider": .string(socialProvider), "options": .object(["redirectTo": .string(redirectTo)]),
        ], playerToken: accessToken)
        guard let string = reply["url"]?.stringValue, let url = URL(string: string), url.scheme != nil else {
            throw AuthError(.invalidRequest, message: "The oauth/init reply from '\(provider)' has no URL.", provider: provider)
        }
        return url
    }

    /// `POST /iam/v1/oauth/login_id_token {provider, token}`.
    public func logInWithIDToken(provider socialProvider: String, token: Secret<String>) async throws -> OpenfortLegacyAuthResponse {
        try required(await send(.post, "oauth/login_id_token", body: [
            "provider": .string(socialProvider), "token": .string(token.revealed()),
        ], retry: .never), "ID-token login")
    }

    /// `POST /iam/v1/password/request_email_verification {email, redirectUrl}`.
    public func requestEmailVerification(email: String, redirectURL: String?) async throws {
        _ = try await send(.post, "password/request_email_verification", body: [
            "email": .string(email), "redirectUrl": redirectURL.map(JSONValue.string),
        ])
    }

    /// `POST /iam/v1/password/verify_email {email, token}` (the `state` of the link as token).
    public func verifyEmail(email: String, token: Secret<String>) async throws {
        _ = try await send(.post, "password/verify_email", body: ["email": .string(email), "token": .string(token.revealed())], retry: .never)
    }

    /// `POST /iam/v1/password/request_reset {email, redirectUrl}`.
    public func requestReset(email: String, redirectURL: String?) async throws {
        _ = try await send(.post, "password/request_reset", body: ["email": .string(email), "redirectUrl": redirectURL.map(JSONValue.string)])
    }

    /// `POST /iam/v1/password/reset {email, password, state}`.
    public func reset(email: String, password: Secret<String>, state: Secret<String>) async throws {
        _ = try await send(.post, "password/reset", body: [
            "email": .string(email), "password": .string(password.revealed()), "state": .string(state.revealed()),
        ], retry: .never)
    }

    private func required(_ json: JSONValue, _ what: String) throws -> OpenfortLegacyAuthResponse {
        guard let response = try OpenfortLegacyAuthResponse.read(json, provider: provider) else {
            throw AuthError(.verificationRequired, message: "The email must be verified first.", provider: provider, providerCode: "verify_email")
        }
        return response
    }
}
