import AuthHub
import AuthHubOIDC
import Foundation
import Hummingbird
import HummingbirdAuth

/// Authenticates API requests by their `Authorization: Bearer` JWT (RFC 6750), choosing the
/// verifier by the token's `iss` among the configured ones.
///
/// - No `Authorization` header: the request goes on without an identity (guard routes with
///   `IsAuthenticatedMiddleware`, which answers 401).
/// - A header that is not `Bearer <token>`: 401 with `WWW-Authenticate: Bearer error="invalid_request"`.
/// - An issuer no verifier knows, a bad signature, another audience, an expired token, an `alg`
///   that does not match the key: 401 with `error="invalid_token"` and a description.
/// - A valid token lacking ``requiredScopes``: 403 with `error="insufficient_scope"` and `scope`.
/// - The issuer's keys cannot be fetched: 503 (the token may well be valid).
///
/// The `iss` is read from the token before its signature is checked only to pick the verifier; the
/// verifier then checks the signature with that issuer's keys and the `iss` again.
public struct AuthHubBearerMiddleware<Context: AuthRequestContext>: RouterMiddleware where Context.Identity == AuthHubIdentity {
    let verifiers: [String: (provider: String, verifier: AccessTokenVerifier)]
    /// Scopes every request through this middleware needs.
    public let requiredScopes: Set<String>
    /// The `realm` of the challenge.
    public let realm: String

    /// - Parameters:
    ///   - verifiers: the verifier of each provider's tokens, by provider id.
    ///   - requiredScopes: scopes every token must grant.
    public init(verifiers: [String: AccessTokenVerifier], requiredScopes: Set<String> = [], realm: String = "api") {
        var byIssuer: [String: (String, AccessTokenVerifier)] = [:]
        for (provider, verifier) in verifiers.sorted(by: { $0.key < $1.key }) { byIssuer[verifier.issuer] = (provider, verifier) }
        self.verifiers = byIssuer
        self.requiredScopes = requiredScopes
        self.realm = realm.filter { $0 != "\"" && $0 != "\\" }
    }

    /// A middleware for the API `audience` trusting every provider of the hub whose access tokens
    /// are JWTs (``AccessTokenIssuingProvider``: OpenID Connect providers, Auth0).
    /// - Throws: discovery errors of those providers; ``AuthErrorCode/invalidConfiguration`` when
    ///   none of the hub's providers issues verifiable access tokens.
    public init(hub: AuthHub, audience: String, requiredScopes: Set<String> = [], realm: String = "api") async throws {
        var verifiers: [String: AccessTokenVerifier] = [:]
        for id in hub.providerIDs {
            guard let provider = try hub.provider(id) as? any AccessTokenIssuingProvider else { continue }
            verifiers[id] = try await provider.accessTokenVerifier(audience: audience)
        }
        guard !verifiers.isEmpty else {
            throw AuthError(.invalidConfiguration, message: "No provider of this environment issues JWT access tokens to verify.")
        }
        self.init(verifiers: verifiers, requiredScopes: requiredScopes, realm: realm)
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization] else { return try await next(request, context) }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer", !parts[1].isEmpty else {
            return challenge(.unauthorized, error: "invalid_request", description: "Send Authorization: Bearer <token>.")
        }
        let token = Secret(String(parts[1]).trimmingCharacters(in: .whitespaces))
        guard let issuer = JWTParts.decode(token)?.payload["iss"]?.stringValue, let entry = verifiers[issuer] else {
            return challenge(.unauthorized, error: "invalid_token", description: "The token's issuer is not trusted here.")
        }
        let claims: AccessTokenVerifier.Claims
        do {
            claims = try await entry.verifier.verify(token, requiredScopes: requiredScopes)
        } catch let error as AuthError where error.code == .accessDenied {
            return challenge(.forbidden, error: "insufficient_scope", description: "The token lacks a required scope.",
                             scope: error.details["scope"])
        } catch let error as AuthError where error.code == .invalidToken && error.details["reason"] == "missingPublicKey"
            && (error.underlying as? AuthError).map({ [.network, .timeout, .providerUnavailable].contains($0.code) }) == true {
            throw HTTPError(.serviceUnavailable, message: "The token issuer's keys could not be fetched.")
        } catch let error as AuthError {
            return challenge(.unauthorized, error: "invalid_token", description: error.message)
        }
        var context = context
        context.identity = AuthHubIdentity(provider: entry.provider, subject: claims.subject, claims: claims.claims, source: .bearer,
                                           accessToken: token, expiresAt: claims.expiresAt, csrfToken: nil)
        return try await next(request, context)
    }

    /// A 401/403 with the RFC 6750 challenge; quotes and backslashes are dropped from the values.
    func challenge(_ status: HTTPResponse.Status, error: String, description: String, scope: String? = nil) -> Response {
        func quoted(_ value: String) -> String { "\"" + value.filter { $0 != "\"" && $0 != "\\" && !$0.isNewline } + "\"" }
        var value = "Bearer realm=\(quoted(realm)), error=\(quoted(error)), error_description=\(quoted(description))"
        if let scope { value += ", scope=\(quoted(scope))" }
        return Response(status: status, headers: [.wwwAuthenticate: value, .cacheControl: "no-store"])
    }
}
