import AuthHub
import AuthHubTesting
import Foundation
import Testing
@testable import AuthHubOIDC

/// Device sign-in (RFC 8628) with the generic OpenID provider against stubbed discovery, device
/// authorization, token and JWKS endpoints; time is a FakeClock that jumps over every wait, so each
/// polling outcome runs instantly and the waits themselves are asserted.
@Suite struct DeviceSignInTests {
    let server = KeyServer()
    let clock = FakeClock()
    let issuer = "https://idp.example.com/"
    /// The token endpoint's replies, in order; the last one repeats.
    let replies = Mutex<[StubTransport.Reply]>([])

    init() {
        server.transport.on(.get, "/.well-known/openid-configuration") { _ in
            .json(200, ["issuer": "https://idp.example.com/", "authorization_endpoint": "https://idp.example.com/authorize",
                        "token_endpoint": "https://idp.example.com/oauth/token", "jwks_uri": "https://idp.example.com/.well-known/jwks.json",
                        "device_authorization_endpoint": "https://idp.example.com/oauth/device/code"])
        }
        let replies = self.replies
        server.transport.on(.post, "/oauth/token") { _ in
            replies.withLock { queue in queue.count > 1 ? queue.removeFirst() : queue[0] }
        }
    }

    func provider() -> OIDCProvider {
        OIDCProvider(id: "corp", configuration: OIDCConfiguration(issuer: URL(string: issuer)!, clientId: "client-1"),
                     context: ProviderContext(transport: server.transport, clock: clock))
    }

    func deviceCodeReply(_ overrides: [String: JSONValue] = [:]) {
        var body: [String: JSONValue] = ["device_code": "DC-secret-1", "user_code": "BDWP-HQPK",
                                         "verification_uri": "https://idp.example.com/activate",
                                         "verification_uri_complete": "https://idp.example.com/activate?user_code=BDWP-HQPK",
                                         "expires_in": 600, "interval": 5]
        body.merge(overrides) { _, new in new }
        let reply = JSONValue.object(body)
        server.transport.on(.post, "/oauth/device/code") { _ in .json(200, reply) }
    }

    static func oauthError(_ code: String, status: Int = 400) -> StubTransport.Reply {
        .json(status, ["error": .string(code), "error_description": .string("said the server: \(code)")])
    }

    func tokens() async throws -> StubTransport.Reply {
        let now = clock.now.timeIntervalSince1970
        let idToken = try await sign(["iss": .string(issuer), "sub": "device-user", "aud": "client-1", "exp": .number(now + 3600),
                                      "iat": .number(now), "email": "tv@example.com"])
        return .json(200, ["access_token": "AT-device", "token_type": "Bearer", "id_token": .string(idToken),
                           "refresh_token": "RT-device", "expires_in": 3600])
    }

    /// Polls (in seconds since the code was issued) from the FakeClock's record of sleeps.
    var pollTimes: [Double] {
        var total = 0.0
        return clock.sleeps.map { total += $0.seconds; return total }
    }

    @Test func pendingThenApprovedGivesAValidatedSession() async throws {
        deviceCodeReply()
        replies.withLock { $0 = [Self.oauthError("authorization_pending"), Self.oauthError("authorization_pending")] }
        let approved = try await tokens()
        replies.withLock { $0.append(approved) }
        let flow = DeviceSignInFlow(provider: provider(), options: DeviceSignInOptions(audience: "https://api.example.com"), clock: clock)
        let code = try await flow.start()
        #expect(code.userCode == "BDWP-HQPK")
        #expect(code.verificationURI.absoluteString == "https://idp.example.com/activate")
        #expect(code.verificationURIComplete?.absoluteString == "https://idp.example.com/activate?user_code=BDWP-HQPK")
        #expect(code.interval == .seconds(5))
        #expect(!code.description.contains("DC-secret-1"))
        let session = try await flow.waitForApproval()
        #expect(session.accessToken.revealed() == "AT-device")
        #expect(session.refreshToken?.revealed() == "RT-device")
        #expect(session.userID == "device-user")
        #expect(session.claims["email"] == "tv@example.com")
        #expect(pollTimes == [5, 10, 15])
        if case .completed = await flow.state {} else { Issue.record("not completed: \(await flow.state)") }

        let start = try #require(server.transport.requests(to: "/oauth/device/code").first).formBody
        #expect(start["client_id"] == "client-1")
        #expect(start["scope"] == "openid profile email")
        #expect(start["audience"] == "https://api.example.com")
        let polls = server.transport.requests(to: "/oauth/token")
        #expect(polls.count == 3)
        for poll in polls {
            #expect(poll.formBody["grant_type"] == "urn:ietf:params:oauth:grant-type:device_code")
            #expect(poll.formBody["device_code"] == "DC-secret-1")
            #expect(poll.formBody["client_id"] == "client-1")
        }
    }

    @Test func slowDownAddsFiveSecondsToEveryLaterPoll() async throws {
        deviceCodeReply()
        let approved = try await tokens()
        replies.withLock {
            $0 = [Self.oauthError("slow_down"), Self.oauthError("authorization_pending"), Self.oauthError("slow_down"), approved]
        }
        let flow = DeviceSignInFlow(provider: provider(), clock: clock)
        try await flow.start()
        _ = try await flow.waitForApproval()
        #expect(clock.sleeps == [.seconds(5), .seconds(10), .seconds(10), .seconds(15)])
    }

    @Test(arguments: [("access_denied", AuthErrorCode.accessDenied), ("expired_token", AuthErrorCode.timeout)])
    func aDenialOrAnExpiryEndsTheFlow(code: String, expected: AuthErrorCode) async throws {
        deviceCodeReply()
        replies.withLock { $0 = [Self.oauthError("authorization_pending"), Self.oauthError(code, status: 403)] }
        let flow = DeviceSignInFlow(provider: provider(), clock: clock)
        try await flow.start()
        let error = await #expect(throws: AuthError.self) { try await flow.waitForApproval() }
        #expect(error?.code == expected)
        #expect(error?.providerCode == code)
        #expect(error?.isRetryable == false)
        if case .failed(let failure) = await flow.state { #expect(failure.code == expected) } else { Issue.record("not failed") }
        #expect(server.transport.requests(to: "/oauth/token").count == 2)
    }

    @Test func aServerThatNeverAnswersRunsOutWithTheCodesLifetime() async throws {
        deviceCodeReply(["expires_in": 30, "interval": 5])
        replies.withLock { $0 = [Self.oauthError("authorization_pending")] }
        let flow = DeviceSignInFlow(provider: provider(), clock: clock)
        try await flow.start()
        let error = await #expect(throws: AuthError.self) { try await flow.waitForApproval() }
        #expect(error?.code == .timeout)
        // Polls at 5, 10, …, 25 s; the sleep that reaches 30 s ends the wait without a poll.
        #expect(server.transport.requests(to: "/oauth/token").count == 5)
    }

    @Test func networkFailuresAndServerErrorsWhilePollingAreWaitedOut() async throws {
        deviceCodeReply()
        let approved = try await tokens()
        replies.withLock {
            $0 = [.failure(TransportError(.connection, "connection refused")), Self.oauthError("temporarily_unavailable", status: 503),
                  .json(429, ["error": "too_many_requests"], headerFields: [.retryAfter: "20"]), approved]
        }
        let flow = DeviceSignInFlow(provider: provider(), clock: clock)
        try await flow.start()
        let session = try await flow.waitForApproval()
        #expect(session.userID == "device-user")
        // The 429's Retry-After (20 s) stretches the wait after it.
        #expect(clock.sleeps.last == .seconds(20))
    }

    /// No pause outlasts the code or the caller's deadline, whatever the provider asks for: a huge
    /// interval, a Retry-After of a billion seconds or of a date in year 9999.
    @Test(arguments: ["1000000000", "Fri, 31 Dec 9999 23:59:59 GMT", "interval"])
    func waitsEndAtTheCodesExpiry(_ retryAfter: String) async throws {
        deviceCodeReply(["expires_in": 8, "interval": retryAfter == "interval" ? 100_000 : 1])
        replies.withLock { $0 = [.json(429, ["error": "too_many_requests"], headerFields: [.retryAfter: retryAfter])] }
        let flow = DeviceSignInFlow(provider: provider(), clock: clock)
        let started = clock.now
        try await flow.start()
        let error = await #expect(throws: AuthError.self) { try await flow.waitForApproval() }
        #expect(error?.code == .timeout)
        #expect(error?.providerCode == "expired_token")
        let waited = clock.now.timeIntervalSince(started)
        #expect(waited <= 8.001, "waited \(waited) s for an 8-second code (sleeps \(clock.sleeps))")
        #expect(clock.sleeps.allSatisfy { $0 <= .seconds(8) }, "\(clock.sleeps)")
    }

    @Test func theCallersDeadlineEndsTheWait() async throws {
        deviceCodeReply(["expires_in": 600, "interval": 5])
        replies.withLock { $0 = [Self.oauthError("slow_down")] }
        let flow = DeviceSignInFlow(provider: provider(), clock: clock)
        let started = clock.now
        try await flow.start()
        let error = await #expect(throws: AuthError.self) { try await flow.waitForApproval(timeout: .seconds(32)) }
        #expect(error?.code == .timeout)
        #expect(error?.details["reason"] == "deadline")
        #expect(abs(clock.now.timeIntervalSince(started) - 32) < 0.01, "\(clock.sleeps)")
        // slow_down grows the interval by 5 s each time (5, 10, 15: polls at 5, 15, 30), then the deadline cuts the next pause.
        #expect(pollTimes == [5, 15, 30, 32])
        #expect(clock.sleeps.allSatisfy { $0 <= DeviceSignInFlow.maxPause })
    }

    @Test func cancellingTheWaitingTaskCancelsTheFlow() async throws {
        let manual = FakeClock(mode: .manual)
        deviceCodeReply()
        replies.withLock { $0 = [Self.oauthError("authorization_pending")] }
        let provider = OIDCProvider(id: "corp", configuration: OIDCConfiguration(issuer: URL(string: issuer)!, clientId: "client-1"),
                                    context: ProviderContext(transport: server.transport, clock: manual))
        let flow = DeviceSignInFlow(provider: provider, clock: manual)
        try await flow.start()
        let waiting = Task { try await flow.waitForApproval() }
        try await Task.sleep(for: .milliseconds(50))
        // A second waiter would double the polling rate: refused while the first waits.
        let second = await #expect(throws: AuthError.self) { try await flow.waitForApproval() }
        #expect(second?.code == .invalidRequest)
        waiting.cancel()
        let result = await waiting.result
        guard case .failure(let error) = result else { Issue.record("expected a failure"); return }
        #expect((error as? AuthError)?.code == .userCancelled)
        #expect(server.transport.requests(to: "/oauth/token").isEmpty)
    }

    /// Hostile or broken replies to the code request: refused with the field named, or clamped —
    /// never a crash, never a tight loop, never an endless wait.
    @Test func absurdLifetimesAndIntervalsAreRefusedOrClamped() async throws {
        let refused: [[String: JSONValue]] = [
            ["expires_in": 0], ["expires_in": -5], ["expires_in": "soon"], ["expires_in": .null], ["device_code": ""],
            ["user_code": .string(String(repeating: "A", count: 65))], ["user_code": "AB\u{7}CD"],
            ["verification_uri": "javascript:alert(1)"], ["verification_uri": "/activate"], ["interval": "fast"],
        ]
        for overrides in refused {
            let transport = StubTransport()
            var body: [String: JSONValue] = ["device_code": "DC", "user_code": "ABCD-EFGH", "verification_uri": "https://idp.example.com/activate",
                                             "expires_in": 600]
            body.merge(overrides) { _, new in new }
            let reply = JSONValue.object(body)
            transport.on(.post, "/code") { _ in .json(200, reply) }
            let client = OIDCTokenClient(api: APIClient(provider: "corp", baseURL: URL(string: issuer)!, transport: transport, clock: clock),
                                         tokenEndpoint: "/token", clientId: "client-1")
            let error = await #expect(throws: AuthError.self, "\(overrides)") {
                try await client.requestDeviceAuthorization(endpoint: "/code", scope: "openid")
            }
            #expect(error?.code == .invalidRequest, "\(overrides)")
        }
        let clamped: [([String: JSONValue], interval: Duration, lifetime: Double)] = [
            (["expires_in": 1e12, "interval": 1e9], .seconds(60), 1_800),
            (["expires_in": "900", "interval": 0], .seconds(1), 900),
            (["expires_in": 600, "interval": -3], .seconds(1), 600),
            (["expires_in": 600, "interval": 2.2], .seconds(3), 600),
            (["expires_in": 600], .seconds(5), 600),
        ]
        for (overrides, interval, lifetime) in clamped {
            let transport = StubTransport()
            var body: [String: JSONValue] = ["device_code": "DC", "user_code": "ABCD-EFGH", "verification_uri": "https://idp.example.com/activate"]
            body.merge(overrides) { _, new in new }
            let reply = JSONValue.object(body)
            transport.on(.post, "/code") { _ in .json(200, reply) }
            let client = OIDCTokenClient(api: APIClient(provider: "corp", baseURL: URL(string: issuer)!, transport: transport, clock: clock),
                                         tokenEndpoint: "/token", clientId: "client-1")
            let code = try await client.requestDeviceAuthorization(endpoint: "/code", scope: "openid")
            #expect(code.interval == interval, "\(overrides)")
            #expect(code.expiresAt == clock.now.addingTimeInterval(lifetime), "\(overrides)")
        }
    }

    @Test func aProviderWithoutTheEndpointSaysSo() async throws {
        let transport = StubTransport()
        transport.on(.get, "/.well-known/openid-configuration") { _ in
            .json(200, ["issuer": "https://idp.example.com/", "authorization_endpoint": "https://idp.example.com/authorize",
                        "token_endpoint": "https://idp.example.com/oauth/token", "jwks_uri": "https://idp.example.com/.well-known/jwks.json"])
        }
        let provider = OIDCProvider(id: "corp", configuration: OIDCConfiguration(issuer: URL(string: issuer)!, clientId: "client-1"),
                                    context: ProviderContext(transport: transport, clock: clock))
        let flow = DeviceSignInFlow(provider: provider, clock: clock)
        let error = await #expect(throws: AuthError.self) { try await flow.start() }
        #expect(error?.code == .unsupported)
        #expect(error?.message.contains("device_authorization_endpoint") == true)
    }

    @Test func anIDTokenForAnotherClientFailsTheSignIn() async throws {
        deviceCodeReply()
        let now = clock.now.timeIntervalSince1970
        let foreign = try await sign(["iss": .string(issuer), "sub": "x", "aud": "another-client", "exp": .number(now + 3600), "iat": .number(now)])
        replies.withLock { $0 = [.json(200, ["access_token": "AT", "id_token": .string(foreign), "expires_in": 3600])] }
        let flow = DeviceSignInFlow(provider: provider(), clock: clock)
        try await flow.start()
        let error = await #expect(throws: AuthError.self) { try await flow.waitForApproval() }
        #expect(error?.code == .invalidToken)
    }

    /// A provider with a plain OAuth device grant returns no ID token: the user comes from userinfo
    /// (with the new access token); without a userinfo endpoint, or a `sub`, the sign-in fails.
    @Test func withoutAnIDTokenTheUserComesFromUserInfo() async throws {
        deviceCodeReply()
        replies.withLock { $0 = [.json(200, ["access_token": "AT-plain", "token_type": "Bearer", "refresh_token": "RT-plain", "expires_in": 600])] }
        server.transport.on(.get, "/.well-known/openid-configuration", first: true) { _ in
            .json(200, ["issuer": "https://idp.example.com/", "authorization_endpoint": "https://idp.example.com/authorize",
                        "token_endpoint": "https://idp.example.com/oauth/token", "jwks_uri": "https://idp.example.com/.well-known/jwks.json",
                        "userinfo_endpoint": "https://idp.example.com/userinfo",
                        "device_authorization_endpoint": "https://idp.example.com/oauth/device/code"])
        }
        let userinfo = Mutex<JSONValue>(["sub": "plain-user", "email": "plain@example.com"])
        server.transport.on(.get, "/userinfo") { _ in .json(200, userinfo.withLock { $0 }) }
        let flow = DeviceSignInFlow(provider: provider(), clock: clock)
        try await flow.start()
        let session = try await flow.waitForApproval()
        #expect(session.userID == "plain-user")
        #expect(session.claims["email"] == "plain@example.com")
        #expect(session.refreshToken?.revealed() == "RT-plain")
        #expect(server.transport.requests(to: "/userinfo").first?.headerFields[.authorization] == "Bearer AT-plain")

        userinfo.withLock { $0 = ["email": "no-sub@example.com"] }
        let again = DeviceSignInFlow(provider: provider(), clock: clock)
        try await again.start()
        let error = await #expect(throws: AuthError.self) { try await again.waitForApproval() }
        #expect(error?.code == .invalidRequest)
    }

    @Test func withoutAnIDTokenOrAUserInfoEndpointTheSignInFails() async throws {
        deviceCodeReply()
        replies.withLock { $0 = [.json(200, ["access_token": "AT-plain", "expires_in": 600])] }
        let flow = DeviceSignInFlow(provider: provider(), clock: clock)
        try await flow.start()
        let error = await #expect(throws: AuthError.self) { try await flow.waitForApproval() }
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains("userinfo") == true)
    }

    /// Through the hub: the approved session is stored and replaces the one before.
    @Test func theHubStoresTheApprovedSession() async throws {
        deviceCodeReply()
        let approved = try await tokens()
        replies.withLock { $0 = [approved] }
        let config = """
        {"defaultEnvironment": "dev", "environments": {"dev": {"defaultProvider": "corp", "sessionStore": {"type": "memory"},
          "providers": [{"id": "corp", "type": "oidc", "issuer": "https://idp.example.com/", "clientId": "client-1"}]}}}
        """
        let registry = ProviderRegistry([OIDCPlugin()])
        let environment = try ConfigLoader(registry: registry, environmentVariables: [:]).load(data: Data(config.utf8))
        let hub = try AuthHub(environment: environment, registry: registry, context: ProviderContext(transport: server.transport, clock: clock))
        let flow = try hub.deviceSignIn()
        try await flow.start()
        let session = try await flow.waitForApproval()
        #expect(try await hub.manager(provider: "corp").current()?.accessToken == session.accessToken)
        #expect(try hub.provider("corp").capabilities.contains(.deviceSignIn))
    }
}
