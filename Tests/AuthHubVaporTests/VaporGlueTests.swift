import AuthHub
import struct AuthHub.Session
import AuthHubAsyncHTTPClient
import AuthHubAuth0
import AuthHubTesting
import AuthHubVapor
import AuthHubWebTestSupport
import Foundation
import Testing
import Vapor
import VaporTesting

/// The Vapor glue itself, with Vapor's own test tools: the hub in the application's storage, the
/// identity on `req.auth`, the hub loaded over Vapor's HTTP client, and the hub's end with the
/// application's.
@Suite struct VaporGlueTests {
    /// A store that counts its shutdowns, made by a factory from providers.json (the hub owns it).
    final class CountingStore: SessionStore, Shutdownable {
        let inner = InMemorySessionStore()
        let shutdowns = Mutex(0)
        func load(_ key: SessionKey) async throws -> Session? { try await inner.load(key) }
        func save(_ session: Session, for key: SessionKey, expectedVersion: UInt64?) async throws -> Session {
            try await inner.save(session, for: key, expectedVersion: expectedVersion)
        }
        func remove(_ key: SessionKey) async throws { try await inner.remove(key) }
        func keys() async throws -> [SessionKey] { try await inner.keys() }
        func shutdown() async throws { shutdowns.withLock { $0 += 1 } }
    }

    struct CountingStoreFactory: SessionStoreFactory {
        let store: CountingStore
        var storeType: String { "counting" }
        var summary: String { "in memory, counting shutdowns" }
        var fields: [ConfigField] { [] }
        func makeStore(_ settings: SessionStoreSettings, logger: Logger) throws -> any SessionStore { store }
    }

    /// providers.json for the emulator's Auth0 tenant, in a fresh folder.
    static func configFile(domain: String, store: String = "memory") throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("authhub-vapor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("providers.json").path
        let json = """
        {"defaultEnvironment": "dev", "environments": {"dev": {"defaultProvider": "auth0", "sessionStore": {"type": "\(store)"},
          "providers": [{"id": "auth0", "type": "auth0", "domain": "\(domain)", "clientId": "authhub-web"}]}}}
        """
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func theHubIsReachedThroughTheApplicationsStorage() async throws {
        let environment = try await EmulatorWebEnvironment.make()
        let app = try await Application.make(.testing)
        do {
            let missing = #expect(throws: AuthError.self) { _ = try app.authHub }
            #expect(missing?.code == .invalidConfiguration)
            app.get("providers") { request in try request.authHub.providerIDs.joined(separator: ",") }
            try await app.testing().test(.GET, "providers") { response in
                #expect(response.status == .internalServerError, "no hub installed: the route's error")
            }
            let web = try app.useAuthHub(environment.hub, web: WebSignInConfiguration(publicBaseURL: URL(string: "http://127.0.0.1:8080")!))
            #expect(web != nil)
            #expect(try app.authHub === environment.hub)
            #expect(try app.authHubWeb === web)
            let twice = #expect(throws: AuthError.self) { try app.useAuthHub(environment.hub) }
            #expect(twice?.code == .invalidConfiguration)
            try await app.testing().test(.GET, "providers") { response in
                #expect(response.status == .ok)
                #expect(response.body.string == "auth0")
            }
        } catch {
            Issue.record(error)
        }
        try await app.asyncShutdown()
        await environment.tearDown()
    }

    /// The identity a bearer token carries is logged in on `req.auth` as Vapor users expect, and the
    /// guard answers 401 without one.
    @Test func theIdentityIsOnReqAuth() async throws {
        let environment = try await EmulatorWebEnvironment.make()
        let app = try await Application.make(.testing)
        do {
            try app.useAuthHub(environment.hub)
            let bearer = try await AuthHubBearerAuthenticator(hub: environment.hub, audience: EmulatorWebEnvironment.audience)
            app.grouped(bearer, AuthHubGuardMiddleware()).get("whoami") { request in
                let identity = try request.auth.require(AuthHubIdentity.self)
                return "\(identity.provider)|\(identity.source == .bearer)|\(request.auth.has(AuthHubIdentity.self))"
            }
            app.grouped(bearer, AuthHubIdentity.guardMiddleware()).get("vapor-guard") { _ in "in" }
            let token = try await environment.accessToken().revealed()
            try await app.testing().test(.GET, "whoami") { response in #expect(response.status == .unauthorized) }
            try await app.testing().test(.GET, "vapor-guard") { response in #expect(response.status == .unauthorized, "Vapor's own guard works too") }
            try await app.testing().test(.GET, "whoami", headers: ["Authorization": "Bearer \(token)"]) { response in
                #expect(response.status == .ok)
                #expect(response.body.string == "auth0|true|true")
            }
            try await app.testing().test(.GET, "vapor-guard", headers: ["Authorization": "Bearer \(token)"]) { response in
                #expect(response.status == .ok)
            }
        } catch {
            Issue.record(error)
        }
        try await app.asyncShutdown()
        await environment.tearDown()
    }

    /// `loadAuthHub` makes the providers talk through Vapor's own HTTP client (AsyncHTTPClient on the
    /// application's event loops): a password sign-in reaches the emulator through it.
    @Test func loadAuthHubTalksThroughVaporsHTTPClient() async throws {
        let environment = try await EmulatorWebEnvironment.make()
        let app = try await Application.make(.testing)
        do {
            let domain = try #require(environment.hub.environment.providers.first?.values["domain"]?.stringValue)
            let hub = try app.loadAuthHub(configPath: try Self.configFile(domain: domain), registry: ProviderRegistry([Auth0Plugin()]))
            let transport = try #require(hub.context.transport as? AsyncHTTPClientTransport)
            #expect(transport.client === app.http.client.shared, "the application's shared HTTP client")
            let session = try await hub.signIn(.password(identifier: EmulatorWebEnvironment.email, password: Secret(EmulatorWebEnvironment.password)))
            #expect(session.providerID == "auth0")
            #expect(try app.authHub === hub)
        } catch {
            Issue.record(error)
        }
        try await app.asyncShutdown()
        await environment.tearDown()
    }

    /// The application's shutdown ends the hub: what the hub made from providers.json is shut down
    /// (here a store counting it; the PostgreSQL store closes its pool and change feed the same way).
    @Test func theApplicationsShutdownEndsTheHub() async throws {
        let store = CountingStore()
        let registry = ProviderRegistry([Auth0Plugin()]).registering(storeFactory: CountingStoreFactory(store: store))
        let app = try await Application.make(.testing)
        let path = try Self.configFile(domain: "http://127.0.0.1:9", store: "counting")
        try app.loadAuthHub(configPath: path, registry: registry)
        #expect(store.shutdowns.withLock { $0 } == 0)
        try await app.asyncShutdown()
        #expect(store.shutdowns.withLock { $0 } == 1, "the hub's store was shut down with the application")
    }
}
