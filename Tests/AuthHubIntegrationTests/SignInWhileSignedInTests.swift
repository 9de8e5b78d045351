import AuthHub
import AuthHubAuth0
import AuthHubEmulator
import AuthHubOpenfort
import Foundation
import Testing

/// One rule for signing in while signed in, for every provider, through the hub: the new session
/// replaces the stored one and the old one is revoked at the provider; signing up (or in with an
/// emailed code) as a guest of Openfort upgrades the guest instead — the same user.
@Suite struct SignInWhileSignedInTests {
    static let password = "correct horse battery staple"

    static func hub(_ emulator: RunningEmulator) throws -> AuthHub {
        let config = """
        {"defaultEnvironment": "dev", "environments": {"dev": {"defaultProvider": "auth0", "sessionStore": {"type": "memory"},
          "providers": [{"id": "auth0", "type": "auth0", "domain": "\(emulator.url("/auth0").absoluteString)", "clientId": "authhub-it"},
                        {"id": "openfort", "type": "openfort", "publishableKey": "pk_test_00000000-0000-4000-8000-000000000001",
                         "baseURL": "\(emulator.url("/openfort").absoluteString)"}]}}}
        """
        let registry = ProviderRegistry([Auth0Plugin(), OpenfortPlugin()])
        let environment = try ConfigLoader(registry: registry, environmentVariables: [:]).load(data: Data(config.utf8))
        return try AuthHub(environment: environment, registry: registry,
                           context: ProviderContext(transport: URLSessionTransport(defaultTimeout: .seconds(10))))
    }

    static func post(_ emulator: RunningEmulator, _ path: String, _ json: String) async throws -> HTTPReply {
        try await URLSessionTransport(defaultTimeout: .seconds(10)).send(.post, emulator.url(path), headerFields: [.contentType: "application/json"], body: Data(json.utf8))
    }

    @Test func aNewSignInReplacesTheStoredSessionAndRevokesIt() async throws {
        let emulator = try await Emulator.start()
        defer { Task { await emulator.stop() } }
        for email in ["one@example.com", "two@example.com"] {
            _ = try await Self.post(emulator, "/auth0/__emulator/users", #"{"email":"\#(email)","password":"\#(Self.password)"}"#)
        }
        let hub = try Self.hub(emulator)
        let first = try await hub.signIn(.password(identifier: "one@example.com", password: Secret(Self.password)))
        let second = try await hub.signIn(.password(identifier: "two@example.com", password: Secret(Self.password)))
        #expect(try await hub.manager(provider: "auth0").current()?.claims["email"] == "two@example.com")
        #expect(second.userID != first.userID)
        let auth0 = try hub.provider("auth0", as: Auth0Provider.self)
        let revoked = await #expect(throws: AuthError.self) {
            try await auth0.authentication.renew(refreshToken: try #require(first.refreshToken))
        }
        #expect(revoked?.code == .refreshTokenInvalid, "the replaced session was revoked at the provider")
        _ = try await auth0.authentication.renew(refreshToken: try #require(second.refreshToken))
    }

    @Test func aGuestIsUpgradedBySignUpAndByAnEmailedCode() async throws {
        let emulator = try await Emulator.start()
        defer { Task { await emulator.stop() } }
        let hub = try Self.hub(emulator)
        let guest = try await hub.signIn(.guest, provider: "openfort")
        let result = try await hub.signUp(SignUpRequest(email: "up@example.com", password: Secret(Self.password)), provider: "openfort")
        guard case .signedIn(let upgraded) = result else { Issue.record("not signed in: \(result)"); return }
        #expect(upgraded.userID == guest.userID, "the guest's user became the account")
        let openfort = try hub.provider("openfort", as: OpenfortProvider.self)
        #expect(!openfort.isGuest(upgraded))

        _ = try await hub.signOut(provider: "openfort")
        let otherGuest = try await hub.signIn(.guest, provider: "openfort")
        try await openfort.requestEmailOTP(email: "otp@example.com", type: .signIn)
        let otp = try await URLSessionTransport(defaultTimeout: .seconds(10)).send(.get, emulator.url("/openfort/__emulator/otp?email=otp@example.com"))
        let code = try #require(try JSONValue.parse(otp.body)["otp"]?.stringValue)
        let viaCode = try await hub.signIn(.emailCode(email: "otp@example.com", code: Secret(code)), provider: "openfort")
        #expect(viaCode.userID == otherGuest.userID, "the emailed code upgraded the guest")
    }
}
