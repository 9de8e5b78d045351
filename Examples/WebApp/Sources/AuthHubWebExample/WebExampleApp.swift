import AuthHub
import AuthHubHummingbird
import Foundation
import Hummingbird
import HummingbirdAuth

/// The example web app of the repository: a Hummingbird 2 app that signs users in with every
/// web-capable provider of providers.json (AuthHubHummingbird), shows their profile, renews their
/// token on demand, signs them out, and serves one JSON API route behind the bearer middleware.
///
/// - `GET /`: the providers with sign-in links, or who is signed in.
/// - `GET /profile` (signed in): the claims, the token's expiry, a "Refresh now" button and a
///   sign-out button (both forms carry the CSRF token).
/// - `GET /profile.json` (signed in): the same as JSON, for the page's own scripts.
/// - `POST /profile/refresh` (signed in, same origin, CSRF token): renews the access token now; a
///   revoked refresh token answers 401 and ends the browser session, an unreachable provider 503.
/// - `GET /api/me` (bearer token for `apiAudience`): the token's provider and subject as JSON.
public enum WebExampleApp {
    /// Builds the app's router.
    /// - Parameters:
    ///   - hub: the hub of providers.json's environment.
    ///   - publicBaseURL: where browsers reach the app (`http://127.0.0.1:PORT` in development).
    ///   - apiAudience: the API identifier bearer tokens must be issued for; nil: no API route.
    public static func router(hub: AuthHub, publicBaseURL: URL, apiAudience: String?) async throws -> Router<AuthHubRequestContext> {
        let web = try AuthHubWeb(hub: hub, configuration: WebSignInConfiguration(publicBaseURL: publicBaseURL))
        let router = Router(context: AuthHubRequestContext.self)
        // No framing, no sniffing, no Referer carrying a code, on every page (error pages too).
        router.add(middleware: AuthHubSecurityHeadersMiddleware())
        router.add(middleware: web.sessionMiddleware())
        router.addRoutes(web.routes(), atPath: RouterPath(web.configuration.routePrefix))

        router.get("/") { _, context in
            html(page(title: "AuthHub example", body: home(hub: hub, identity: context.identity)))
        }
        let profile = router.group("profile").add(middleware: IsAuthenticatedMiddleware())
        profile.get { _, context in
            html(page(title: "Profile", body: try profilePage(try context.requireIdentity())))
        }
        router.group("profile.json").add(middleware: IsAuthenticatedMiddleware()).get { _, context in
            let identity = try context.requireIdentity()
            var body: [String: JSONValue] = ["provider": .string(identity.provider), "claims": .object(identity.claims)]
            if let subject = identity.subject { body["subject"] = .string(subject) }
            if let expiresAt = identity.expiresAt { body["expiresAt"] = .number(expiresAt.timeIntervalSince1970.rounded(.down)) }
            return Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                            body: ResponseBody(byteBuffer: ByteBuffer(bytes: try JSONValue.object(body).serialized())))
        }
        profile.post("refresh") { request, context in
            let identity = try context.requireIdentity()
            guard case .session(let value) = identity.source, try await web.isValidStateChange(request, sessionCookie: value) else {
                throw HTTPError(.forbidden, message: "The form expired. Please try again.")
            }
            guard let account = web.account(ofSessionCookie: value) else { throw HTTPError(.unauthorized) }
            // AuthHub's errors the documented way: a session that is over answers 401 and clears the
            // cookie, an unreachable provider 503 (session and cookie kept).
            do { _ = try await hub.refresh(provider: identity.provider, account: account) } catch { throw web.httpError(error) }
            return Response(status: .seeOther, headers: [.location: "/profile"])
        }
        if let apiAudience {
            let bearer = try await AuthHubBearerMiddleware<AuthHubRequestContext>(hub: hub, audience: apiAudience)
            router.group("api").add(middleware: bearer).add(middleware: IsAuthenticatedMiddleware())
                .get("me") { _, context in
                    let identity = try context.requireIdentity()
                    let body = JSONValue.object(["provider": .string(identity.provider), "subject": identity.subject.map(JSONValue.string) ?? .null])
                    return Response(status: .ok, headers: [.contentType: "application/json"],
                                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: try body.serialized())))
                }
        }
        return router
    }

    static func home(hub: AuthHub, identity: AuthHubIdentity?) -> String {
        if let identity {
            return "<p>Signed in with \(escape(identity.provider)) as <b>\(escape(identity.email ?? identity.subject ?? "?"))</b>.</p>"
                + "<p><a href=\"/profile\">Your profile</a></p>"
        }
        let links = hub.providerIDs.filter { id in (try? hub.provider(id)).map { $0.capabilities.contains(.webAuth) } ?? false }
            .map { "<li><a href=\"/auth/login?provider=\(escape($0))&amp;returnTo=/profile\">Sign in with \(escape($0))</a></li>" }
        return "<p>You are signed out.</p><ul>\(links.joined())</ul>"
    }

    static func profilePage(_ identity: AuthHubIdentity) throws -> String {
        let claims = identity.claims.sorted { $0.key < $1.key }.map { key, value in
            "<tr><th>\(escape(key))</th><td>\(escape((try? value.serialized()).map { String(decoding: $0, as: UTF8.self) } ?? ""))</td></tr>"
        }
        let expiry = identity.expiresAt.map { ISO8601DateFormatter().string(from: $0) } ?? "unknown"
        let csrf = escape(identity.csrfToken ?? "")
        return """
        <h1 id="email">\(escape(identity.email ?? identity.subject ?? "?"))</h1>
        <p>Provider: \(escape(identity.provider)). Access token expires: <span id="expiry">\(escape(expiry))</span>.</p>
        <table>\(claims.joined())</table>
        <form method="post" action="/profile/refresh"><input type="hidden" name="csrf" value="\(csrf)"><button id="refresh">Refresh now</button></form>
        <form method="post" action="/auth/logout"><input type="hidden" name="csrf" value="\(csrf)"><button id="signout">Sign out</button></form>
        """
    }

    static func page(title: String, body: String) -> String {
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>\(escape(title))</title></head><body>\(body)</body></html>"
    }

    static func html(_ text: String) -> Response {
        Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
