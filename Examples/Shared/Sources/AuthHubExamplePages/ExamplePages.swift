import AuthHub
import AuthHubWebCore
import Foundation

/// The pages of the repository's example web apps, the same for the Hummingbird app
/// (Examples/WebApp) and the Vapor app (Examples/VaporApp): each app only routes to them.
///
/// - `GET /`: the providers with sign-in links, or who is signed in.
/// - `GET /profile` (signed in): the claims, the token's expiry, a "Refresh now" button and a
///   sign-out button (both forms carry the CSRF token).
/// - `GET /profile.json` (signed in): the same as JSON, for the page's own scripts.
/// - `POST /profile/refresh` (signed in, same origin, CSRF token): renews the access token now.
/// - `GET /api/me` (bearer token for the API audience): the token's provider and subject as JSON.
public enum ExamplePages {
    /// The home page.
    public static func home(hub: AuthHub, identity: AuthHubIdentity?) -> WebResponse {
        html(page(title: "AuthHub example", body: homeBody(hub: hub, identity: identity)))
    }

    /// The profile page of a signed-in user.
    public static func profile(_ identity: AuthHubIdentity) -> WebResponse {
        html(page(title: "Profile", body: profileBody(identity)))
    }

    /// `GET /profile.json`.
    public static func profileJSON(_ identity: AuthHubIdentity) -> WebResponse {
        var body: [String: JSONValue] = ["provider": .string(identity.provider), "claims": .object(identity.claims)]
        if let subject = identity.subject { body["subject"] = .string(subject) }
        if let expiresAt = identity.expiresAt { body["expiresAt"] = .number(expiresAt.timeIntervalSince1970.rounded(.down)) }
        return json(.object(body))
    }

    /// `GET /api/me`.
    public static func apiMe(_ identity: AuthHubIdentity) -> WebResponse {
        json(.object(["provider": .string(identity.provider), "subject": identity.subject.map(JSONValue.string) ?? .null]))
    }

    /// `POST /profile/refresh`: renews the signed-in browser's session now when the form is a valid
    /// state change, and redirects back to the profile; a refused form answers 403. Errors from the
    /// hub are thrown for the app to answer AuthHub's way (`web.httpError`, `req.authHubError`): a
    /// revoked refresh token 401 (the cookie cleared), an unreachable provider 503.
    public static func refresh(web: AuthHubWeb, identity: AuthHubIdentity, isValidStateChange: (String) async throws -> Bool) async throws -> WebResponse {
        guard case .session(let value) = identity.source, try await isValidStateChange(value), let account = web.account(ofSessionCookie: value) else {
            return .page(.forbidden, "The form expired. Please try again.")
        }
        _ = try await web.hub.refresh(provider: identity.provider, account: account)
        return .redirect("/profile", status: .seeOther)
    }

    static func homeBody(hub: AuthHub, identity: AuthHubIdentity?) -> String {
        if let identity {
            return "<p>Signed in with \(escape(identity.provider)) as <b>\(escape(identity.email ?? identity.subject ?? "?"))</b>.</p>"
                + "<p><a href=\"/profile\">Your profile</a></p>"
        }
        let links = hub.providerIDs.filter { id in (try? hub.provider(id)).map { $0.capabilities.contains(.webAuth) } ?? false }
            .map { "<li><a href=\"/auth/login?provider=\(escape($0))&amp;returnTo=/profile\">Sign in with \(escape($0))</a></li>" }
        return "<p>You are signed out.</p><ul>\(links.joined())</ul>"
    }

    static func profileBody(_ identity: AuthHubIdentity) -> String {
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

    static func html(_ text: String) -> WebResponse {
        WebResponse(status: .ok, headerFields: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"], body: Array(text.utf8))
    }

    static func json(_ value: JSONValue) -> WebResponse {
        let bytes = (try? value.serialized()).map(Array.init) ?? Array("{}".utf8)
        return WebResponse(status: .ok, headerFields: [.contentType: "application/json", .cacheControl: "no-store"], body: bytes)
    }

    /// Text for HTML: `&`, `<`, `>` and `"` escaped.
    public static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
