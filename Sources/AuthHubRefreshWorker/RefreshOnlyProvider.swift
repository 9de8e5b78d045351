import AuthHub
import Foundation

/// A provider that can only renew sessions, with a plain OAuth 2.0 refresh-token grant
/// (`POST <tokenURL>` with `grant_type=refresh_token&refresh_token=…`).
///
/// Test support for the cross-process refresh test: it speaks to the test's token server through
/// the real `APIClient` and `URLSessionTransport`, and maps `invalid_grant` to
/// ``AuthErrorCode/refreshTokenInvalid`` as every real plugin must.
struct RefreshOnlyProvider: AuthProvider {
    let id: String
    let type = "refresh-only"
    var capabilities: Set<AuthCapability> { [.refresh] }

    private let client: APIClient
    private let tokenURL: URL

    init(id: String, tokenURL: URL, transport: any HTTPTransport) {
        self.id = id
        self.tokenURL = tokenURL
        self.client = APIClient(provider: id, baseURL: tokenURL, transport: transport, errorMapper: OAuthErrorMapper(),
                                retryPolicy: .none)
    }

    func refresh(_ session: Session, scope: String?) async throws -> Session {
        guard let refreshToken = session.refreshToken, !refreshToken.isEmpty else {
            throw AuthError(.refreshTokenInvalid, message: "The session has no refresh token.", provider: id)
        }
        var form = [("grant_type", "refresh_token"), ("refresh_token", refreshToken.revealed())]
        if let scope { form.append(("scope", scope)) }
        // Never retried: a refresh token may be single-use (rotation).
        let request = APIRequest(.post, tokenURL.absoluteString, body: .form(form), retry: .never, operation: .refresh)
        let reply = try await client.send(request, as: TokenReply.self)
        return Session(
            providerID: id,
            accountKey: session.accountKey,
            accessToken: Secret(reply.accessToken),
            tokenType: reply.tokenType ?? "Bearer",
            refreshToken: reply.refreshToken.map { Secret($0) },
            expiresAt: try reply.expiresIn.map { try SessionTimeLimits.expiry(afterSeconds: $0, from: Date(), provider: id) },
            scope: reply.scope ?? session.scope
        )
    }
}

/// The token endpoint's success reply.
private struct TokenReply: Decodable {
    var accessToken: String
    var refreshToken: String?
    var tokenType: String?
    var expiresIn: Double?
    var scope: String?

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case refreshToken = "refresh_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case scope
    }
}

/// OAuth 2.0 error replies: `invalid_grant` on a refresh means the refresh token is no longer valid.
private struct OAuthErrorMapper: ErrorMapper {
    func map(_ response: HTTPReply, provider: String, operation: AuthOperation) -> AuthError {
        let error = StatusErrorMapper().map(response, provider: provider, operation: operation)
        guard operation == .refresh, error.providerCode == "invalid_grant" else { return error }
        return error.with(code: .refreshTokenInvalid, isRetryable: false)
    }
}
