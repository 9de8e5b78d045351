import AuthHub
import Foundation

/// Supplies an access token for one of the tenant's APIs with `scope`, e.g. through
/// ``Auth0CredentialsManager/apiCredentials(forAudience:scope:minTTL:)``.
public typealias Auth0APITokenProvider = @Sendable (_ scope: String) async throws -> Auth0APICredentials

/// What the tenant's bearer-token APIs (My Account, Management) share: the audience under the
/// domain, a token per scope from a ``Auth0APITokenProvider``, the `Authorization` header and the
/// API's own error mapper.
struct Auth0BearerClient: Sendable {
    /// `https://<domain>/<path>`: the audience of the API's tokens.
    let audience: String
    let tokenProvider: Auth0APITokenProvider
    let api: APIClient

    /// - Parameters:
    ///   - audiencePath: the API's path under the domain (`me/`, `api/v2/`).
    ///   - errorMapper: the API's error body reader.
    init(provider: Auth0Provider, audiencePath: String, errorMapper: any ErrorMapper, tokenProvider: @escaping Auth0APITokenProvider) {
        audience = Self.audience(provider, audiencePath)
        self.tokenProvider = tokenProvider
        var api = provider.authentication.api
        api.errorMapper = errorMapper
        self.api = api
    }

    static func audience(_ provider: Auth0Provider, _ path: String) -> String {
        provider.configuration.baseURL.absoluteString + path
    }

    /// Tokens exchanged by `credentials` with its refresh token, cached per scope.
    static func tokens(from credentials: Auth0CredentialsManager, audience: String) -> Auth0APITokenProvider {
        { scope in try await credentials.apiCredentials(forAudience: audience, scope: scope) }
    }

    /// Sends a request with a token for `scope`.
    func send(_ method: HTTPRequest.Method, _ path: String, scope: String, query: [(String, String)] = []) async throws -> HTTPReply {
        try await send(APIRequest(method, path, query: query, operation: .management), scope: scope)
    }

    /// Sends a request with a wire body and a token for `scope`; never retried (it may create things).
    func send<Body: Encodable>(_ method: HTTPRequest.Method, _ path: String, scope: String, body: Body,
                               query: [(String, String)] = []) async throws -> HTTPReply {
        try await send(try APIRequest.json(method, path, body, query: query, retry: .never, operation: .management), scope: scope)
    }

    /// Sends a request (with a wire body, when given) and decodes the reply into `Reply`.
    func send<Reply: Decodable>(_ method: HTTPRequest.Method, _ path: String, scope: String, query: [(String, String)] = [],
                                as type: Reply.Type) async throws -> Reply {
        try decode(try await send(method, path, scope: scope, query: query), as: type)
    }

    /// Sends a request with a wire body and decodes the reply into `Reply`.
    func send<Body: Encodable, Reply: Decodable>(_ method: HTTPRequest.Method, _ path: String, scope: String, body: Body,
                                                 as type: Reply.Type) async throws -> Reply {
        try decode(try await send(method, path, scope: scope, body: body), as: type)
    }

    /// Decodes a 2xx reply; a reply that breaks the model is ``AuthErrorCode/invalidRequest`` naming
    /// the field, with the operation ``AuthOperation/management``.
    func decode<Reply: Decodable>(_ reply: HTTPReply, as type: Reply.Type) throws -> Reply {
        try api.decode(type, from: reply, operation: .management)
    }

    private func send(_ request: APIRequest, scope: String) async throws -> HTTPReply {
        let token = try await tokenProvider(scope)
        var request = request
        request.headerFields[.authorization] = "\(token.tokenType.isEmpty ? "Bearer" : token.tokenType) \(token.accessToken.revealed())"
        request.dpop = token.dpopKey.map { DPoPProofing(key: $0, accessToken: token.accessToken) }
        return try await api.send(request)
    }
}
