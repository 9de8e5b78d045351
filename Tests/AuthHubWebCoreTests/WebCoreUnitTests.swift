import AuthHub
import AuthHubAuth0
import AuthHubTesting
import AuthHubWebCore
import Foundation
import HTTPTypes
import Testing

/// The web core's framework-neutral pieces, without a server: the cookie header it writes and reads,
/// the request's query and form, the session resolution's cookie rule, and the error responses.
@Suite struct WebCookieTests {
    @Test func setCookieHeaders() {
        let secure = WebCookie(name: "__Host-authhub-session", value: "v", maxAge: 1800, secure: true)
        #expect(secure.headerValue == "__Host-authhub-session=v; Max-Age=1800; Path=/; Secure; HttpOnly; SameSite=Lax")
        let development = WebCookie(name: "authhub-session", value: "", maxAge: -5, secure: false)
        #expect(development.headerValue == "authhub-session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax", "a negative age is clamped to 0")
    }

    @Test(arguments: [
        (["authhub-session=abc"], "abc"),
        (["a=1; authhub-session=abc; b=2"], "abc"),
        (["a=1;authhub-session=abc"], "abc"),
        (["  authhub-session = abc\t; x=y"], "abc"),
        (["authhub-session=\"abc\""], "abc"),
        (["authhub-session=first; authhub-session=second"], "first"),
        (["a=1", "authhub-session=in-the-second-header"], "in-the-second-header"),
        (["authhub-session-old=no; authhub-session=yes"], "yes"),
        (["xauthhub-session=no"], nil),
        (["authhub-session"], nil),
        (["authhub-session="], ""),
        (["=abc; ;;"], nil),
        ([String](), nil),
    ] as [([String], String?)])
    func readingTheCookieHeader(headers: [String], expected: String?) {
        #expect(WebCookie.value(named: "authhub-session", in: headers) == expected, "\(headers)")
        // The first field alone, the rest only when needed: the same answer.
        var restRead = false
        let firstThenRest = WebCookie.value(named: "authhub-session", first: headers.first) {
            restRead = true
            return Array(headers.dropFirst())
        }
        #expect(firstThenRest == expected, "\(headers)")
        #expect(restRead == (!headers.isEmpty && WebCookie.value(named: "authhub-session", in: [headers[0]]) == nil), "\(headers)")
    }

    /// The in-place scanner against a plain reading of the same rule (split on `;`, the name before
    /// the first `=`, spaces and tabs trimmed, one pair of quotes dropped), on random headers made
    /// of the bytes that matter.
    @Test func theScannerAgreesWithAPlainReadingOnRandomHeaders() {
        func reference(_ name: String, _ header: String) -> String? {
            for pair in header.split(separator: ";", omittingEmptySubsequences: true) {
                guard let equals = pair.firstIndex(of: "=") else { continue }
                let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
                func trim(_ s: Substring) -> Substring { s.drop(while: blank).reversed().drop(while: blank).reversed().map(String.init).joined()[...] }
                guard trim(pair[..<equals]) == name[...] else { continue }
                var value = trim(pair[pair.index(after: equals)...])
                if value.count >= 2, value.first == "\"", value.last == "\"" { value = value.dropFirst().dropLast() }
                return String(value)
            }
            return nil
        }
        var generator = SystemRandomNumberGenerator()
        let alphabet: [Character] = ["a", "s", "=", ";", " ", "\t", "\"", "x", "é"]
        for _ in 0..<5000 {
            let header = String((0..<Int.random(in: 0...24, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
            for name in ["a", "s", "as", "x"] {
                #expect(WebCookie.value(named: name, in: [header]) == reference(name, header), "\(name) in \(header.debugDescription)")
            }
        }
    }

    @Test func anOversizedCookieHeaderIsNotParsed() {
        let huge = "authhub-session=abc; " + String(repeating: "x", count: 9000)
        #expect(WebCookie.value(named: "authhub-session", in: [huge]) == nil)
        #expect(WebCookie.value(named: "authhub-session", in: [huge, "authhub-session=ok"]) == "ok")
        #expect(WebCookie.value(named: "authhub-session", first: huge) { ["authhub-session=ok"] } == "ok")
    }

    @Test func aRouteSetCookieStands() {
        let renew = WebSessionResolution.ended(clear: WebCookie(name: "s", value: "", maxAge: 0, secure: false))
        var added: [String] = []
        renew.finish(setCookieValues: ["other=1; Path=/"]) { added.append($0) }
        #expect(added == ["s=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax"])
        added = []
        renew.finish(setCookieValues: ["s=new; Path=/"]) { added.append($0) }
        #expect(added.isEmpty, "the route set the cookie itself")
        WebSessionResolution.anonymous.finish(setCookieValues: []) { added.append($0) }
        WebSessionResolution.failed(.page(.serviceUnavailable, "x")).finish(setCookieValues: []) { added.append($0) }
        #expect(added.isEmpty)
    }
}

@Suite struct WebRequestTests {
    static func request(_ path: String, contentType: String? = "application/x-www-form-urlencoded", body: String = "",
                        failing: Bool = false) -> WebRequest {
        var fields = HTTPFields()
        if let contentType { fields[.contentType] = contentType }
        let bytes = Array(body.utf8)
        return WebRequest(head: HTTPRequest(method: .post, scheme: nil, authority: nil, path: path, headerFields: fields)) { limit in
            if failing || bytes.count > limit { throw AuthError(.invalidRequest, message: "too large") }
            return bytes
        }
    }

    @Test func pathAndQuery() {
        let request = Self.request("/auth/login?provider=auth0&returnTo=%2Fa%20b%2Bc&provider=other&x=a+b")
        #expect(request.path == "/auth/login")
        #expect(request.query == "provider=auth0&returnTo=%2Fa%20b%2Bc&provider=other&x=a+b")
        #expect(request.queryParameters["provider"] == "auth0", "the first of a repeated name")
        #expect(request.queryParameters["returnTo"] == "/a b+c")
        #expect(request.queryParameters["x"] == "a b", "+ is a space")
        #expect(Self.request("/plain").query == nil)
        #expect(Self.request("/plain").queryParameters.isEmpty)
    }

    @Test func forms() async throws {
        #expect(try await Self.request("/", body: "csrf=a%2Bb&csrf=last").formFields()["csrf"] == "last")
        #expect(try await Self.request("/", contentType: "application/json", body: "csrf=x").formFields().isEmpty)
        #expect(try await Self.request("/", contentType: nil, body: "csrf=x").formFields().isEmpty)
        #expect(try await Self.request("/", contentType: "Application/X-WWW-Form-Urlencoded; charset=utf-8", body: "a=1").formFields()["a"] == "1")
        let large = await #expect(throws: AuthError.self) { try await Self.request("/", body: String(repeating: "x", count: 5000)).formFields() }
        #expect(large?.code == .invalidRequest)
        let failing = await #expect(throws: AuthError.self) { try await Self.request("/", failing: true).formFields() }
        #expect(failing?.code == .invalidRequest)
    }
}

@Suite struct WebErrorResponseTests {
    static func web() throws -> AuthHubWeb {
        let registry = ProviderRegistry([Auth0Plugin()])
        let config = """
        {"defaultEnvironment": "dev", "environments": {"dev": {"defaultProvider": "auth0", "sessionStore": {"type": "memory"},
          "providers": [{"id": "auth0", "type": "auth0", "domain": "http://127.0.0.1:9/auth0", "clientId": "c"}]}}}
        """
        let environment = try ConfigLoader(registry: registry, environmentVariables: [:]).load(data: Data(config.utf8))
        let hub = try AuthHub(environment: environment, registry: registry, context: ProviderContext(transport: StubTransport()))
        return try AuthHubWeb(hub: hub, configuration: WebSignInConfiguration(publicBaseURL: URL(string: "https://app.example.com")!))
    }

    @Test func everyCodeMapsToItsStatus() throws {
        let web = try Self.web()
        let table: [(AuthErrorCode, HTTPResponse.Status, Bool)] = [
            (.refreshTokenInvalid, .unauthorized, true), (.sessionExpired, .unauthorized, true), (.noSession, .unauthorized, true),
            (.network, .serviceUnavailable, false), (.timeout, .serviceUnavailable, false), (.providerUnavailable, .serviceUnavailable, false),
            (.rateLimited, .serviceUnavailable, false), (.accessDenied, .forbidden, false), (.insufficientScope, .forbidden, false),
            (.mfaRequired, .forbidden, false), (.requiresRecentLogin, .forbidden, false), (.invalidCredentials, .internalServerError, false),
            (.unknown, .internalServerError, false),
        ]
        for (code, status, clears) in table {
            let response = web.errorResponse(for: AuthError(code, message: "secret detail from the provider"))
            #expect(response.status == status, "\(code)")
            #expect(response.setCookieValues == (clears ? ["__Host-authhub-session=; Max-Age=0; Path=/; Secure; HttpOnly; SameSite=Lax"] : []),
                    "\(code)")
            #expect(response.headerFields[.cacheControl] == "no-store")
            #expect(response.headerFields[HTTPField.Name("X-Frame-Options")!] == "DENY")
            #expect(!String(decoding: response.body, as: UTF8.self).contains("secret detail"), "the provider's message is not shown")
        }
        #expect(web.errorResponse(for: CancellationError()).status == .internalServerError, "an error that is not an AuthError")
    }

    @Test func retryAfterIsClamped() throws {
        let web = try Self.web()
        let cases: [(Duration, String)] = [(.seconds(7), "7"), (.milliseconds(10), "1"), (.seconds(10 * 86_400), "86400"), (.seconds(-3), "1")]
        for (wait, expected) in cases {
            #expect(web.errorResponse(for: AuthError(.rateLimited, retryAfter: wait)).headerFields[.retryAfter] == expected, "\(wait)")
        }
        #expect(web.errorResponse(for: AuthError(.accessDenied, retryAfter: .seconds(7))).headerFields[.retryAfter] == nil)
    }
}
