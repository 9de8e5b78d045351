import AuthHub
import AuthHubWebCore
import Foundation
import HTTPTypes

/// One check's world: the environment, the app the adapter serves, and the client that plays the
/// browser; the checks themselves are in the extensions.
struct WebConformanceCheck: Sendable {
    /// The app's public base URL in every check (loopback development mode: plain-HTTP cookies). The
    /// app listens elsewhere; the suite sends this origin, as a browser on this address would.
    static let publicBaseURL = URL(string: "http://127.0.0.1:8080")!
    static let origin = "http://127.0.0.1:8080"

    let environment: WebConformanceEnvironment
    let app: WebConformanceApp
    let client: WebConformanceClient

    var web: AuthHubWeb { app.web }
    var hub: AuthHub { app.hub }
    var provider: String { environment.providerID }
    var sessionName: String { web.configuration.sessionCookieName }
    var preName: String { web.configuration.preSessionCookieName }
    var prefix: String { web.configuration.routePrefix }

    struct Stop: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts a sign-in and plays the provider's part: the pre-session cookie, the authorize URL and
    /// the callback's path and query.
    func begin(returnTo: String = "/me") async throws -> (pre: String, authorize: URL, callback: String) {
        let escaped = returnTo.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let login = try await client.get("\(prefix)/login?provider=\(provider)&returnTo=\(escaped)")
        guard login.status == 302, let pre = login.cookie(preName), let location = login.location, let authorize = URL(string: location) else {
            throw Stop(description: "the login route did not start a sign-in: \(login.summary)")
        }
        let back = try await environment.approve(authorize)
        guard let components = URLComponents(url: back, resolvingAgainstBaseURL: false), components.path == "\(prefix)/callback" else {
            throw Stop(description: "the provider did not redirect to the callback route: \(back.path)")
        }
        return (pre, authorize, components.path + "?" + (components.percentEncodedQuery ?? ""))
    }

    /// Signs in through the routes and returns the session cookie's value.
    func signIn(returnTo: String = "/me") async throws -> String {
        let (pre, _, callback) = try await begin(returnTo: returnTo)
        let finished = try await client.get(callback, cookies: [(preName, pre)])
        guard finished.status == 302, finished.location == returnTo, let sid = finished.cookie(sessionName), !sid.isEmpty else {
            throw Stop(description: "the callback did not sign in: \(finished.summary), Location \(finished.location ?? "none")")
        }
        return sid
    }

    /// The session's CSRF token, as the app's pages give it.
    func csrf(_ sid: String) async throws -> String {
        let reply = try await client.get("/csrf", cookies: [(sessionName, sid)])
        guard reply.status == 200, !reply.body.isEmpty else { throw Stop(description: "GET /csrf: \(reply.summary)") }
        return reply.body
    }

    func me(_ sid: String) async throws -> WebConformanceReply {
        try await client.get("/me", cookies: [(sessionName, sid)])
    }

    func logout(_ sid: String, form: String, origin: String? = WebConformanceCheck.origin, headers: HTTPFields = [:]) async throws -> WebConformanceReply {
        var fields = headers
        if let origin { fields[.origin] = origin }
        return try await client.send(.post, "\(prefix)/logout", cookies: [(sessionName, sid)], headers: fields, form: form)
    }

    /// The one stored session's key (the suite's hub holds only the browser sessions it made).
    func onlyKey(_ failures: inout Failures) async throws -> SessionKey? {
        let keys = try await hub.store.keys()
        failures.expect(keys.count == 1, "expected one stored session, found \(keys.count)")
        return keys.first
    }

    static let securityHeaders: [(String, String)] = [
        ("X-Frame-Options", "DENY"), ("Content-Security-Policy", "frame-ancestors 'none'"),
        ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "same-origin"),
    ]

    static func expectSecurityHeaders(_ reply: WebConformanceReply, _ what: String, _ failures: inout Failures) {
        for (name, value) in securityHeaders {
            let given = HTTPField.Name(name).flatMap { reply.headers[$0] }
            failures.expect(given == value, "\(what): \(name) is \(given ?? "missing"), expected \(value)")
        }
    }
}
