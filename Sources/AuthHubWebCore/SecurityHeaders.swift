import HTTPTypes

/// The response headers that keep a page from being framed, sniffed or leaking its URL: sent by
/// AuthHub's own routes and errors, and by the adapters' security-headers middleware on an app's pages.
///
/// Defaults, each overridable (nil leaves the header out):
/// - `X-Frame-Options: DENY` and `Content-Security-Policy: frame-ancestors 'none'`: no other site can
///   frame a page to trick a click (clickjacking a "Sign out" or a consent button);
/// - `X-Content-Type-Options: nosniff`: a reply is only ever what its `Content-Type` says;
/// - `Referrer-Policy: same-origin`: the callback URL, which carries the authorization code and
///   `state`, is never sent on to another site in a `Referer`. (Not `no-referrer`: under it browsers
///   send `Origin: null` with every form POST, and the sign-out and state-change checks, which compare
///   `Origin` with the app's origin, would refuse the app's own forms.)
///
/// A header the route set itself is kept.
public struct SecurityHeaders: Sendable, Hashable {
    public var frameOptions: String?
    public var contentSecurityPolicy: String?
    public var contentTypeOptions: String?
    public var referrerPolicy: String?

    public init(frameOptions: String? = "DENY", contentSecurityPolicy: String? = "frame-ancestors 'none'",
                contentTypeOptions: String? = "nosniff", referrerPolicy: String? = "same-origin") {
        self.frameOptions = frameOptions
        self.contentSecurityPolicy = contentSecurityPolicy
        self.contentTypeOptions = contentTypeOptions
        self.referrerPolicy = referrerPolicy
    }

    /// The defaults.
    public static let standard = SecurityHeaders()

    /// Sets each header that `headers` does not have yet.
    public func apply(to headers: inout HTTPFields) {
        let values: [(HTTPField.Name, String?)] = [
            (.constant("X-Frame-Options"), frameOptions), (.contentSecurityPolicy, contentSecurityPolicy),
            (.constant("X-Content-Type-Options"), contentTypeOptions), (.constant("Referrer-Policy"), referrerPolicy),
        ]
        for (name, value) in values where headers[name] == nil {
            if let value { headers[name] = value }
        }
    }
}
