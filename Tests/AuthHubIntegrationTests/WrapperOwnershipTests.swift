import AuthHub
import AuthHubAuth0
import AuthHubEmulator
import AuthHubFirebase
import AuthHubOpenfort
import Foundation
import Testing

/// One session owner per (provider, account) per hub: `FirebaseAuth`, `OpenfortAuth` and
/// `Auth0CredentialsManager` created from a hub use the hub's `SessionManager`, so what they do —
/// sign in, refresh, sign out — reaches `hub.events()` and the hub's cached session.
@Suite struct WrapperOwnershipTests {
    static let password = "correct horse battery staple"

    static func hub(_ emulator: RunningEmulator) throws -> AuthHub {
        let config = """
        {"defaultEnvironment": "dev", "environments": {"dev": {"defaultProvider": "auth0", "sessionStore": {"type": "memory"},
          "providers": [{"id": "auth0", "type": "auth0", "domain": "\(emulator.url("/auth0").absoluteString)", "clientId": "authhub-it"},
                        {"id": "firebase", "type": "firebase", "apiKey": "k", "projectId": "authhub-dev",
                         "emulatorHost": "\(emulator.host):\(emulator.port)"},
                        {"id": "openfort", "type": "openfort", "publishableKey": "pk_test_00000000-0000-4000-8000-000000000001",
                         "baseURL": "\(emulator.url("/openfort").absoluteString)"}]}}}
        """
        let registry = ProviderRegistry([Auth0Plugin(), FirebasePlugin(), OpenfortPlugin()])
        let environment = try ConfigLoader(registry: registry, environmentVariables: [:]).load(data: Data(config.utf8))
        return try AuthHub(environment: environment, registry: registry,
                           context: ProviderContext(transport: URLSessionTransport(defaultTimeout: .seconds(30))))
    }

    /// Collects the hub's events in the background.
    final class Recorder: Sendable {
        private let events = Mutex<[AuthEvent]>([])
        private let task: Task<Void, Never>
        init(_ hub: AuthHub) {
            let stream = hub.events()
            let events = self.events
            task = Task { for await e in stream { events.withLock { $0.append(e) } } }
        }
        deinit { task.cancel() }
        /// Waits until an event matches. The hub publishes an event before the call that caused it
        /// returns, so only the recording task has to run: yielding is enough, no sleeping.
        func waitFor(_ what: String, _ match: @escaping @Sendable (AuthEvent) -> Bool) async -> Bool {
            for _ in 0..<100_000 {
                if events.withLock({ $0.contains(where: match) }) { return true }
                await Task.yield()
            }
            Issue.record("hub.events() never delivered \(what)")
            return false
        }
    }

    static func refreshed(_ key: SessionKey, token: String) -> @Sendable (AuthEvent) -> Bool {
        { if case .tokenRefreshed(let s) = $0 { s.providerID == key.provider && s.accessToken.revealed() == token } else { false } }
    }

    static func signedOut(_ key: SessionKey) -> @Sendable (AuthEvent) -> Bool {
        { if case .signedOut(let k) = $0 { k == key } else { false } }
    }

    @Test func firebaseAuthSharesTheHubsSession() async throws {
        let emulator = try await Emulator.start()
        defer { Task { await emulator.stop() } }
        let hub = try Self.hub(emulator)
        let events = Recorder(hub)
        let auth = try FirebaseAuth(hub: hub, provider: "firebase")
        let manager = try hub.manager(provider: "firebase")
        #expect(auth.sessions === manager)

        let signedUp = try await auth.signUp(email: "owner@example.com", password: Secret(Self.password))
        #expect(try await manager.current()?.accessToken == signedUp.accessToken)

        let token = try await auth.idToken(forceRefresh: true)
        let cached = try #require(manager.cachedSession(minTTL: 0))
        #expect(cached.version > signedUp.version, "the hub's cache holds the wrapper's refresh")
        #expect(cached.accessToken == token)
        #expect(await events.waitFor("firebase tokenRefreshed", Self.refreshed(manager.key, token: token.revealed())))

        try await auth.signOut()
        #expect(try await hub.manager(provider: "firebase").current() == nil)
        #expect(await events.waitFor("firebase signedOut", Self.signedOut(manager.key)))
        await #expect(throws: AuthError(.invalidConfiguration)) { _ = try FirebaseAuth(hub: hub, provider: "openfort") }
    }

    @Test func openfortAuthSharesTheHubsSession() async throws {
        let emulator = try await Emulator.start()
        defer { Task { await emulator.stop() } }
        let hub = try Self.hub(emulator)
        let events = Recorder(hub)
        let auth = try OpenfortAuth(hub: hub, provider: "openfort")
        let manager = try hub.manager(provider: "openfort")
        #expect(auth.sessions === manager)

        let guest = try await auth.signInAsGuest()
        #expect(try await manager.current()?.userID == guest.userID)
        let validated = try await auth.validateSession()
        #expect(manager.cachedSession(minTTL: 0)?.version == validated.version)
        #expect(await events.waitFor("openfort tokenRefreshed", Self.refreshed(manager.key, token: validated.accessToken.revealed())))

        try await auth.signOut()
        #expect(try await manager.current() == nil)
        #expect(await events.waitFor("openfort signedOut", Self.signedOut(manager.key)))
    }

    @Test func auth0CredentialsManagerSharesTheHubsSession() async throws {
        let emulator = try await Emulator.start()
        defer { Task { await emulator.stop() } }
        _ = try await URLSessionTransport(defaultTimeout: .seconds(30)).send(.post, emulator.url("/auth0/__emulator/users"), headerFields: [.contentType: "application/json"], body: Data(#"{"email":"cm@example.com","password":"\#(Self.password)"}"#.utf8))
        let hub = try Self.hub(emulator)
        let events = Recorder(hub)
        let credentials = try Auth0CredentialsManager(hub: hub, provider: "auth0")
        let manager = try hub.manager(provider: "auth0")

        let signedIn = try await hub.signIn(.password(identifier: "cm@example.com", password: Secret(Self.password)), provider: "auth0")
        #expect(try await credentials.hasValid())
        let renewed = try await credentials.renew()
        #expect(renewed.accessToken != signedIn.accessToken)
        #expect(manager.cachedSession(minTTL: 0)?.accessToken == renewed.accessToken)
        #expect(await events.waitFor("auth0 tokenRefreshed", Self.refreshed(manager.key, token: renewed.accessToken.revealed())))

        try await credentials.clear()
        #expect(try await manager.current() == nil)
        #expect(await events.waitFor("auth0 signedOut", Self.signedOut(manager.key)))
        await #expect(throws: AuthError(.invalidConfiguration)) { _ = try Auth0CredentialsManager(hub: hub, provider: "firebase") }
    }
}
