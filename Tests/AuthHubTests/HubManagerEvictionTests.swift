import AuthHub
import AuthHubTesting
import Foundation
import Testing

/// The hub keeps a bounded number of session managers: a server signing in a new account per
/// browser session must not keep one manager (and its cached tokens) per sign-in forever. Only
/// idle managers nobody holds are dropped; their sessions stay in the store.
@Suite struct HubManagerEvictionTests {
    let clock = FakeClock()

    func hub(_ server: StubTokenServer, store: (any SessionStore)? = nil) throws -> AuthHub {
        let environment = EnvironmentConfiguration(
            name: "test", defaultProvider: "main", sessionStore: .memory,
            providers: [ProviderConfiguration(id: "main", type: "example-oauth", path: "environments.test.providers[0]",
                                              values: ["baseURL": "https://id.example.com", "clientId": "client-1"])])
        return try AuthHub(environment: environment, registry: ProviderRegistry([ExampleOAuthPlugin()]),
                           context: ProviderContext(transport: server.transport, clock: clock), store: store)
    }

    /// Creates `count` managers for fresh accounts and lets go of each at once.
    func churn(_ hub: AuthHub, _ count: Int, prefix: String = "browser-") throws {
        for index in 0..<count { _ = try hub.manager(account: "\(prefix)\(index)") }
    }

    @Test func managersNobodyHoldsAreDroppedBeyondTheCapacity() async throws {
        let hub = try hub(StubTokenServer())
        var most = 0
        for index in 0..<(AuthHub.managerCapacity * 3) {
            _ = try hub.manager(account: "browser-\(index)")
            most = max(most, hub.managerCount)
        }
        #expect(most <= AuthHub.managerCapacity + 1)
        #expect(hub.managerCount <= AuthHub.managerCapacity)
    }

    @Test func aDroppedManagersSessionIsReadAgainFromTheStore() async throws {
        let hub = try hub(StubTokenServer())
        let signedIn = try await hub.signIn(.password(identifier: "a@example.com", password: Secret("correct horse")), account: "first")
        weak var original = try hub.manager(account: "first")
        try churn(hub, AuthHub.managerCapacity * 2)
        #expect(original == nil, "the idle manager was dropped")
        let again = try await hub.session(account: "first")
        #expect(again.accessToken == signedIn.accessToken && again.version == signedIn.version)
    }

    @Test func aHeldManagerIsNeverDroppedSoAKeyHasOneManager() async throws {
        let hub = try hub(StubTokenServer())
        let held = try hub.manager(account: "held")
        try churn(hub, AuthHub.managerCapacity * 3)
        #expect(try hub.manager(account: "held") === held)
    }

    @Test func aManagerWithAListenerIsKept() async throws {
        let hub = try hub(StubTokenServer())
        var listened: SessionManager? = try hub.manager(account: "listened")
        let events = await listened!.events()
        weak var weakListened = listened
        listened = nil
        try churn(hub, AuthHub.managerCapacity * 3)
        #expect(weakListened != nil)
        #expect(try hub.manager(account: "listened") === weakListened)
        _ = events
    }

    /// A renewed session the store refused exists only in its manager (the store holds the spent
    /// refresh token): that manager is not dropped.
    @Test func aManagerHoldingAnUnsavedRenewalIsKept() async throws {
        let server = StubTokenServer()
        let store = FlakyStore()
        let hub = try hub(server, store: store)
        _ = try await hub.signIn(.password(identifier: "a@example.com", password: Secret("correct horse")), account: "renewing")
        store.failing.withLock { $0 = true }
        let renewed = try await hub.refresh(account: "renewing")
        weak var weakManager = try hub.manager(account: "renewing")
        #expect(await weakManager?.hasUnsavedSession == true)
        try churn(hub, AuthHub.managerCapacity * 3)
        #expect(weakManager != nil)
        store.failing.withLock { $0 = false }
        #expect(try await hub.session(account: "renewing").accessToken == renewed.accessToken)
    }
}
