import AuthHub
import Foundation
import Hummingbird
import HummingbirdAuth

/// Resolves the browser-session cookie to an ``AuthHubIdentity`` on the request context.
///
/// - A valid session: `context.identity` is set, with an access token valid for at least a minute
///   (renewed first through the hub's `SessionManager` when needed: single-flight, across
///   processes with a shared store), and the cookie's `Max-Age` is renewed (sliding idle timeout).
/// - No cookie: the request goes on without an identity (guard routes with
///   hummingbird-auth's `IsAuthenticatedMiddleware` or `context.requireIdentity()`).
/// - A cookie that names no usable session (malformed, tampered, timed out, signed out elsewhere,
///   refresh token dead): the request goes on without an identity and the cookie is cleared.
/// - The provider unreachable while the session needs renewing: `503 Service Unavailable`; the
///   session and the cookie are kept, so the next request can succeed.
public struct AuthHubSessionMiddleware<Context: AuthRequestContext>: RouterMiddleware where Context.Identity == AuthHubIdentity {
    let web: AuthHubWeb

    public init(_ web: AuthHubWeb) { self.web = web }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let name = web.configuration.sessionCookieName
        let resolution: AuthHubWeb.Resolution
        do {
            resolution = try await web.resolve(cookie: request.cookies[name]?.value)
        } catch let error as AuthError where [.network, .timeout, .providerUnavailable, .rateLimited].contains(error.code) {
            throw HTTPError(.serviceUnavailable, message: "The sign-in service did not answer. Please try again.")
        }
        var context = context
        switch resolution {
        case .none:
            return try await next(request, context)
        case .over:
            // Cleared on error replies too (a guarded route answers 401 by throwing).
            var response: Response
            do {
                response = try await next(request, context)
            } catch let error as any HTTPResponseError {
                response = try error.response(from: request, context: context)
            }
            if !Self.sets(name, response) { response.setCookie(web.clearing(name)) }
            return response
        case .signedIn(let id, let identity):
            context.identity = identity
            var response = try await next(request, context)
            if !Self.sets(name, response) { response.setCookie(web.sessionCookie(id)) }
            return response
        }
    }

    /// Whether the route itself set or cleared the cookie (sign-in, sign-out): its `Set-Cookie`
    /// stands, since a browser keeps the last one of a name and the middleware's would undo it.
    static func sets(_ name: String, _ response: Response) -> Bool {
        response.headers[values: .setCookie].contains { $0.hasPrefix(name + "=") }
    }
}

extension AuthHubWeb {
    /// The session middleware for this integration (see ``AuthHubSessionMiddleware``).
    public func sessionMiddleware<Context: AuthRequestContext>(context: Context.Type = Context.self) -> AuthHubSessionMiddleware<Context>
    where Context.Identity == AuthHubIdentity {
        AuthHubSessionMiddleware(self)
    }
}

/// A request context carrying an ``AuthHubIdentity``, for apps without a context of their own.
public typealias AuthHubRequestContext = BasicAuthRequestContext<AuthHubIdentity>
