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

    /// Sends a request with a token for `scope`; JSON requests are never retried (they may create things).
    func send(_ method: HTTPMethod, _ path: String, scope: String, body: JSONValue? = nil,
              query: [(String, String)] = []) async throws -> HTTPResponse {
        let token = try await tokenProvider(scope)
        var request = try body.map { try APIRequest.json(method, path, $0, query: query, retry: .never) }
            ?? APIRequest(method, path, query: query)
        request.headers["Authorization"] = "\(token.tokenType.isEmpty ? "Bearer" : token.tokenType) \(token.accessToken.revealed())"
        return try await api.send(request)
    }

    /// The reply's JSON, when `accept` holds for it.
    /// - Throws: ``AuthErrorCode/invalidRequest`` naming `what` was expected otherwise.
    func json(_ reply: HTTPResponse, expecting what: String, _ accept: (JSONValue) -> Bool) throws -> JSONValue {
        guard let json = try? JSONValue.parse(reply.body), accept(json) else {
            throw AuthError(.invalidRequest, message: "The reply is not \(what).", provider: api.provider, statusCode: reply.status)
        }
        return json
    }
}
