import AuthHub
import AuthHubTesting
import Foundation
import Testing

/// A sign-in that stops at AuthHub's held second step and never finishes leaves no live tokens at
/// the provider: after the fifth wrong answer, and once it expires, its session is revoked (the
/// provider's revocation endpoint is called for it), in the background.
@Suite struct HeldSecondStepRevocationTests {
    /// A provider whose sign-ins name user `u1` and whose revocations are counted.
    struct CountingProvider: AuthProvider {
        let id = "main"
        let type = "counting"
        let capabilities: Set<AuthCapability> = [.passwordSignIn]
        let revocations: Mutex<Int>
        func signIn(_ request: SignInRequest) async throws -> Session {
            Session(providerID: id, accessToken: Secret("at"), refreshToken: Secret("rt"), expiresAt: Date().addingTimeInterval(3600), userID: "u1")
        }
        func signOut(_ session: Session) async throws { revocations.withLock { $0 += 1 } }
    }

    struct CountingPlugin: ProviderPlugin {
        let revocations: Mutex<Int>
        let type = "counting"
        let summary = "counts revocations"
        let fields: [ConfigField] = []
        let capabilities: Set<AuthCapability> = [.passwordSignIn]
        func makeProvider(_ configuration: ProviderConfiguration, context: ProviderContext) throws -> any AuthProvider {
            CountingProvider(revocations: revocations)
        }
    }

    func waitingSignIn(_ hub: AuthHub) async throws -> MFARequirement {
        do {
            try await hub.signIn(.password(identifier: "a@example.com", password: Secret("correct horse")))
        } catch let error as AuthError where AuthHub.isHeldSecondStep(error) {
            return try #require(error.mfa)
        }
        throw AuthError(.unknown, message: "no second step")
    }

    func eventually(_ count: @escaping () -> Int, is expected: Int) async throws {
        for _ in 0..<200 where count() < expected { try await Task.sleep(for: .milliseconds(10)) }
        #expect(count() == expected)
    }

    @Test func tooManyWrongAnswersAndExpiryRevokeTheWaitingSession() async throws {
        let revocations = Mutex(0)
        // A manual clock: an auto-advancing one makes every sleep of the hub's background work return at once.
        let clock = FakeClock(now: Date(), mode: .manual)
        let environment = EnvironmentConfiguration(name: "test", defaultProvider: "main", sessionStore: .memory,
                                                   providers: [ProviderConfiguration(id: "main", type: "counting", path: "p", values: [:])])
        let hub = try AuthHub(environment: environment, registry: ProviderRegistry([CountingPlugin(revocations: revocations)]),
                              context: ProviderContext(transport: StubTransport(), clock: clock))
        hub.useHeldFactors(ConformanceHeldFactors(provider: "main"))

        let first = try await waitingSignIn(hub)
        for _ in 0..<4 {
            await #expect(throws: AuthError(.invalidMFACode)) { try await hub.completeHeldSecondStep(token: first.token, response: .recoveryCode(Secret("wrong"))) }
        }
        #expect(revocations.withLock { $0 } == 0, "nothing revoked while the sign-in can still finish")
        await #expect(throws: AuthError(.sessionExpired)) { try await hub.completeHeldSecondStep(token: first.token, response: .recoveryCode(Secret("wrong"))) }
        try await eventually({ revocations.withLock { $0 } }, is: 1)
        #expect(try await hub.store.keys().isEmpty, "nothing was stored")

        // Abandoned: found expired at the next waiting sign-in's sweep, and revoked.
        _ = try await waitingSignIn(hub)
        clock.advance(by: 400)
        let third = try await waitingSignIn(hub)
        try await eventually({ revocations.withLock { $0 } }, is: 2)

        // One that finishes is stored, not revoked.
        _ = try await hub.completeHeldSecondStep(token: third.token, response: .recoveryCode(Secret(ConformanceHeldFactors.code)))
        try await Task.sleep(for: .milliseconds(50))
        let stored = try await hub.store.keys().count
        #expect(revocations.withLock { $0 } == 2 && stored == 1)
    }
}
