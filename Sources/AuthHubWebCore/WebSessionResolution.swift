import AuthHub

/// What a request's browser-session cookie comes to (``AuthHubWeb/resolveSession(cookie:)``), and
/// what an adapter's session middleware does with it.
public enum WebSessionResolution: Sendable {
    /// No session cookie: the request goes on without an identity.
    case anonymous
    /// A valid session: the request goes on with `identity`; `cookie` (the session cookie with a
    /// renewed `Max-Age`), when due, is added to the response unless the route set the cookie
    /// itself. It is due when this replica has not sent it for a minute (see
    /// ``AuthHubWeb/cookieRenewalInterval``); nil otherwise.
    case signedIn(AuthHubIdentity, cookie: WebCookie?)
    /// The cookie names no usable session: the request goes on without an identity, and `clear` is
    /// added to the response (error responses included) unless the route set the cookie itself.
    case ended(clear: WebCookie)
    /// The session could not be resolved (the provider unreachable while it needs renewing: 503,
    /// session and cookie kept): answer this response instead of running the route.
    case failed(WebResponse)

    /// The identity to put on the request.
    public var identity: AuthHubIdentity? {
        if case .signedIn(let identity, _) = self { return identity }
        return nil
    }

    /// The cookie to add to the route's response (``WebCookie/isSet(_:in:)`` false for its name).
    public var responseCookie: WebCookie? {
        switch self {
        case .signedIn(_, let cookie): cookie
        case .ended(let clear): clear
        case .anonymous, .failed: nil
        }
    }

    /// Adds ``responseCookie`` to a route's `Set-Cookie` values unless the route set that cookie:
    /// `append` is called with the header value to add.
    public func finish(setCookieValues: some Sequence<String>, append: (String) -> Void) {
        responseCookie?.add(unlessSetIn: setCookieValues, append: append)
    }
}
