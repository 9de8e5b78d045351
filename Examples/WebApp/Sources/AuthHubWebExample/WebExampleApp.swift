import AuthHub
import AuthHubExamplePages
import AuthHubHummingbird
import Foundation
import Hummingbird
import HummingbirdAuth

/// The Hummingbird example web app of the repository: it signs users in with every web-capable
/// provider of providers.json (AuthHubHummingbird), shows their profile, renews their token on
/// demand, signs them out, and serves one JSON API route behind the bearer middleware. The pages are
/// ``ExamplePages``, shared with the Vapor example (Examples/VaporApp).
public enum WebExampleApp {
    /// Builds the app's router.
    /// - Parameters:
    ///   - hub: the hub of providers.json's environment.
    ///   - publicBaseURL: where browsers reach the app (`http://127.0.0.1:PORT` in development).
    ///   - apiAudience: the API identifier bearer tokens must be issued for; nil: no API route.
    ///   - csrfKey: the key of the sign-out and form tokens, the same on every replica (nil: random).
    ///   - accountStepUpMaxAge: how recent a sign-in the account pages' sensitive actions need.
    public static func router(hub: AuthHub, publicBaseURL: URL, apiAudience: String?, csrfKey: Secret<String>? = nil,
                              accountStepUpMaxAge: Duration = .seconds(600)) async throws -> Router<AuthHubRequestContext> {
        var configuration = WebSignInConfiguration(publicBaseURL: publicBaseURL, csrfKey: csrfKey)
        configuration.accountStepUpMaxAge = accountStepUpMaxAge
        let web = try AuthHubWeb(hub: hub, configuration: configuration)
        let router = Router(context: AuthHubRequestContext.self)
        // No framing, no sniffing, no Referer carrying a code, on every page (error pages too).
        router.add(middleware: AuthHubSecurityHeadersMiddleware())
        router.add(middleware: web.sessionMiddleware())
        router.addRoutes(web.routes(), atPath: RouterPath(web.configuration.routePrefix))
        router.addRoutes(web.accountRoutes(), atPath: RouterPath(web.configuration.accountPath))

        router.get("/") { _, context in Response(ExamplePages.home(web: web, identity: context.identity)) }
        let profile = router.group("profile").add(middleware: IsAuthenticatedMiddleware())
        profile.get { _, context in Response(ExamplePages.profile(web: web, try context.requireIdentity())) }
        router.group("profile.json").add(middleware: IsAuthenticatedMiddleware()).get { _, context in
            Response(ExamplePages.profileJSON(try context.requireIdentity()))
        }
        profile.post("refresh") { request, context in
            let identity = try context.requireIdentity()
            // AuthHub's errors the documented way: a session that is over answers 401 and clears the
            // cookie, an unreachable provider 503 (session and cookie kept).
            do {
                return Response(try await ExamplePages.refresh(web: web, identity: identity) {
                    try await web.isValidStateChange(request, sessionCookie: $0)
                })
            } catch {
                throw web.httpError(error)
            }
        }
        if let apiAudience {
            let bearer = try await AuthHubBearerMiddleware<AuthHubRequestContext>(hub: hub, audience: apiAudience)
            router.group("api").add(middleware: bearer).add(middleware: IsAuthenticatedMiddleware())
                .get("me") { _, context in Response(ExamplePages.apiMe(try context.requireIdentity())) }
        }
        return router
    }
}
