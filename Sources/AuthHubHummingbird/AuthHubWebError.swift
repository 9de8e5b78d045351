import AuthHub
import Foundation
import Hummingbird

/// An ``AuthError`` as the response a browser or an API client should get, the way AuthHub's own
/// routes answer: throw `web.httpError(error)` from a route that calls the hub.
///
/// | error | response |
/// |---|---|
/// | the session is over (`refreshTokenInvalid`, `sessionExpired`, `noSession`) | 401, the session cookie cleared (the hub has removed the session already) |
/// | the provider is unreachable or busy (`network`, `timeout`, `providerUnavailable`, `rateLimited`) | 503 with `Retry-After` when the provider gave one; the session and the cookie are kept |
/// | `accessDenied`, `insufficientScope`, `mfaRequired`, `requiresRecentLogin` | 403 |
/// | anything else | 500 |
///
/// The body is one plain sentence with no detail that could help an attacker (the error's own
/// message may quote a provider); every response is `no-store`.
public struct AuthHubWebError: HTTPResponseError, Sendable {
    /// The error answered.
    public let error: AuthError
    /// The status it maps to.
    public let status: HTTPResponse.Status
    /// The session cookie to clear, when the session is over.
    let clearedCookie: Cookie?
    /// The headers of the web integration's configuration.
    let securityHeaders: SecurityHeaders

    init(_ error: any Error, web: AuthHubWeb) {
        let error = AuthError.wrap(error)
        self.error = error
        securityHeaders = web.configuration.securityHeaders
        switch error.code {
        case .refreshTokenInvalid, .sessionExpired, .noSession:
            status = .unauthorized
            clearedCookie = web.clearing(web.configuration.sessionCookieName)
        case let code where code.isTransientByDefault:  // network, timeout, providerUnavailable, rateLimited
            status = .serviceUnavailable
            clearedCookie = nil
        case .accessDenied, .insufficientScope, .mfaRequired, .requiresRecentLogin:
            status = .forbidden
            clearedCookie = nil
        default:
            status = .internalServerError
            clearedCookie = nil
        }
    }

    /// The sentence shown for each status.
    var text: String {
        switch status {
        case .unauthorized: "Your session has ended. Please sign in again."
        case .serviceUnavailable: "The sign-in service did not answer. Please try again."
        case .forbidden: "This is not allowed with your current sign-in."
        default: "Something went wrong. Please try again."
        }
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = AuthHubWeb.page(status, text)
        if status == .serviceUnavailable, let wait = error.retryAfter {
            response.headers[.retryAfter] = String(max(1, min(Int64(wait.components.seconds), 86_400)))
        }
        if let clearedCookie { response.setCookie(clearedCookie) }
        securityHeaders.apply(to: &response.headers)
        return response
    }
}

extension AuthHubWeb {
    /// The response for an error from the hub, AuthHub's way (see ``AuthHubWebError``): a session that
    /// is over answers 401 and clears the cookie; an unreachable provider 503, keeping both.
    ///
    /// <!-- example: context web: AuthHubWeb, identity: AuthHubIdentity, account: String -->
    /// ```swift
    /// do { _ = try await hub.refresh(provider: identity.provider, account: account) }
    /// catch { throw web.httpError(error) }
    /// ```
    public func httpError(_ error: any Error) -> AuthHubWebError { AuthHubWebError(error, web: self) }
}
