@_exported import AuthHubWebCore
import AuthHub
import Foundation
import Hummingbird
import HummingbirdAuth

extension AuthHubWeb {
    /// The sign-in, callback and sign-out routes, to add with
    /// `router.addRoutes(web.routes(context: AppContext.self), atPath: web.configuration.routePrefix)`:
    /// `GET`/`POST login`, `GET callback`, `POST logout`, `POST backchannel-logout` and `GET`/`POST second-factor` (see
    /// ``AuthHubWeb/login(_:)``, ``AuthHubWeb/submitLogin(_:)``, ``AuthHubWeb/callback(_:)``, ``AuthHubWeb/logout(_:)``,
    /// ``AuthHubWeb/backChannelLogout(_:)``,
    /// ``AuthHubWeb/secondFactor(_:)`` and ``AuthHubWeb/submitSecondFactor(_:)``).
    public func routes<Context: AuthRequestContext>(context: Context.Type = Context.self) -> RouteCollection<Context>
    where Context.Identity == AuthHubIdentity {
        let routes = RouteCollection(context: Context.self)
        routes.get("login") { request, _ in Response(await self.login(WebRequest(request))) }
        routes.post("login") { request, context in Response(await self.submitLogin(WebRequest(request, context: context))) }
        routes.get("callback") { request, context in Response(await self.callback(WebRequest(request, context: context))) }
        routes.post("logout") { request, _ in Response(await self.logout(WebRequest(request))) }
        routes.post("backchannel-logout") { request, _ in Response(await self.backChannelLogout(WebRequest(request))) }
        routes.get("second-factor") { request, _ in Response(await self.secondFactor(WebRequest(request))) }
        routes.post("second-factor") { request, _ in Response(await self.submitSecondFactor(WebRequest(request))) }
        return routes
    }

    /// The account pages, to add with
    /// `router.addRoutes(web.accountRoutes(context: AppContext.self), atPath: web.configuration.accountPath)`:
    /// `GET /`, `GET enroll`, `GET edit`, `GET confirm` and `POST /` (see ``AuthHubWeb/accountPage(_:)``,
    /// ``AuthHubWeb/accountEnrollPage(_:)``, ``AuthHubWeb/accountEditPage(_:)``, ``AuthHubWeb/accountConfirmPage(_:)`` and
    /// ``AuthHubWeb/accountAction(_:)``). They resolve the session themselves (no middleware needed).
    public func accountRoutes<Context: RequestContext>(context: Context.Type = Context.self) -> RouteCollection<Context> {
        let routes = RouteCollection(context: Context.self)
        routes.get { request, _ in Response(await self.accountPage(WebRequest(request))) }
        routes.get("enroll") { request, _ in Response(await self.accountEnrollPage(WebRequest(request))) }
        routes.get("edit") { request, _ in Response(await self.accountEditPage(WebRequest(request))) }
        routes.get("confirm") { request, _ in Response(await self.accountConfirmPage(WebRequest(request))) }
        routes.post { request, _ in Response(await self.accountAction(WebRequest(request))) }
        return routes
    }

    /// Whether a state-changing request of a signed-in browser (a form of the app's own) may be
    /// served: it comes from the app's origin and carries the session's CSRF token (form field
    /// `csrf`, up to 4 KiB of form body, or header `X-CSRF-Token`).
    /// - Parameter value: the session cookie's value (``AuthHubIdentity/Source/session(id:)``).
    public func isValidStateChange(_ request: Request, sessionCookie value: String) async throws -> Bool {
        try await isValidStateChange(WebRequest(request), sessionCookie: value)
    }

    /// The error for a route to throw for an error from the hub, AuthHub's way (see
    /// ``AuthHubWeb/errorResponse(for:)``): a session that is over answers 401 and clears the cookie;
    /// an unreachable provider 503, keeping both.
    ///
    /// <!-- example: context web: AuthHubWeb, identity: AuthHubIdentity, account: String -->
    /// ```swift
    /// do { _ = try await hub.refresh(provider: identity.provider, account: account) }
    /// catch { throw web.httpError(error) }
    /// ```
    public func httpError(_ error: any Error) -> AuthHubWebError { AuthHubWebError(error, web: self) }
}

/// An error from the hub as the response AuthHub's web core gives it (``AuthHubWeb/errorResponse(for:)``),
/// thrown from a Hummingbird route: `throw web.httpError(error)`.
public struct AuthHubWebError: HTTPResponseError, Sendable {
    /// The error answered.
    public let error: AuthError
    /// The response it maps to.
    public let webResponse: WebResponse
    /// The status it maps to.
    public var status: HTTPResponse.Status { webResponse.status }

    init(_ error: any Error, web: AuthHubWeb) {
        self.error = AuthError.wrap(error)
        webResponse = web.errorResponse(for: error)
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response { Response(webResponse) }
}

extension WebRequest {
    /// ``init(_:)`` with the client's address from a context that records it
    /// (`RemoteAddressRequestContext`; `AuthHubRequestContext` does not, an app's own context may).
    public init(_ request: Request, context: some RequestContext) {
        self.init(request)
        peerAddress = (context as? any RemoteAddressRequestContext)?.remoteAddress?.ipAddress
    }

    /// The web core's view of a Hummingbird request: its head as is, its body read on demand.
    public init(_ request: Request) {
        let body = request.body
        self.init(head: request.head) { limit in
            var buffer = try await body.collect(upTo: limit)
            return buffer.readBytes(length: buffer.readableBytes) ?? []
        }
    }
}

extension Response {
    /// A Hummingbird response with the web core's status, header fields and body.
    public init(_ response: WebResponse) {
        self.init(status: response.status, headers: response.headerFields,
                  body: response.body.isEmpty ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(bytes: response.body)))
    }
}
