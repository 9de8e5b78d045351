import AuthHub
import AuthHubAuth0
import AuthHubEmulator
import AuthHubOIDC
import AuthHubTesting
import Foundation
import Testing

/// Device sign-in (RFC 8628) by the libraries against the emulator's independent reading of the
/// same spec, over real HTTP on loopback: the Auth0 provider and the generic OpenID provider (which
/// finds the endpoint in the tenant's discovery document). Emulator and client share one FakeClock:
/// in the approval test the test moves it by each wait the device makes (so it also sees every poll
/// happen), elsewhere every wait jumps time forward at once; either way the 5-second interval costs
/// no real time and the emulator sees the waits the client made.
@Suite struct DeviceSignInIntegrationTests {
    static let password = "correct horse battery staple"

    struct Fixture {
        let emulator: RunningEmulator
        let sharedClock: FakeClock
        let hub: AuthHub
        let wire = URLSessionTransport(defaultTimeout: .seconds(30), followRedirects: false)

        static func start(manualClock: Bool = false) async throws -> Fixture {
            let clock = FakeClock(now: Date(), mode: manualClock ? .manual : .autoAdvance)
            let emulator = try await Emulator.start(EmulatorConfiguration(clock: clock))
            let issuer = emulator.url("/auth0").absoluteString + "/"
            let config = """
            {"defaultEnvironment": "dev", "environments": {"dev": {"defaultProvider": "auth0", "sessionStore": {"type": "memory"},
              "providers": [{"id": "auth0", "type": "auth0", "domain": "\(emulator.url("/auth0").absoluteString)", "clientId": "authhub-device",
                             "scope": "openid profile email offline_access"},
                            {"id": "corp", "type": "oidc", "issuer": "\(issuer)", "clientId": "authhub-device"}]}}}
            """
            let registry = ProviderRegistry([Auth0Plugin(), OIDCPlugin()])
            let environment = try ConfigLoader(registry: registry, environmentVariables: [:]).load(data: Data(config.utf8))
            let hub = try AuthHub(environment: environment, registry: registry,
                                  context: ProviderContext(transport: URLSessionTransport(defaultTimeout: .seconds(30)), clock: clock))
            let fixture = Fixture(emulator: emulator, sharedClock: clock, hub: hub)
            let seeded = try await fixture.post("/auth0/__emulator/users", #"{"email":"tv@example.com","password":"\#(password)"}"#)
            #expect(seeded.status == 201)
            return fixture
        }

        func post(_ path: String, _ json: String) async throws -> HTTPReply {
            try await wire.send(.post, emulator.url(path), headerFields: [.contentType: "application/json"], body: Data(json.utf8))
        }
    }

    @Test(arguments: ["auth0", "corp"])
    func approvedOnAnotherDeviceTheSessionIsStored(provider: String) async throws {
        let f = try await Fixture.start(manualClock: true)
        defer { Task { await f.emulator.stop() } }
        let flow = try f.hub.deviceSignIn(provider: provider)
        let code = try await flow.start()
        #expect(code.verificationURI.path.hasSuffix("/activate"))
        #expect(code.verificationURIComplete?.query?.contains("user_code=") == true)
        #expect(code.userCode.count == 9 && code.userCode.contains("-"))
        /// Moves the shared clock past the device's next wait once the device is waiting (its
        /// `waits`-th sleep has begun).
        func releaseWait(_ waits: Int) async throws {
            for _ in 0..<1_000 where f.sharedClock.sleeps.count < waits { try await Task.sleep(for: .milliseconds(5)) }
            #expect(f.sharedClock.sleeps.count == waits, "the device did not wait before polling")
            f.sharedClock.advance(by: 5)
        }
        // Two polls while the user has not answered (authorization_pending), then the approval.
        let waiting = Task { try await flow.waitForApproval() }
        try await releaseWait(1)
        try await releaseWait(2)
        for _ in 0..<1_000 where f.sharedClock.sleeps.count < 3 { try await Task.sleep(for: .milliseconds(5)) }
        let approved = try await f.post("/auth0/__emulator/device/approve", #"{"user_code":"\#(code.userCode)","email":"tv@example.com"}"#)
        #expect(approved.status == 200, "\(String(decoding: approved.body, as: UTF8.self))")
        try await releaseWait(3)
        let session = try await waiting.value
        #expect(session.claims["email"] == "tv@example.com")
        #expect(session.userID?.isEmpty == false)
        #expect(try await f.hub.manager(provider: provider).current()?.accessToken == session.accessToken)
        // Three waits of 5 s and three polls: no slow_down (the emulator saw the waits).
        #expect(f.sharedClock.sleeps == [.seconds(5), .seconds(5), .seconds(5)], "\(f.sharedClock.sleeps)")
        if provider == "auth0" {
            #expect(session.refreshToken != nil, "offline_access was asked for")
            _ = try await f.hub.refresh(provider: "auth0")
        }
    }

    @Test func aDeniedRequestEndsTheFlow() async throws {
        let f = try await Fixture.start()
        defer { Task { await f.emulator.stop() } }
        let flow = try f.hub.deviceSignIn()
        let code = try await flow.start()
        let denied = try await f.post("/auth0/__emulator/device/deny", #"{"user_code":"\#(code.userCode)"}"#)
        #expect(denied.status == 200)
        let error = await #expect(throws: AuthError.self) { try await flow.waitForApproval() }
        #expect(error?.code == .accessDenied)
        #expect(try await f.hub.manager(provider: "auth0").current() == nil)
    }

    /// The Auth0 application has not enabled the grant: `invalidConfiguration` at the start, with
    /// Auth0's words and where to fix it; the generic OIDC plugin reads the same answer the same way.
    @Test func anApplicationWithoutTheGrantIsAConfigurationError() async throws {
        let f = try await Fixture.start()
        defer { Task { await f.emulator.stop() } }
        let registered = try await f.post("/auth0/__emulator/clients", #"{"client_id":"authhub-device","grant_types":["authorization_code"]}"#)
        #expect(registered.status == 201)
        for provider in ["auth0", "corp"] {
            let error = await #expect(throws: AuthError.self) { _ = try await f.hub.deviceSignIn(provider: provider).start() }
            #expect(error?.code == .invalidConfiguration, "\(provider)")
            #expect(error?.providerCode == "unauthorized_client", "\(provider)")
            #expect(error?.message.contains("not allowed for the client") == true, "\(provider): \(error?.message ?? "")")
        }
    }

    @Test func aCodeNobodyApprovesExpires() async throws {
        let f = try await Fixture.start()
        defer { Task { await f.emulator.stop() } }
        let flow = try f.hub.deviceSignIn()
        let code = try await flow.start()
        let error = await #expect(throws: AuthError.self) { try await flow.waitForApproval() }
        #expect(error?.code == .timeout)
        #expect(f.sharedClock.now >= code.expiresAt)
    }
}
