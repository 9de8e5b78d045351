import AuthHub
import AuthHubAuth0
import AuthHubEmulator
import AuthHubTesting
import Foundation
import HTTPTypes

/// The identity provider of the web adapter conformance suite in AuthHub's own tests: the
/// emulator's Auth0 tenant on loopback (a redirect provider with refresh tokens, revocation and JWT
/// access tokens), a seeded user, and a hub over a memory store — all on one manual fake clock.
public enum EmulatorWebEnvironment {
    public static let email = "web@example.com"
    public static let password = "correct horse battery staple"
    public static let audience = "https://api.example.com"
    static let emulatorUser = HTTPField.Name("X-AuthHub-Emulator-User")!

    /// A fresh environment: emulator, user, hub.
    @Sendable public static func make() async throws -> WebConformanceEnvironment {
        let clock = FakeClock(now: Date(), mode: .manual)
        let emulator = try await Emulator.start(EmulatorConfiguration(clock: clock))
        let wire = URLSessionTransport(defaultTimeout: .seconds(30), followRedirects: false)
        let providerCookie = Mutex<String?>(nil)
        let config = """
        {"defaultEnvironment": "dev", "environments": {"dev": {"defaultProvider": "auth0", "sessionStore": {"type": "memory"},
          "providers": [{"id": "auth0", "type": "auth0", "domain": "\(emulator.url("/auth0").absoluteString)", "clientId": "authhub-web"}]}}}
        """
        let registry = ProviderRegistry([Auth0Plugin()])
        let hub: AuthHub
        do {
            let environment = try ConfigLoader(registry: registry, environmentVariables: [:]).load(data: Data(config.utf8))
            hub = try AuthHub(environment: environment, registry: registry,
                              context: ProviderContext(transport: URLSessionTransport(defaultTimeout: .seconds(30)), clock: clock))
            let seeded = try await wire.send(.post, emulator.url("/auth0/__emulator/users"), headerFields: [.contentType: "application/json"],
                                             body: Data(#"{"email":"\#(email)","password":"\#(password)"}"#.utf8))
            guard seeded.status == 201 else { throw AuthError(.unknown, message: "seeding the emulator's user answered \(seeded.status)") }
        } catch {
            await emulator.stop()
            throw error
        }
        return WebConformanceEnvironment(
            hub: hub, clock: clock, providerID: "auth0", userEmail: email, apiAudience: audience,
            approve: { authorize in
                let reply = try await wire.send(.get, authorize, headerFields: [emulatorUser: email])
                guard reply.status == 302, let location = reply.headerFields[.location], let url = URL(string: location) else {
                    throw AuthError(.unknown, message: "the emulator's authorize endpoint answered \(reply.status)")
                }
                // The tenant's login-session cookie, to sign out of it later (endProviderSession).
                if let cookie = reply.headerFields[values: .setCookie].first(where: { $0.hasPrefix("auth0=") })?.split(separator: ";").first {
                    providerCookie.withLock { $0 = String(cookie) }
                }
                return url
            },
            revokeRefreshToken: { token in
                let body = try JSONValue.object(["client_id": .string("authhub-web"), "token": .string(token.revealed())]).serialized()
                let reply = try await wire.send(.post, emulator.url("/auth0/oauth/revoke"), headerFields: [.contentType: "application/json"],
                                                body: Data(body))
                guard reply.status == 200 else { throw AuthError(.unknown, message: "revocation answered \(reply.status)") }
            },
            stopProvider: { await emulator.stop() },
            accessToken: {
                let auth0 = try hub.provider("auth0", as: Auth0Provider.self)
                return try await auth0.authentication.login(usernameOrEmail: email, password: Secret(password),
                                                            realm: "Username-Password-Authentication", audience: audience).accessToken
            },
            tearDown: { await emulator.stop() },
            dpopAccessToken: {
                let auth0 = try hub.provider("auth0", as: Auth0Provider.self)
                let key = DPoPKey()
                let credentials = try await auth0.authentication.login(usernameOrEmail: email, password: Secret(password),
                                                                       realm: "Username-Password-Authentication", audience: audience, dpopKey: key)
                guard credentials.dpopKey == key else { throw AuthError(.unknown, message: "the emulator did not bind the token to the key") }
                return (credentials.accessToken, key)
            },
            registerBackChannelLogout: { logoutURL, callbackURL in
                let body = try JSONValue.object([
                    "client_id": "authhub-web", "callbacks": [.string(callbackURL.absoluteString)],
                    "oidc_logout": ["backchannel_logout_urls": [.string(logoutURL.absoluteString)]],
                ]).serialized()
                let reply = try await wire.send(.post, emulator.url("/auth0/__emulator/clients"), headerFields: [.contentType: "application/json"],
                                                body: body)
                guard reply.status == 201 else { throw AuthError(.unknown, message: "registering the client answered \(reply.status)") }
            },
            endProviderSession: {
                guard let cookie = providerCookie.withLock({ $0 }) else { throw AuthError(.unknown, message: "no login session at the tenant") }
                let reply = try await wire.send(.get, emulator.url("/auth0/v2/logout"), headerFields: [.cookie: cookie])
                guard reply.status == 302 || reply.status == 200 else { throw AuthError(.unknown, message: "the tenant's logout answered \(reply.status)") }
            })
    }
}
