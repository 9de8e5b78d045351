import AuthHub
import AuthHubOIDC
import AuthHubWebCore
import Foundation
import Hummingbird
import HummingbirdAuth

/// Authenticates API requests by their `Authorization: Bearer` JWT (RFC 6750): the web core's
/// ``BearerTokenAuthenticator`` as a Hummingbird middleware, putting the identity on `context.identity`.
///
/// - No `Authorization` header: the request goes on without an identity (guard routes with
///   `IsAuthenticatedMiddleware`, which answers 401). A browser-session identity that
///   ``AuthHubSessionMiddleware`` put on the context earlier is removed unless
///   ``acceptsSessionCookie`` is set, and then a request that changes state must carry the session's
///   CSRF token in `X-CSRF-Token`, else 403.
/// - A header that is not `Bearer <token>`, or a token that fails verification: 401 with the
///   RFC 6750 challenge; a valid token lacking ``requiredScopes``: 403 `insufficient_scope`; the
///   issuer's keys out of reach: 503.
///
/// See ``BearerTokenAuthenticator`` for the verification and the verified-token cache.
public struct AuthHubBearerMiddleware<Context: AuthRequestContext>: RouterMiddleware where Context.Identity == AuthHubIdentity {
    /// The framework-neutral authenticator this middleware runs.
    public let authenticator: BearerTokenAuthenticator

    /// Scopes every request through this middleware needs.
    public var requiredScopes: Set<String> { authenticator.requiredScopes }
    /// The `realm` of the challenge.
    public var realm: String { authenticator.realm }
    /// Whether a browser session from ``AuthHubSessionMiddleware`` is accepted too (off by default).
    public var acceptsSessionCookie: Bool { authenticator.acceptsSessionCookie }
    /// The access tokens verified here, kept until they expire (nil when turned off).
    package var verifiedTokens: VerifiedTokenCache? { authenticator.verifiedTokens }

    /// How many verified access tokens a middleware keeps by default.
    public static var defaultVerifiedTokenCapacity: Int { BearerTokenAuthenticator.defaultVerifiedTokenCapacity }

    /// A middleware running `authenticator`.
    public init(_ authenticator: BearerTokenAuthenticator) { self.authenticator = authenticator }

    /// See ``BearerTokenAuthenticator/init(verifiers:requiredScopes:realm:verifiedTokenCapacity:acceptsSessionCookie:)``.
    public init(verifiers: [String: any BearerTokenVerifier], requiredScopes: Set<String> = [], realm: String = "api",
                verifiedTokenCapacity: Int = Self.defaultVerifiedTokenCapacity, acceptsSessionCookie: Bool = false) {
        self.init(BearerTokenAuthenticator(verifiers: verifiers, requiredScopes: requiredScopes, realm: realm,
                                      verifiedTokenCapacity: verifiedTokenCapacity, acceptsSessionCookie: acceptsSessionCookie))
    }

    /// A middleware for the API `audience` trusting every provider of the hub whose tokens an API can
    /// verify (see ``BearerTokenAuthenticator/init(hub:audience:requiredScopes:realm:verifiedTokenCapacity:acceptsSessionCookie:)``).
    public init(hub: AuthHub, audience: String, requiredScopes: Set<String> = [], realm: String = "api",
                verifiedTokenCapacity: Int = Self.defaultVerifiedTokenCapacity, acceptsSessionCookie: Bool = false) async throws {
        self.init(try await BearerTokenAuthenticator(hub: hub, audience: audience, requiredScopes: requiredScopes, realm: realm,
                                                verifiedTokenCapacity: verifiedTokenCapacity, acceptsSessionCookie: acceptsSessionCookie))
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let outcome = await authenticator.authenticate(
            authorization: request.headers[.authorization], method: request.method,
            dpopProofs: { request.headers[values: BearerTokenAuthenticator.dpopField] },
            target: { (request.head.scheme, request.head.authority, request.uri.path) })
        switch outcome {
        case .authenticated(let identity):
            context.identity = identity
        case .refused(let response):
            return Response(response)
        case .noCredentials:
            switch authenticator.sessionDecision(for: context.identity, method: request.method,
                                                 csrfToken: request.headers[WebRequest.csrfHeader]) {
            case .keep: break
            case .drop: context.identity = nil
            case .refuse(let response): return Response(response)
            }
        }
        return try await next(request, context)
    }
}
