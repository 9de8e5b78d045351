import AuthHub
import Foundation

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
    /// A confidential client's secret, sent as HTTP Basic authentication (`client_secret_basic`).
    public var clientSecret: Secret<String>?
    /// The body encoding.
    public var bodyEncoding: BodyEncoding

    /// Creates a token client.
    /// - Parameters:
    ///   - api: the API client (its clock also dates `expires_in`).
    ///   - tokenEndpoint: e.g. `/oauth/token` or the discovered `token_endpoint`.
    ///   - clientId: the registered client ID.
    ///   - clientSecret: the secret of a confidential client; nil for a public client.
    ///   - bodyEncoding: form (default) or JSON.
    public init(api: APIClient, tokenEndpoint: String, clientId: String, clientSecret: Secret<String>? = nil,
                bodyEncoding: BodyEncoding = .form) {
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
        let fields: [(String, Secret<String>)] = [
            ("client_id", Secret(clientId)),
            ("grant_type", Secret("authorization_code")),
            ("code", code),
            ("code_verifier", codeVerifier),
            ("redirect_uri", Secret(redirectURI)),
        ]
        return try await send(fields, retry: .never, operation: .tokenExchange)
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
        var fields: [(String, Secret<String>)] = [
            ("client_id", Secret(clientId)),
            ("grant_type", Secret("refresh_token")),
            ("refresh_token", refreshToken),
        ]
        if let scope { fields.append(("scope", Secret(scope))) }
        return try await send(fields, retry: .never, operation: .refresh)
    }

    private func send(_ fields: [(String, Secret<String>)], retry: APIRequest.RetryMode,
                      operation: AuthOperation) async throws -> OIDCTokenResponse {
        var headers: HTTPHeaders = [:]
        if let clientSecret {
            let credentials = FormEncoding.escape(clientId) + ":" + FormEncoding.escape(clientSecret.revealed())
            headers["Authorization"] = "Basic " + Data(credentials.utf8).base64EncodedString()
        }
        let body: APIRequest.Body
        switch bodyEncoding {
        case .form:
            body = .form(fields.map { ($0.0, $0.1.revealed()) })
        case .json:
            var object: [String: JSONValue] = [:]
            for (name, value) in fields { object[name] = .string(value.revealed()) }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            guard let data = try? encoder.encode(JSONValue.object(object)) else {
                throw AuthError(.invalidRequest, message: "The token request could not be encoded.")
            }
            body = .json(data)
        }
        let response = try await api.send(APIRequest(.post, tokenEndpoint, headers: headers, body: body, retry: retry,
                                                           operation: operation))
        return try OIDCTokenResponse(response, now: api.clock.now, provider: api.provider)
    }
}

/// The tokens of a token endpoint reply (field names of <doc:OIDCFlows>: “Token endpoint”, which are the
/// OAuth ones).
///
/// Missing string fields read as empty (the Auth0 SDK's rule), and a missing `expires_in` gives an
/// ``expiresAt`` of "now". `description` shows no token.
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
    /// - Throws: ``AuthErrorCode/invalidRequest`` when the body is not a JSON object or
    ///   `expires_in` is neither a number nor a numeric string, or is negative, zero or not finite
    ///   (a huge one is clamped: ``SessionTimeLimits``).
    public init(_ response: HTTPResponse, now: Date, provider: String? = nil) throws {
        guard let json = try? JSONValue.parse(response.body), let object = json.objectValue else {
            throw AuthError(.invalidRequest, message: "The token reply could not be read (not a JSON object).",
                            provider: provider, statusCode: response.status)
        }
        func string(_ key: String) -> String? { object[key]?.stringValue }
        let lifetime: Double?
        switch object["expires_in"] {
        case .none, .some(.null): lifetime = 0
        case .some(.number(let n)): lifetime = n
        case .some(.string(let s)): lifetime = Double(s.trimmingCharacters(in: .whitespaces))
        default: lifetime = nil
        }
        guard let lifetime, lifetime.isFinite else {
            throw AuthError(.invalidRequest, message: "The token reply has an invalid expires_in.",
                            provider: provider, statusCode: response.status)
        }
        // A missing expires_in means "expired now"; a present one must be positive (clamped to ten years).
        let expiresAt: Date
        if lifetime == 0, object["expires_in"] == nil || object["expires_in"] == .null {
            expiresAt = now
        } else {
            do {
                expiresAt = try SessionTimeLimits.expiry(afterSeconds: lifetime, from: now, provider: provider ?? "the provider")
            } catch let error as AuthError {
                throw error.with(statusCode: response.status)
            }
        }
        self.init(accessToken: Secret(string("access_token") ?? ""), tokenType: string("token_type") ?? "",
                  idToken: Secret(string("id_token") ?? ""), refreshToken: string("refresh_token").map(Secret.init),
                  expiresAt: expiresAt, scope: string("scope"),
                  recoveryCode: string("recovery_code").map(Secret.init))
    }

    /// Shows the token type, expiry and scope; never a token.
    public var description: String {
        "OIDCTokenResponse(tokenType: \(tokenType), expiresAt: \(expiresAt), scope: \(scope ?? "-"), refreshToken: \(refreshToken == nil ? "none" : "<redacted>"))"
    }
}
