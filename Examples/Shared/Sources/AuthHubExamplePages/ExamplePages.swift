import AuthHub
import AuthHubWebCore
import Foundation

/// The pages of the repository's example web apps, the same for the Hummingbird app
/// (Examples/WebApp) and the Vapor app (Examples/VaporApp): each app only routes to them.
///
/// Pages are drawn in the account pages' look (`AuthHubWeb.page`), and link to them (`/account`).
///
/// - `GET /`: the providers with sign-in links, or who is signed in.
/// - `GET /profile` (signed in): the claims, the token's expiry, a "Refresh now" button and a
///   sign-out button (both forms carry the CSRF token).
/// - `GET /profile.json` (signed in): the same as JSON, for the page's own scripts.
/// - `POST /profile/refresh` (signed in, same origin, CSRF token): renews the access token now.
/// - `GET /api/me` (bearer token for the API audience): the token's provider and subject as JSON.
public enum ExamplePages {
    /// The home page, in the account pages' look (`AuthHubWeb.page`).
    public static func home(web: AuthHubWeb, identity: AuthHubIdentity?) -> WebResponse {
        web.page(title: "Home") { _ in homeBody(web: web, identity: identity) }
    }

    /// The profile page of a signed-in user, in the account pages' look.
    public static func profile(web: AuthHubWeb, _ identity: AuthHubIdentity) -> WebResponse {
        web.page(title: "Profile") { _ in profileBody(identity) }
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

    static func homeBody(web: AuthHubWeb, identity: AuthHubIdentity?) -> String {
        if let identity {
            return "<section class=\"ah-card\"><h1>Welcome</h1><p>Signed in with \(escape(identity.provider)) as <b>\(escape(identity.email ?? identity.subject ?? "?"))</b>.</p>"
                + "<p class=\"ah-actions\"><a class=\"ah-button\" href=\"/profile\">Your profile</a>"
                + "<a class=\"ah-button ah-secondary\" href=\"/account\">Manage your account</a></p></section>"
        }
        // Every provider that signs in from a browser: a redirect, or the web core's sign-in form.
        let links = web.signInProviderIDs
            .map { "<li><a class=\"ah-button\" href=\"/auth/login?provider=\(escape($0))&amp;returnTo=/profile\">Sign in with \(escape($0))</a></li>" }
        return "<section class=\"ah-card\"><h1>Welcome</h1><p>You are signed out.</p><ul class=\"ah-plain\">\(links.joined())</ul></section>"
    }

    static func profileBody(_ identity: AuthHubIdentity) -> String {
        let claims = identity.claims.sorted { $0.key < $1.key }.map { key, value in
            "<tr><th scope=\"row\">\(escape(key))</th><td>\(escape((try? value.serialized()).map { String(decoding: $0, as: UTF8.self) } ?? ""))</td></tr>"
        }
        let expiry = identity.expiresAt.map { ISO8601DateFormatter().string(from: $0) } ?? "unknown"
        let csrf = escape(identity.csrfToken ?? "")
        return """
        <section class="ah-card" aria-labelledby="email">
        <h1 id="email">\(escape(identity.email ?? identity.subject ?? "?"))</h1>
        <p>Provider: \(escape(identity.provider)). Access token expires: <span id="expiry">\(escape(expiry))</span>.</p>
        <p class="ah-actions"><a class="ah-button ah-secondary" id="account" href="/account">Manage your account</a></p>
        </section>
        <section class="ah-card" aria-labelledby="claims"><h2 id="claims">Claims</h2>
        <table><thead><tr><th scope="col">Claim</th><th scope="col">Value</th></tr></thead><tbody>\(claims.joined())</tbody></table>
        </section>
        <section class="ah-card ah-actions">
        <form method="post" action="/profile/refresh" class="ah-inline"><input type="hidden" name="csrf" value="\(csrf)"><button class="ah-button ah-secondary" id="refresh">Refresh now</button></form>
        <form method="post" action="/auth/logout" class="ah-inline"><input type="hidden" name="csrf" value="\(csrf)"><button class="ah-button ah-danger" id="signout">Sign out</button></form>
        </section>
        """
    }

    static func json(_ value: JSONValue) -> WebResponse {
        let bytes = (try? value.serialized()).map(Array.init) ?? Array("{}".utf8)
        return WebResponse(status: .ok, headerFields: [.contentType: "application/json", .cacheControl: "no-store"], body: bytes)
    }

    /// Text for HTML (`AuthHubWeb.escapeHTML`: `&`, `<`, `>`, `"` and `'` escaped).
    public static func escape(_ text: String) -> String { AuthHubWeb.escapeHTML(text) }
}
