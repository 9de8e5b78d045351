import AuthHub
import AuthHubAuth0
import AuthHubEmulator
import AuthHubHummingbird
import AuthHubOIDC
import AuthHubTesting
import AuthHubWebCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdAuth
import Logging
import Testing

/// DPoP end to end, over real HTTP on loopback: the hub signs in at the emulator's Auth0 tenant (and
/// through the generic OIDC provider pointed at it) with `dpop: true`, its tokens come back bound to
/// the session's key, renewal keeps them bound, and a Hummingbird API behind AuthHub's bearer
/// middleware accepts them with a proof from `authorizedTransport` — and refuses them without one.
@Suite struct DPoPEndToEndTests {
    static let api = "https://api.example.com"
    static let password = "correct horse battery staple"

    struct Fixture {
        let emulator: RunningEmulator
        let hub: AuthHub
        let wire = URLSessionTransport(defaultTimeout: .seconds(30), followRedirects: false)

        static func start() async throws -> Fixture {
            let emulator = try await Emulator.start()
            let domain = emulator.url("/auth0").absoluteString
            let config = """
            {"defaultEnvironment": "dev", "environments": {"dev": {"defaultProvider": "auth0", "sessionStore": {"type": "memory"},
              "providers": [{"id": "auth0", "type": "auth0", "domain": "\(domain)", "clientId": "authhub-dpop", "audience": "\(api)",
                             "connection": "Username-Password-Authentication", "dpop": true},
                            {"id": "plain", "type": "auth0", "domain": "\(domain)", "clientId": "authhub-dpop", "audience": "\(api)",
                             "connection": "Username-Password-Authentication"}]}}}
            """
            let registry = ProviderRegistry([Auth0Plugin(), OIDCPlugin()])
            let environment = try ConfigLoader(registry: registry, environmentVariables: [:]).load(data: Data(config.utf8))
            let hub = try AuthHub(environment: environment, registry: registry,
                                  context: ProviderContext(transport: URLSessionTransport(defaultTimeout: .seconds(30))))
            let fixture = Fixture(emulator: emulator, hub: hub)
            let seeded = try await fixture.wire.send(.post, emulator.url("/auth0/__emulator/users"), headerFields: [.contentType: "application/json"],
                                                     body: Data(#"{"email":"dora@example.com","password":"\#(password)"}"#.utf8))
            #expect(seeded.status == 201)
            return fixture
        }

        /// A Hummingbird API trusting the hub's providers' access tokens for ``api``.
        func startAPI() async throws -> RunningWebApp {
            let bearer = try await BearerTokenAuthenticator(hub: hub, audience: DPoPEndToEndTests.api)
            let router = Router(context: AuthHubRequestContext.self)
            router.group("api").add(middleware: AuthHubBearerMiddleware(bearer)).add(middleware: IsAuthenticatedMiddleware())
                .get("me") { _, context in try context.requireIdentity().subject ?? "-" }
            return try await HummingbirdWebConformanceTests.run(router)
        }
    }

    static func claims(of jwt: String) -> [String: JSONValue]? {
        let parts = jwt.split(separator: ".")
        guard parts.count == 3, let data = Base64URL.decode(String(parts[1])) else { return nil }
        return (try? JSONValue.parse(data))?.objectValue
    }

    @Test func aBoundSessionCallsAnAPIWithProofsAndStaysBoundWhenRenewed() async throws {
        let f = try await Fixture.start()
        defer { Task { await f.emulator.stop() } }
        let session = try await f.hub.signIn(.password(identifier: "dora@example.com", password: Secret(Self.password)), provider: "auth0")
        #expect(session.tokenType == "DPoP" && session.isDPoPBound)
        let key = try #require(try session.dpopKey())
        #expect(Self.claims(of: session.accessToken.revealed())?["cnf"]?["jkt"]?.stringValue == key.thumbprint)
        // The provider's own resource endpoint takes the bound token with a proof.
        let info = try await f.hub.provider("auth0", as: Auth0Provider.self).userInfo(session)
        #expect(info.id == session.userID)

        let api = try await f.startAPI()
        defer { Task { await api.stop() } }
        let me = try #require(URL(string: api.baseURL.absoluteString + "/api/me"))
        let transport = f.hub.authorizedTransport(origin: api.baseURL, provider: "auth0")
        let reply = try await transport.send(.get, me)
        #expect(reply.status == 200 && String(decoding: reply.body, as: UTF8.self) == session.userID)
        // The bound token alone, as Bearer, is refused: a stolen copy is of no use without the key.
        let stolen = try await f.wire.send(.get, me, headerFields: [.authorization: "Bearer \(session.accessToken.revealed())"])
        #expect(stolen.status == 401 && (stolen.headerFields[.wwwAuthenticate] ?? "").hasPrefix("DPoP "))
        // With a proof of another key: refused.
        var forged = try Session(providerID: "auth0", accessToken: session.accessToken, tokenType: "DPoP",
                                 secretExtras: [Session.dpopKeyExtra: DPoPKey().stored]).authorizationHeaders(method: .get, url: me)
        forged[.accept] = "text/plain"
        #expect(try await f.wire.send(.get, me, headerFields: forged).status == 401)
        // A proof made for this request, sent twice: the second is a replay.
        let once = try session.authorizationHeaders(method: .get, url: me)
        #expect(try await f.wire.send(.get, me, headerFields: once).status == 200)
        #expect(try await f.wire.send(.get, me, headerFields: once).status == 401)

        // Renewal proves the session's key; the new tokens are bound to the same key.
        let renewed = try await f.hub.refresh(provider: "auth0")
        #expect(renewed.accessToken != session.accessToken && renewed.isDPoPBound)
        #expect(try renewed.dpopKey() == key)
        #expect(Self.claims(of: renewed.accessToken.revealed())?["cnf"]?["jkt"]?.stringValue == key.thumbprint)
        #expect(try await transport.send(.get, me).status == 200)
        // The transport sends the token to its API's origin only.
        await #expect(throws: AuthError.self) { try await transport.send(.get, URL(string: "http://127.0.0.1:1/api/me")!) }
    }

    /// RFC 9449, sections 8 and 9: the tenant asks for a nonce at the token endpoint and at
    /// `/userinfo`; the client answers each challenge once with the nonce it was given, and keeps
    /// it for the next proofs.
    @Test func theServersNonceIsAnsweredAtTheTokenEndpointAndAtResources() async throws {
        let f = try await Fixture.start()
        defer { Task { await f.emulator.stop() } }
        let first = await f.emulator.setAuth0DPoPNonceRequired(true, rotate: true)
        let session = try await f.hub.signIn(.password(identifier: "dora@example.com", password: Secret(Self.password)), provider: "auth0")
        #expect(session.isDPoPBound)
        #expect(f.hub.context.dpopNonces.nonce(for: f.emulator.url("/auth0/oauth/token")) == first)
        // A new nonce: the kept one is stale, the next request is challenged once and succeeds.
        let second = await f.emulator.setAuth0DPoPNonceRequired(true, rotate: true)
        #expect(second != first)
        let renewed = try await f.hub.refresh(provider: "auth0")
        #expect(renewed.isDPoPBound)
        let info = try await f.hub.provider("auth0", as: Auth0Provider.self).userInfo(renewed)
        #expect(info.id == session.userID)
        #expect(f.hub.context.dpopNonces.nonce(for: f.emulator.url("/auth0/userinfo")) == second)
    }

    @Test func aProviderWithoutDPoPKeepsBearerTokens() async throws {
        let f = try await Fixture.start()
        defer { Task { await f.emulator.stop() } }
        let session = try await f.hub.signIn(.password(identifier: "dora@example.com", password: Secret(Self.password)), provider: "plain")
        #expect(try session.tokenType == "Bearer" && session.dpopKey() == nil)
        #expect(Self.claims(of: session.accessToken.revealed())?["cnf"] == nil)
        let api = try await f.startAPI()
        defer { Task { await api.stop() } }
        let reply = try await f.hub.authorizedTransport(origin: api.baseURL, provider: "plain").send(.get, URL(string: api.baseURL.absoluteString + "/api/me")!)
        #expect(reply.status == 200)
    }
}
