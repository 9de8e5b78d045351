import AuthHub
import Foundation
import HTTPTypes
import Mustache

/// The look and the words of AuthHub's own pages (the second step of a sign-in, and the account
/// pages built on it): Mustache templates, strings and a stylesheet, each overridable by the app —
/// as Auth0's UI Components let an app theme its screens.
///
/// - ``templates``: a template by name replaces the built-in one (``DefaultWebTemplates/names``:
///   `layout` wraps every page and receives `{{{body}}}`; `second-factor`, …). Templates are
///   Mustache (swift-mustache): `{{value}}` is HTML-escaped, `{{{value}}}` is not and is used only
///   for HTML AuthHub made.
/// - ``strings``: a string by key replaces the built-in one (``DefaultWebTemplates/strings``);
///   templates read them as `{{t.key}}`.
/// - ``stylesheet``: replaces the built-in CSS; it is inlined under the page's CSP nonce.
/// - ``productName``: the name in every page's title and header.
public struct WebPages: Sendable {
    public var templates: [String: String]
    public var strings: [String: String]
    public var stylesheet: String?
    public var productName: String

    public init(templates: [String: String] = [:], strings: [String: String] = [:], stylesheet: String? = nil, productName: String = "Account") {
        self.templates = templates
        self.strings = strings
        self.stylesheet = stylesheet
        self.productName = productName
    }
}

/// Renders ``WebPages`` to responses: the layout around a page's body, the strings, the
/// stylesheet, and a `Content-Security-Policy` with a fresh nonce per response (no inline script or
/// style runs without it; nothing loads from another origin).
struct WebPageRenderer: Sendable {
    let library: MustacheLibrary
    let strings: [String: String]
    let stylesheet: String
    let productName: String

    /// - Throws: ``AuthErrorCode/invalidConfiguration`` naming a template that does not parse or
    ///   an unknown template name.
    init(_ pages: WebPages) throws {
        var library = MustacheLibrary()
        for (name, text) in DefaultWebTemplates.templates.merging(pages.templates, uniquingKeysWith: { _, app in app }) {
            guard DefaultWebTemplates.templates[name] != nil else {
                throw AuthError(.invalidConfiguration, message: "No page template is named '\(name)' (known: \(DefaultWebTemplates.names.joined(separator: ", "))).")
            }
            do {
                try library.register(text, named: name)
            } catch {
                throw AuthError(.invalidConfiguration, message: "The page template '\(name)' does not parse: \(error).")
            }
        }
        self.library = library
        strings = DefaultWebTemplates.strings.merging(pages.strings, uniquingKeysWith: { _, app in app })
        stylesheet = pages.stylesheet ?? DefaultWebTemplates.stylesheet
        productName = pages.productName
    }

    /// `template` rendered with `context` inside the layout, as an HTML response with its own CSP.
    func render(_ template: String, title: String, context: [String: Any], status: HTTPResponse.Status = .ok,
                refresh: String? = nil, random: any RandomSource) -> WebResponse {
        renderBody(title: title, status: status, refresh: refresh, random: random) { nonce in
            var values = context
            values["t"] = strings
            values["nonce"] = nonce
            values["product"] = productName
            values["passkeyScript"] = DefaultWebTemplates.passkeyScript
            return library.render(values, withTemplate: template) ?? ""
        }
    }

    /// A page whose body `body` makes (trusted markup, given the response's nonce) inside the layout;
    /// with `refresh` (a path of this site), the layout's `{{refresh}}` makes the browser go there at once.
    func renderBody(title: String, status: HTTPResponse.Status, refresh: String? = nil, random: any RandomSource,
                    body: (String) -> String) -> WebResponse {
        let nonce = Base64URL.encode(random.bytes(18))
        var values: [String: Any] = ["t": strings, "nonce": nonce, "product": productName, "title": title, "body": body(nonce),
                                     "stylesheet": stylesheet]
        if let refresh { values["refresh"] = refresh }
        let page = library.render(values, withTemplate: "layout") ?? ""
        var response = WebResponse(status: status, headerFields: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                                   body: Array(page.utf8))
        response.headerFields[.contentSecurityPolicy] = Self.contentSecurityPolicy(nonce: nonce)
        return response
    }

    /// Nothing from elsewhere; scripts and styles only with this response's nonce; images inline
    /// (the QR code is SVG in the page); forms post to this origin only; never framed.
    static func contentSecurityPolicy(nonce: String) -> String {
        "default-src 'none'; script-src 'nonce-\(nonce)'; style-src 'nonce-\(nonce)'; img-src 'self' data:; connect-src 'self'; "
            + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    }
}
