import AuthHub
import AuthHubOIDC
import Vapor

/// Authenticates API requests by their `Authorization: Bearer` JWT (RFC 6750): the web core's
/// ``BearerTokenAuthenticator`` as a Vapor authenticator, logging the ``AuthHubIdentity`` in on
/// `req.auth`.
///
/// - No `Authorization` header: the request goes on without an identity (guard with
///   ``AuthHubGuardMiddleware``). A browser-session identity logged in earlier by
///   ``AuthHubSessionAuthenticator`` is logged out unless the authenticator accepts session cookies,
///   and then a request that changes state must carry the session's CSRF token in `X-CSRF-Token`,
///   else 403.
/// - A header that is not `Bearer <token>`, or a token that fails verification: 401 with the
///   RFC 6750 challenge; a valid token lacking the required scopes: 403 `insufficient_scope`; the
///   issuer's keys out of reach: 503. (Unlike Vapor's own bearer authenticators, a bad token is
///   answered here, with the challenge RFC 6750 asks for, rather than left to a guard.)
public struct AuthHubBearerAuthenticator: AsyncMiddleware, Authenticator {
    /// The framework-neutral authenticator this middleware runs.
    public let authenticator: BearerTokenAuthenticator

    public init(_ authenticator: BearerTokenAuthenticator) { self.authenticator = authenticator }

    /// An authenticator for the API `audience` trusting every provider of the hub whose tokens an API
    /// can verify (see ``BearerTokenAuthenticator/init(hub:audience:requiredScopes:realm:verifiedTokenCapacity:acceptsSessionCookie:)``).
    public init(hub: AuthHub, audience: String, requiredScopes: Set<String> = [], realm: String = "api",
                verifiedTokenCapacity: Int = BearerTokenAuthenticator.defaultVerifiedTokenCapacity,
                acceptsSessionCookie: Bool = false) async throws {
        self.init(try await BearerTokenAuthenticator(hub: hub, audience: audience, requiredScopes: requiredScopes, realm: realm,
                                                     verifiedTokenCapacity: verifiedTokenCapacity,
                                                     acceptsSessionCookie: acceptsSessionCookie))
    }

    public func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let outcome = await authenticator.authenticate(
            authorization: request.headers.first(name: .authorization), method: HTTPRequest.Method(request.method.rawValue) ?? .get,
            dpopProofs: { request.headers[BearerTokenAuthenticator.dpopField.canonicalName] },
            target: { (request.url.scheme, request.headers.first(name: .host), request.url.path) })
        switch outcome {
        case .authenticated(let identity):
            request.auth.login(identity)
        case .refused(let response):
            return Response(response)
        case .noCredentials:
            let method = HTTPRequest.Method(request.method.rawValue) ?? .get
            switch authenticator.sessionDecision(for: request.auth.get(AuthHubIdentity.self), method: method,
                                                 csrfToken: request.headers.first(name: "X-CSRF-Token")) {
            case .keep: break
            case .drop: request.auth.logout(AuthHubIdentity.self)
            case .refuse(let response): return Response(response)
            }
        }
        return try await next.respond(to: request)
    }
}
