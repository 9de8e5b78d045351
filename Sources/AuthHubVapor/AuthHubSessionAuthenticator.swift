import AuthHub
import Vapor

/// Resolves the browser-session cookie to an ``AuthHubIdentity`` logged in on `req.auth` (the web
/// core's ``AuthHubWeb/resolveSession(cookie:)``): Vapor's session authenticator for AuthHub.
///
/// - A valid session: `req.auth.get(AuthHubIdentity.self)` is the user, with an access token valid
///   for at least a minute (renewed first through the hub's `SessionManager` when needed), and the
///   cookie's `Max-Age` is renewed (sliding idle timeout; at most once a minute,
///   ``AuthHubWeb/cookieRenewalInterval``).
/// - No cookie: the request goes on without an identity (guard routes with
///   ``AuthHubGuardMiddleware`` or `AuthHubIdentity.guardMiddleware()`).
/// - A cookie that names no usable session: the request goes on without an identity and the
///   cookie is cleared (error responses included).
/// - The provider unreachable while the session needs renewing: 503; the session and the cookie
///   are kept.
///
/// A route's ``AuthHubVaporError`` (`throw req.authHubError(error)`) is answered here with the web
/// core's exact response.
///
/// A plain (event-loop) `Middleware`: a signed-in user's usual request is resolved on the event
/// loop from the hub's cached session (``AuthHubWeb/resolveCachedSession(cookie:)``), with no task
/// and no hop to the concurrency pool; only a request that must read the store, renew the session
/// or end a timed-out one waits, in a task (issue 33's `web.vapor.session` row).
public struct AuthHubSessionAuthenticator: Middleware, Authenticator {
    public let web: AuthHubWeb

    public init(_ web: AuthHubWeb) { self.web = web }

    public func respond(to request: Request, chainingTo next: any Responder) -> EventLoopFuture<Response> {
        let value = sessionCookie(of: request)
        if let resolution = web.resolveCachedSession(cookie: value) {
            return respond(to: request, as: resolution, chainingTo: next)
        }
        let web = self.web
        let promise = request.eventLoop.makePromise(of: WebSessionResolution.self)
        promise.completeWithTask { await web.resolveSession(cookie: value) }
        return promise.futureResult.flatMap { respond(to: request, as: $0, chainingTo: next) }
    }

    /// The session cookie's value: from the first `Cookie` field without making the array of all of
    /// them; the others only when the first has none of that name (`WebCookie.value(named:first:rest:)`).
    private func sessionCookie(of request: Request) -> String? {
        WebCookie.value(named: web.sessionCookieName, first: request.headers.first(name: .cookie)) {
            Array(request.headers[.cookie].dropFirst())
        }
    }

    private func respond(to request: Request, as resolution: WebSessionResolution, chainingTo next: any Responder) -> EventLoopFuture<Response> {
        let cookie: WebCookie?, ended: Bool
        switch resolution {
        case .failed(let response):
            return request.eventLoop.makeSucceededFuture(Response(response))
        case .anonymous:
            (cookie, ended) = (nil, false)
        case .signedIn(let identity, let renewed):
            request.auth.login(identity)
            // The usual request: nothing to add to the response, so the only closure is the one
            // that answers a route's AuthHubVaporError, holding the request alone.
            guard let renewed else {
                return next.respond(to: request).flatMapError { error in
                    guard let error = error as? AuthHubVaporError else { return request.eventLoop.makeFailedFuture(error) }
                    return request.eventLoop.makeSucceededFuture(Response(error.webResponse))
                }
            }
            (cookie, ended) = (renewed, false)
        case .ended(let clear):
            (cookie, ended) = (clear, true)
        }
        // The closures hold the cookie to add, if any, and whether the session ended — not the
        // resolution (its identity): most signed-in requests have no cookie to add (it is re-sent
        // once a minute), and then no `map` either.
        let finish: @Sendable (Response) -> Response = { response in
            cookie?.add(unlessSetIn: response.headers[.setCookie]) { response.headers.add(name: .setCookie, value: $0) }
            return response
        }
        let responded = cookie == nil ? next.respond(to: request) : next.respond(to: request).map(finish)
        return responded.flatMapError { error in
            if let error = error as? AuthHubVaporError {
                // The error's own response stands as the web core made it (a 401 clears the cookie;
                // a 503 keeps it untouched), but for a session that was over, whose cookie goes.
                let response = Response(error.webResponse)
                if ended { _ = finish(response) }
                return request.eventLoop.makeSucceededFuture(response)
            }
            // A cleared cookie goes on error replies too (a guarded route answers 401 by throwing):
            // the error is rendered as the application's ErrorMiddleware would.
            guard ended else { return request.eventLoop.makeFailedFuture(error) }
            return ErrorMiddleware.default(environment: request.application.environment)
                .respond(to: request, chainingTo: Rethrowing(error: error)).map(finish)
        }
    }

    /// A responder that throws the error it holds (for `ErrorMiddleware` to render it).
    private struct Rethrowing: Responder {
        let error: any Error
        func respond(to request: Request) -> EventLoopFuture<Response> { request.eventLoop.makeFailedFuture(error) }
    }
}

/// Answers 401 when no ``AuthHubIdentity`` is logged in on `req.auth` — put it after
/// ``AuthHubSessionAuthenticator`` and/or ``AuthHubBearerAuthenticator``.
///
/// A plain (event-loop) `Middleware`: it never waits, and an `AsyncMiddleware` costs every request
/// a task and two hops between the event loop and the concurrency pool (issue 33's `web.vapor.*`
/// rows).
public struct AuthHubGuardMiddleware: Middleware {
    public init() {}

    public func respond(to request: Request, chainingTo next: any Responder) -> EventLoopFuture<Response> {
        guard request.auth.has(AuthHubIdentity.self) else {
            return request.eventLoop.makeSucceededFuture(Response(WebResponse.page(.unauthorized, "Please sign in.")))
        }
        return next.respond(to: request)
    }
}

/// Adds ``SecurityHeaders`` to every response (error responses included) that does not set them
/// itself; put it before Vapor's `ErrorMiddleware` in `app.middleware` to cover the error pages too.
/// A plain (event-loop) `Middleware`: it never waits, so it costs no task and no thread hop.
public struct AuthHubSecurityHeadersMiddleware: Middleware {
    public let headers: SecurityHeaders

    public init(_ headers: SecurityHeaders = .standard) { self.headers = headers }

    public func respond(to request: Request, chainingTo next: any Responder) -> EventLoopFuture<Response> {
        let values: [(String, String?)] = [
            ("X-Frame-Options", headers.frameOptions), ("Content-Security-Policy", headers.contentSecurityPolicy),
            ("X-Content-Type-Options", headers.contentTypeOptions), ("Referrer-Policy", headers.referrerPolicy),
        ]
        return next.respond(to: request).map { response in
            for (name, value) in values where !response.headers.contains(name: name) {
                if let value { response.headers.replaceOrAdd(name: name, value: value) }
            }
            return response
        }
    }
}
