import AuthHub
import HTTPTypes

extension AuthHubWeb {
    /// The response a browser or an API client should get for an error from the hub, the way
    /// AuthHub's own handlers answer (the adapters throw it as their framework's error:
    /// `web.httpError(error)` in Hummingbird, `req.authHubError(error)` in Vapor).
    ///
    /// | error | response |
    /// |---|---|
    /// | the session is over (`refreshTokenInvalid`, `sessionExpired`, `noSession`) | 401, the session cookie cleared (the hub has removed the session already) |
    /// | the provider is unreachable or busy (`network`, `timeout`, `providerUnavailable`, `rateLimited`) | 503 with `Retry-After` when the provider gave one; the session and the cookie are kept |
    /// | `accessDenied`, `insufficientScope`, `mfaRequired`, `requiresRecentLogin` | 403 |
    /// | anything else | 500 |
    ///
    /// The body is one plain sentence with no detail that could help an attacker (the error's own
    /// message may quote a provider); every response is `no-store` and carries the configuration's
    /// ``SecurityHeaders``.
    public func errorResponse(for error: any Error) -> WebResponse {
        let error = AuthError.wrap(error)
        let status = Self.status(for: error.code)
        var response = WebResponse.page(status, Self.sentence(for: status))
        if status == .serviceUnavailable, let wait = error.retryAfter {
            response.headerFields[.retryAfter] = String(max(1, min(wait.components.seconds, 86_400)))
        }
        if status == .unauthorized { response.setCookie(clearing(configuration.sessionCookieName)) }
        return secured(response)
    }

    /// The status an ``AuthErrorCode`` answers (see ``errorResponse(for:)``).
    public static func status(for code: AuthErrorCode) -> HTTPResponse.Status {
        switch code {
        case .refreshTokenInvalid, .sessionExpired, .noSession: .unauthorized
        case let code where code.isTransientByDefault: .serviceUnavailable  // network, timeout, providerUnavailable, rateLimited
        case .accessDenied, .insufficientScope, .mfaRequired, .requiresRecentLogin: .forbidden
        default: .internalServerError
        }
    }

    /// The sentence shown for each status.
    static func sentence(for status: HTTPResponse.Status) -> String {
        switch status {
        case .unauthorized: "Your session has ended. Please sign in again."
        case .serviceUnavailable: "The sign-in service did not answer. Please try again."
        case .forbidden: "This is not allowed with your current sign-in."
        default: "Something went wrong. Please try again."
        }
    }
}
