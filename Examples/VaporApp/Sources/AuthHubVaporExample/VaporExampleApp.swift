import AuthHub
import AuthHubExamplePages
import AuthHubVapor
import Foundation
import Vapor

/// The Vapor example web app of the repository: the same pages and the same JSON API route as the
/// Hummingbird example (``ExamplePages``), on AuthHubVapor — the session authenticator logging the
/// user in on `req.auth`, the sign-in routes as a `RouteCollection`, the bearer authenticator on the
/// API, and the hub in the application's storage and lifecycle.
public enum VaporExampleApp {
    /// Configures `app`, in which a hub with a web sign-in is installed (`app.loadAuthHub(…, web:)` or
    /// `app.useAuthHub(_:web:)`), with its browser sign-in and the example's routes.
    /// - Parameter apiAudience: the API identifier bearer tokens must be issued for; nil: no API route.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` when no hub with a web sign-in is installed.
    public static func configure(_ app: Application, apiAudience: String?) async throws {
        let web = try app.authHubWeb, hub = web.hub
        // No framing, no sniffing, no Referer carrying a code, on every page (Vapor's error pages too:
        // the headers middleware sits outside the error middleware).
        app.middleware = Middlewares()
        app.middleware.use(AuthHubSecurityHeadersMiddleware())
        app.middleware.use(ErrorMiddleware.default(environment: app.environment))
        app.middleware.use(AuthHubSessionAuthenticator(web))
        try app.register(collection: AuthHubRoutes(web))
        try app.register(collection: AuthHubAccountRoutes(web))

        app.get { request in Response(ExamplePages.home(web: web, identity: request.auth.get(AuthHubIdentity.self))) }
        let signedIn = app.grouped(AuthHubGuardMiddleware())
        signedIn.get("profile") { request in Response(ExamplePages.profile(web: web, try request.auth.require(AuthHubIdentity.self))) }
        signedIn.get("profile.json") { request in Response(ExamplePages.profileJSON(try request.auth.require(AuthHubIdentity.self))) }
        signedIn.post("profile", "refresh") { request -> Response in
            let identity = try request.auth.require(AuthHubIdentity.self)
            // AuthHub's errors the documented way: a session that is over answers 401 and clears the
            // cookie, an unreachable provider 503 (session and cookie kept).
            do {
                return Response(try await ExamplePages.refresh(web: web, identity: identity) {
                    try await web.isValidStateChange(request, sessionCookie: $0)
                })
            } catch {
                throw request.authHubError(error)
            }
        }
        if let apiAudience {
            let bearer = try await AuthHubBearerAuthenticator(hub: hub, audience: apiAudience)
            app.grouped(bearer, AuthHubGuardMiddleware()).get("api", "me") { request in
                Response(ExamplePages.apiMe(try request.auth.require(AuthHubIdentity.self)))
            }
        }
    }
}
