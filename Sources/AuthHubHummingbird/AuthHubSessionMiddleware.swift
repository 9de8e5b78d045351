import AuthHub
import AuthHubWebCore
import Foundation
import Hummingbird
import HummingbirdAuth

/// Resolves the browser-session cookie to an ``AuthHubIdentity`` on the request context (the web
/// core's ``AuthHubWeb/resolveSession(_:)``).
///
/// - A valid session: `context.identity` is set, with an access token valid for at least a minute
///   (renewed first through the hub's `SessionManager` when needed: single-flight, across
///   processes with a shared store), and the cookie's `Max-Age` is renewed (sliding idle timeout; at most once a minute, `AuthHubWeb.cookieRenewalInterval`).
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
        // A signed-in user's usual request resolves without suspending (the hub's cached session).
        let resolution: WebSessionResolution
        if let cached = web.resolveCachedSession(request.head) {
            resolution = cached
        } else {
            resolution = await web.resolveSession(request.head)
        }
        var context = context
        switch resolution {
        case .anonymous:
            return try await next(request, context)
        case .failed(let response):
            return Response(response)
        case .signedIn, .ended:
            context.identity = resolution.identity
            var response: Response
            do {
                response = try await next(request, context)
            } catch let error as any HTTPResponseError {
                // A cleared cookie goes on error replies too (a guarded route answers 401 by throwing).
                guard case .ended = resolution else { throw error }
                response = try error.response(from: request, context: context)
            }
            resolution.finish(setCookieValues: response.headers[values: .setCookie]) {
                response.headers.append(HTTPField(name: .setCookie, value: $0))
            }
            return response
        }
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
