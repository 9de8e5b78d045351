import AuthHub
import AuthHubEmulator
import AuthHubVapor
import AuthHubVaporExample
import AuthHubWebExample
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Vapor

/// The "web sign-in" rows of `authhub demo`: each example web app — Hummingbird (Examples/WebApp) and
/// Vapor (Examples/VaporApp), the same pages on the two adapters — runs in-process on a loopback port
/// over the demo's hub, and the demo plays a browser with a cookie jar: the app's sign-in link, the
/// emulator's real Universal Login form (no test hook), the callback, the profile page, and the
/// sign-out form with its CSRF token.
enum DemoWebFlows {
    /// - Parameter makeHub: a hub of the demo's configuration for the Vapor app, which shuts it down
    ///   with itself.
    static func run(hub: AuthHub, emulator: RunningEmulator, into report: inout DemoReport, makeHub: () throws -> AuthHub) async {
        await report.record(provider: "auth0", flow: "web sign-in (Hummingbird example app, login form, cookie session)") {
            let email = try await seedUser(emulator)
            let port = try await freeLoopbackPort()
            let base = try URL(string: "http://127.0.0.1:\(port)").orThrow("no base URL")
            let router = try await WebExampleApp.router(hub: hub, publicBaseURL: base, apiAudience: nil)
            let app = Hummingbird.Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
            // Stopped gracefully (not cancelled: a cancelled server logs its shutdown at level error).
            let group = ServiceGroup(configuration: .init(services: [app], logger: Logger(label: "authhub.demo.webapp")))
            let server = Task { try await group.run() }
            do {
                try await signInAndOut(base: base, port: port, email: email)
            } catch {
                await group.triggerGracefulShutdown()
                _ = await server.result
                throw error
            }
            await group.triggerGracefulShutdown()
            _ = await server.result
        }
        await report.record(provider: "auth0", flow: "web sign-in (Vapor example app, login form, cookie session)") {
            let email = try await seedUser(emulator)
            let appHub = try makeHub()
            let app = try await Vapor.Application.make(.custom(name: "demo"))
            app.logger.logLevel = .error
            do {
                // Routes first (Vapor builds its responder when the server starts), so the port is chosen first.
                let port = try await freeLoopbackPort()
                let base = try URL(string: "http://127.0.0.1:\(port)").orThrow("no base URL")
                try app.useAuthHub(appHub, web: WebSignInConfiguration(publicBaseURL: base))
                try await VaporExampleApp.configure(app, apiAudience: nil)
                try await app.server.start(address: .hostname("127.0.0.1", port: port))
                try await signInAndOut(base: base, port: port, email: email)
            } catch {
                await app.server.shutdown()
                try? await app.asyncShutdown()
                throw error
            }
            await app.server.shutdown()
            try await app.asyncShutdown()
        }
    }

    /// A fresh Universal Login user of the emulator's tenant.
    static func seedUser(_ emulator: RunningEmulator) async throws -> String {
        let email = "web+\(UUID().uuidString.prefix(8).lowercased())@example.com"
        try await DemoAuth0Flows.seed(email, extra: [:], emulator: emulator, transport: URLSessionTransport(defaultTimeout: .seconds(10)))
        return email
    }

    /// A loopback port nobody listens on now (bound by SwiftNIO and closed), for the example app,
    /// whose sign-in URLs must name its port before it starts. Another process may take it in between.
    static func freeLoopbackPort() async throws -> Int {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
        let port = channel.localAddress?.port
        try await channel.close()
        return try port.orThrow("no loopback port could be bound")
    }

    /// The browser's part of the row, against the app at `base`.
    static func signInAndOut(base: URL, port: Int, email: String) async throws {
        do {
            let browser = CookieBrowser()
            // The app may take a moment to listen.
            var home: HTTPReply?
            for _ in 0..<100 {
                if let reply = try? await browser.send(.get, base) { home = reply; break }
                try await Task.sleep(for: .milliseconds(20))
            }
            let homePage = String(decoding: try home.orThrow("the example app did not start").body, as: UTF8.self)
            guard homePage.contains("/auth/login?provider=auth0") else { throw DemoFailure("the home page lists no Auth0 sign-in link") }
            // Sign-in link → the emulator's login form (a real page: no test hook).
            let (loginPage, loginURL) = try await browser.follow(.get, base.appendingPathComponent("auth/login").appending(queryItems: [
                URLQueryItem(name: "provider", value: "auth0"), URLQueryItem(name: "returnTo", value: "/profile"),
            ]))
            let html = String(decoding: loginPage.body, as: UTF8.self)
            guard loginPage.status == 200, let action = attribute("action", in: html, after: "<form"),
                  let transaction = attribute("value", in: html, after: "name=\"transaction\"") else {
                throw DemoFailure("no login form at \(loginURL.path) (HTTP \(loginPage.status))")
            }
            let formURL = try URL(string: action, relativeTo: loginURL).orThrow("bad form action").absoluteURL
            let (profile, profileURL) = try await browser.follow(.post, formURL, form: [
                ("transaction", transaction), ("email", email), ("password", DemoAuth0Flows.password),
            ])
            let profileHTML = String(decoding: profile.body, as: UTF8.self)
            guard profile.status == 200, profileURL.path == "/profile", profileHTML.contains(email) else {
                throw DemoFailure("the profile page did not show the user (HTTP \(profile.status) at \(profileURL.path))")
            }
            let csrf = try attribute("value", in: profileHTML, after: "name=\"csrf\"").orThrow("no CSRF token on the profile page")
            let (out, _) = try await browser.follow(.post, base.appendingPathComponent("auth/logout"), form: [("csrf", csrf)],
                                                    origin: "http://127.0.0.1:\(port)")
            guard out.status == 200 else { throw DemoFailure("sign-out answered HTTP \(out.status)") }
            let after = try await browser.send(.get, base.appendingPathComponent("profile"))
            guard after.status == 401 else { throw DemoFailure("the profile is still served after sign-out (HTTP \(after.status))") }
        }
    }

    /// The value of the first `name="…"` attribute after `marker` in a page the emulator or the app wrote.
    static func attribute(_ name: String, in html: String, after marker: String) -> String? {
        guard let start = html.range(of: marker) else { return nil }
        let rest = html[start.upperBound...]
        guard let open = rest.range(of: "\(name)=\"") else { return nil }
        let value = rest[open.upperBound...].prefix { $0 != "\"" }
        return String(value).replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(of: "&quot;", with: "\"")
    }
}
