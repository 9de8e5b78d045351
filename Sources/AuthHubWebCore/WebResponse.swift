import HTTPTypes

/// A response of AuthHub's web core, for an adapter to send as its framework's response: the
/// status, the header fields (`Set-Cookie` may appear several times) and a small body.
public struct WebResponse: Sendable, Equatable {
    public var status: HTTPResponse.Status
    public var headerFields: HTTPFields
    public var body: [UInt8]

    public init(status: HTTPResponse.Status, headerFields: HTTPFields = [:], body: [UInt8] = []) {
        self.status = status
        self.headerFields = headerFields
        self.body = body
    }

    /// A plain-text page (the web core answers browsers; no detail that could help an attacker).
    public static func page(_ status: HTTPResponse.Status, _ text: String) -> WebResponse {
        WebResponse(status: status, headerFields: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
                    body: Array((text + "\n").utf8))
    }

    /// A redirect (302 by default) that no cache keeps.
    public static func redirect(_ location: String, status: HTTPResponse.Status = .found) -> WebResponse {
        WebResponse(status: status, headerFields: [.location: location, .cacheControl: "no-store"])
    }

    /// Appends a `Set-Cookie` field.
    public mutating func setCookie(_ cookie: WebCookie) {
        headerFields.append(HTTPField(name: .setCookie, value: cookie.headerValue))
    }

    /// The `Set-Cookie` values of this response.
    public var setCookieValues: [String] { headerFields[values: .setCookie] }
}
