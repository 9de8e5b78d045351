import AuthHub
import Vapor

/// The sign-in, callback and sign-out routes under the configuration's prefix (`/auth`):
/// `GET`/`POST login`, `GET callback`, `POST logout`, `POST backchannel-logout` and `GET`/`POST second-factor` (see
/// ``AuthHubWeb/login(_:)``, ``AuthHubWeb/submitLogin(_:)``, ``AuthHubWeb/callback(_:)``, ``AuthHubWeb/logout(_:)``,
/// ``AuthHubWeb/backChannelLogout(_:)``,
/// ``AuthHubWeb/secondFactor(_:)`` and ``AuthHubWeb/submitSecondFactor(_:)``).
///
/// <!-- example: context app: Application, web: AuthHubWeb -->
/// ```swift
/// try app.register(collection: AuthHubRoutes(web))
/// ```
public struct AuthHubRoutes: RouteCollection, Sendable {
    public let web: AuthHubWeb

    public init(_ web: AuthHubWeb) { self.web = web }

    public func boot(routes: any RoutesBuilder) throws {
        let prefix = web.configuration.routePrefix.split(separator: "/").map { PathComponent.constant(String($0)) }
        let group = routes.grouped(prefix), web = self.web
        group.get("login") { request async -> Response in Response(await web.login(WebRequest(request))) }
        group.on(.POST, "login", body: .stream) { request async -> Response in Response(await web.submitLogin(WebRequest(request))) }
        group.get("callback") { request async -> Response in Response(await web.callback(WebRequest(request))) }
        group.on(.POST, "backchannel-logout", body: .stream) { request async -> Response in
            Response(await web.backChannelLogout(WebRequest(request)))
        }
        group.on(.POST, "logout", body: .stream) { request async -> Response in
            Response(await web.logout(WebRequest(request)))
        }
        group.get("second-factor") { request async -> Response in Response(await web.secondFactor(WebRequest(request))) }
        group.on(.POST, "second-factor", body: .stream) { request async -> Response in
            Response(await web.submitSecondFactor(WebRequest(request)))
        }
    }
}

/// The account pages under the configuration's ``WebSignInConfiguration/accountPath`` (`/account`):
/// `GET /`, `GET enroll`, `GET edit`, `GET confirm` and `POST /` (see ``AuthHubWeb/accountPage(_:)``,
/// ``AuthHubWeb/accountEnrollPage(_:)``, ``AuthHubWeb/accountEditPage(_:)``, ``AuthHubWeb/accountConfirmPage(_:)`` and
/// ``AuthHubWeb/accountAction(_:)``); they resolve the session themselves.
///
/// <!-- example: context app: Application, web: AuthHubWeb -->
/// ```swift
/// try app.register(collection: AuthHubAccountRoutes(web))
/// ```
public struct AuthHubAccountRoutes: RouteCollection, Sendable {
    public let web: AuthHubWeb

    public init(_ web: AuthHubWeb) { self.web = web }

    public func boot(routes: any RoutesBuilder) throws {
        let prefix = web.configuration.accountPath.split(separator: "/").map { PathComponent.constant(String($0)) }
        let group = routes.grouped(prefix), web = self.web
        group.get { request async -> Response in Response(await web.accountPage(WebRequest(request))) }
        group.get("enroll") { request async -> Response in Response(await web.accountEnrollPage(WebRequest(request))) }
        group.get("edit") { request async -> Response in Response(await web.accountEditPage(WebRequest(request))) }
        group.get("confirm") { request async -> Response in Response(await web.accountConfirmPage(WebRequest(request))) }
        group.on(.POST, body: .stream) { request async -> Response in Response(await web.accountAction(WebRequest(request))) }
    }
}

extension AuthHubWeb {
    /// Whether a state-changing request of a signed-in browser (a form of the app's own) may be
    /// served: it comes from the app's origin and carries the session's CSRF token (form field
    /// `csrf`, up to 4 KiB of form body, or header `X-CSRF-Token`).
    /// - Parameter value: the session cookie's value (``AuthHubIdentity/Source/session(id:)``).
    public func isValidStateChange(_ request: Request, sessionCookie value: String) async throws -> Bool {
        try await isValidStateChange(WebRequest(request), sessionCookie: value)
    }
}
