import AuthHub
import AuthHubAuth0
import AuthHubEmulator
import AuthHubFactors
import AuthHubFirebase
import AuthHubOIDC
import AuthHubOpenfort
import AuthHubTesting
import AuthHubTurnkey
import Foundation
import MetricsTestKit
import Testing

/// One rule for signing in while signed in (``SignInPolicy``), through every entry point of every
/// provider, over real HTTP to the emulator: the new session replaces the stored one, `signedIn` is
/// published for each, the sign-in is counted with its method, and the old session is revoked at
/// the provider *in the background* — the second sign-in returns while the revocation request is
/// still held by the transport. Signing up (or in with an emailed code) as a guest of Openfort
/// upgrades the guest instead; `OpenfortAuth` keeps openfort-js's refusal as a documented option.
@Suite struct SignInWhileSignedInTests {
    static let password = "correct horse battery staple"

    /// A transport that records every request's method and path and holds the requests whose path
    /// ends with one of ``held`` until ``release()`` (or until cancelled).
    final class GatedTransport: HTTPTransport {
        let inner = URLSessionTransport(defaultTimeout: .seconds(30))
        let sent = Mutex<[String]>([])
        let held = Mutex<Set<String>>([])
        let open = Mutex(false)
        /// 500 instead of forwarding, for paths ending with one of these.
        let failing = Mutex<Set<String>>([])

        func send(_ request: HTTPRequest, body: Data?, timeout: Duration?) async throws -> HTTPReply {
            let path = request.path.map { String($0.prefix { $0 != "?" }) } ?? ""
            sent.withLock { $0.append("\(request.method.rawValue) \(path)") }
            if held.withLock({ $0.contains { path.hasSuffix($0) } }) {
                while !open.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(10)) }
            }
            if failing.withLock({ $0.contains { path.hasSuffix($0) } }) {
                return HTTPReply(status: 500, headerFields: [.contentType: "application/json"], body: Data(#"{"error":"server_error"}"#.utf8))
            }
            return try await inner.send(request, body: body, timeout: timeout)
        }

        func release() { open.withLock { $0 = true } }
        func count(_ suffix: String) -> Int { sent.withLock { $0.filter { $0.hasPrefix("POST ") && $0.hasSuffix(suffix) }.count } }
    }

    struct Fixture {
        let emulator: RunningEmulator
        let hub: AuthHub
        let metrics: TestMetrics
        let transport: GatedTransport
        let authenticator: SoftwarePasskeyAuthenticator
        let wire = URLSessionTransport(defaultTimeout: .seconds(30))

        static func start(policy: SignInPolicy = .replace) async throws -> Fixture {
            let emulator = try await Emulator.start()
            let wire = URLSessionTransport(defaultTimeout: .seconds(30))
            let notarizer = try await emulator.turnkeyNotarizerPublicKey(transport: wire)
            let auth0URL = emulator.url("/auth0")
            let base = String(auth0URL.absoluteString.dropLast("/auth0".count))
            let config = """
            {"defaultEnvironment": "dev", "environments": {"dev": {"defaultProvider": "auth0", "sessionStore": {"type": "memory"},
              "providers": [
                {"id": "auth0", "type": "auth0", "domain": "\(base)/auth0", "clientId": "authhub-it"},
                {"id": "firebase", "type": "firebase", "apiKey": "it-key", "projectId": "authhub-dev", "emulatorHost": "\(auth0URL.host ?? ""):\(auth0URL.port ?? 0)"},
                {"id": "openfort", "type": "openfort", "publishableKey": "pk_test_00000000-0000-4000-8000-000000000001", "baseURL": "\(base)/openfort"},
                {"id": "turnkey", "type": "turnkey", "baseURL": "\(base)/turnkey", "organizationId": "00000000-0000-4000-8000-0000000000aa",
                 "rpId": "localhost", "proxyURL": "\(base)/turnkey-proxy", "notarizerPublicKey": "\(notarizer)"},
                {"id": "oidc", "type": "oidc", "issuer": "\(base)/auth0/", "clientId": "authhub-it", "scopes": ["openid", "email", "offline_access"]}
              ]}}}
            """
            let registry = ProviderRegistry([Auth0Plugin(), FirebasePlugin(), OpenfortPlugin(), TurnkeyPlugin(), OIDCPlugin()])
            let environment = try ConfigLoader(registry: registry, environmentVariables: [:]).load(data: Data(config.utf8))
            let metrics = TestMetrics(), transport = GatedTransport()
            let authenticator = try SoftwarePasskeyAuthenticator(store: InMemoryPasskeyCredentialStore())
            let hub = try AuthHub(environment: environment, registry: registry,
                                  context: ProviderContext(transport: transport, passkeyAuthenticator: authenticator,
                                                           telemetry: AuthTelemetry(metricsFactory: metrics)),
                                  signInPolicy: policy)
            return Fixture(emulator: emulator, hub: hub, metrics: metrics, transport: transport, authenticator: authenticator)
        }

        /// Creates `email` at `provider` (directly at the emulator or the provider, never through a
        /// session entry point, so nothing is counted or stored).
        func seed(_ provider: String, _ email: String) async throws {
            switch provider {
            case "auth0", "oidc":
                let reply = try await wire.send(.post, emulator.url("/auth0/__emulator/users"), headerFields: [.contentType: "application/json"],
                                                body: Data(#"{"email":"\#(email)","password":"\#(SignInWhileSignedInTests.password)"}"#.utf8))
                #expect(reply.status == 201)
            case "turnkey":
                _ = try await emulator.registerTurnkeyUser(email: email, authenticator: authenticator, transport: wire)
            default:
                let result = try await hub.provider(provider).signUp(SignUpRequest(email: email, password: Secret(SignInWhileSignedInTests.password)))
                guard case .signedIn = result else { Issue.record("\(provider): seeding \(email) did not sign in"); return }
            }
        }

        /// Acts as the user's browser at the emulator's Auth0 tenant: signs `email` in at `/authorize`
        /// and follows the redirect to the loopback receiver.
        func browser(_ email: String) -> @Sendable (URL) async throws -> Void {
            let wire = URLSessionTransport(defaultTimeout: .seconds(30), followRedirects: false)
            return { url in
                let authorize = try await wire.send(.get, url, headerFields: [HTTPField.Name("X-AuthHub-Emulator-User")!: email])
                let location = try #require(authorize.headerFields[.location].flatMap(URL.init(string:)))
                Task.detached { _ = try? await wire.send(.get, location) }
            }
        }

        func signIns(_ provider: String, _ method: String, _ outcome: String = "success") -> Int64 {
            (try? metrics.expectCounter(AuthTelemetry.MetricName.signIns, [("provider", provider), ("method", method), ("outcome", outcome)]))?.totalValue ?? 0
        }

        func signUps(_ provider: String) -> Int64 {
            metrics.counters(label: AuthTelemetry.MetricName.signUps).filter {
                $0.dimensions.contains { $0 == ("provider", provider) } && $0.dimensions.contains { $0 == ("outcome", "success") }
            }.map(\.totalValue).reduce(0, +)
        }

        func revocations(_ provider: String, _ outcome: String = "success") -> Int64 {
            (try? metrics.expectCounter(AuthTelemetry.MetricName.revocations, [("provider", provider), ("reason", "replaced"), ("outcome", outcome)]))?
                .totalValue ?? 0
        }
    }

    /// One entry point: how it signs `email` in under `account`.
    struct EntryPoint: CustomTestStringConvertible, Sendable {
        let name: String
        let provider: String
        let method: String
        /// The path suffix of the provider's revocation request; nil when it revokes nothing remotely.
        let revocationPath: String?
        /// Whether the user must exist before the sign-in (not for sign-ups, which create it).
        var seeded = true
        let signIn: @Sendable (Fixture, String, String) async throws -> Session
        var testDescription: String { name }
    }

    static let entryPoints: [EntryPoint] = [
        EntryPoint(name: "AuthHub.signIn auth0", provider: "auth0", method: "password", revocationPath: "/oauth/revoke") { f, email, account in
            try await f.hub.signIn(.password(identifier: email, password: Secret(password)), provider: "auth0", account: account)
        },
        EntryPoint(name: "AuthHub.signIn firebase", provider: "firebase", method: "password", revocationPath: nil) { f, email, account in
            try await f.hub.signIn(.password(identifier: email, password: Secret(password)), provider: "firebase", account: account)
        },
        EntryPoint(name: "AuthHub.signIn openfort", provider: "openfort", method: "password", revocationPath: "/sign-out") { f, email, account in
            try await f.hub.signIn(.password(identifier: email, password: Secret(password)), provider: "openfort", account: account)
        },
        EntryPoint(name: "AuthHub.signIn turnkey", provider: "turnkey", method: "passkey", revocationPath: nil) { f, email, account in
            try await f.hub.signIn(.passkey(identifier: email), provider: "turnkey", account: account)
        },
        EntryPoint(name: "AuthHub.signInWithBrowser oidc", provider: "oidc", method: "browser", revocationPath: nil) { f, email, account in
            try await f.hub.signInWithBrowser(provider: "oidc", account: account, timeout: .seconds(20), open: f.browser(email))
        },
        EntryPoint(name: "AuthHub.signInWithBrowser auth0", provider: "auth0", method: "browser", revocationPath: "/oauth/revoke") { f, email, account in
            try await f.hub.signInWithBrowser(provider: "auth0", account: account, timeout: .seconds(20), open: f.browser(email))
        },
        EntryPoint(name: "AuthHub.signUp firebase", provider: "firebase", method: "signUp", revocationPath: nil, seeded: false) { f, email, account in
            let result = try await f.hub.signUp(SignUpRequest(email: email, password: Secret(password)), provider: "firebase", account: account)
            guard case .signedIn(let session) = result else { throw AuthError(.unknown, message: "not signed in") }
            return session
        },
        EntryPoint(name: "AuthHub.signUpWithPasskey turnkey", provider: "turnkey", method: "signUp", revocationPath: nil, seeded: false) { f, email, account in
            try await f.hub.signUpWithPasskey(email: email, provider: "turnkey", account: account)
        },
        EntryPoint(name: "FirebaseAuth.signIn", provider: "firebase", method: "password", revocationPath: nil) { f, email, account in
            try await FirebaseAuth(hub: f.hub, provider: "firebase", account: account).signIn(email: email, password: Secret(password))
        },
        EntryPoint(name: "OpenfortAuth.signIn (policy .replace)", provider: "openfort", method: "password", revocationPath: "/sign-out") { f, email, account in
            try await OpenfortAuth(hub: f.hub, provider: "openfort", account: account, signInPolicy: .replace)
                .signIn(email: email, password: Secret(password))
        },
        EntryPoint(name: "Auth0CredentialsManager.store", provider: "auth0", method: "credentials", revocationPath: "/oauth/revoke") { f, email, account in
            let auth0 = try f.hub.provider("auth0", as: Auth0Provider.self)
            let credentials = try await auth0.authentication.login(usernameOrEmail: email, password: Secret(password))
            return try await Auth0CredentialsManager(hub: f.hub, provider: "auth0", account: account).store(credentials)
        },
    ]

    @Test(arguments: entryPoints)
    func aSecondSignInReplacesTheFirstAndRevokesItInTheBackground(_ entry: EntryPoint) async throws {
        let f = try await Fixture.start()
        defer { Task { await f.emulator.stop() } }
        let account = "while-signed-in"
        let (one, two) = ("one-\(entry.provider)@example.com", "two-\(entry.provider)@example.com")
        let events = EventLog(f.hub.events())
        if let path = entry.revocationPath { f.transport.held.withLock { _ = $0.insert(path) } }

        // Seeded one after the other: a software passkey authenticator signs with its newest passkey.
        if entry.seeded { try await f.seed(entry.provider, one) }
        let first = try await entry.signIn(f, one, account)
        if entry.seeded { try await f.seed(entry.provider, two) }
        let second = try await entry.signIn(f, two, account)
        // Returned while the revocation request (if any) is still held by the transport.
        let key = SessionKey(provider: entry.provider, account: account)
        let stored = try #require(try await f.hub.store.load(key))
        #expect(stored.userID == second.userID && second.userID != first.userID, "the new session replaced the old one")
        if let path = entry.revocationPath {
            #expect(f.revocations(entry.provider) == 0, "the revocation has not finished: it runs off the caller's path")
            try await waitUntil { f.transport.count(path) == 1 }
            f.transport.release()
        }
        try await f.hub.finishBackgroundWork()
        // Providers without a revocation endpoint (Firebase, Turnkey, this OIDC issuer) are counted as such.
        #expect(f.revocations(entry.provider, entry.revocationPath == nil ? "notRevocable" : "success") == 1,
                "the replaced session's revocation is counted")
        if let path = entry.revocationPath { #expect(f.transport.count(path) == 1, "one revocation request") }
        if entry.method == "signUp" {
            #expect(f.signUps(entry.provider) == 2)
        } else {
            #expect(f.signIns(entry.provider, entry.method) == 2)
        }
        let seen = try await events.waitFor(2)
        #expect(seen == [.signedIn(first.userID), .signedIn(second.userID)])

        if entry.provider == "auth0", let old = first.refreshToken {
            let auth0 = try f.hub.provider("auth0", as: Auth0Provider.self)
            let revoked = await #expect(throws: AuthError.self) { try await auth0.authentication.renew(refreshToken: old) }
            #expect(revoked?.code == .refreshTokenInvalid, "the replaced session was revoked at Auth0")
        }
    }

    /// openfort-js's rule, kept by `OpenfortAuth` as its default ``SignInPolicy``: a sign-in while
    /// signed in is refused before any request, counted as `conflict`, and changes nothing stored.
    @Test func openfortAuthRefusesBeforeAnyRequestByDefault() async throws {
        let f = try await Fixture.start()
        defer { Task { await f.emulator.stop() } }
        try await f.seed("openfort", "a@example.com")
        try await f.seed("openfort", "b@example.com")
        let auth = try OpenfortAuth(hub: f.hub, provider: "openfort", account: "sdk")
        let first = try await auth.signIn(email: "a@example.com", password: Secret(Self.password))
        let requests = f.transport.sent.withLock { $0.count }
        let refused = await #expect(throws: AuthError.self) { try await auth.signIn(email: "b@example.com", password: Secret(Self.password)) }
        #expect(refused?.code == .conflict && refused?.providerCode == "ALREADY_LOGGED_IN")
        #expect(f.transport.sent.withLock { $0.count } == requests, "refused before any request")
        #expect(try await f.hub.store.load(auth.key)?.userID == first.userID)
        #expect(f.signIns("openfort", "password") == 1 && f.signIns("openfort", "password", "conflict") == 1)
        try await f.hub.finishBackgroundWork()
        #expect(f.revocations("openfort") == 0)
    }

    /// A revocation that never answers is abandoned after the policy's bound and counted as a
    /// timeout; one the provider refuses is counted with its error. Neither delays the sign-in.
    @Test func aRevocationThatHangsOrFailsNeverHoldsTheSignIn() async throws {
        let f = try await Fixture.start(policy: SignInPolicy(revocationTimeout: .milliseconds(300)))
        defer { Task { await f.emulator.stop() } }
        for email in ["a@example.com", "b@example.com", "c@example.com"] { try await f.seed("auth0", email) }
        f.transport.held.withLock { _ = $0.insert("/oauth/revoke") }  // never released
        _ = try await f.hub.signIn(.password(identifier: "a@example.com", password: Secret(Self.password)))
        let clock = ContinuousClock(), start = clock.now
        let second = try await f.hub.signIn(.password(identifier: "b@example.com", password: Secret(Self.password)))
        try await f.hub.finishBackgroundWork()
        #expect(clock.now - start < .seconds(8), "bounded by the revocation timeout, not the transport's")
        #expect(f.revocations("auth0", "timeout") == 1)
        #expect(try await f.hub.store.load(SessionKey(provider: "auth0", account: SessionKey.defaultAccount))?.userID == second.userID)

        f.transport.held.withLock { $0 = [] }
        f.transport.failing.withLock { _ = $0.insert("/oauth/revoke") }
        _ = try await f.hub.signIn(.password(identifier: "c@example.com", password: Secret(Self.password)))
        try await f.hub.finishBackgroundWork()
        #expect(f.revocations("auth0", "providerUnavailable") == 1)
        #expect(f.signIns("auth0", "password") == 3)
    }

    @Test func aGuestIsUpgradedBySignUpAndByAnEmailedCode() async throws {
        let f = try await Fixture.start()
        defer { Task { await f.emulator.stop() } }
        let hub = f.hub
        let guest = try await hub.signIn(.guest, provider: "openfort")
        let result = try await hub.signUp(SignUpRequest(email: "up@example.com", password: Secret(Self.password)), provider: "openfort")
        guard case .signedIn(let upgraded) = result else { Issue.record("not signed in: \(result)"); return }
        #expect(upgraded.userID == guest.userID, "the guest's user became the account")
        let openfort = try hub.provider("openfort", as: OpenfortProvider.self)
        #expect(!openfort.isGuest(upgraded))

        _ = try await hub.signOut(provider: "openfort")
        let otherGuest = try await hub.signIn(.guest, provider: "openfort")
        try await openfort.requestEmailOTP(email: "otp@example.com", type: .signIn)
        let otp = try await f.wire.send(.get, f.emulator.url("/openfort/__emulator/otp?email=otp@example.com"))
        let code = try #require(try JSONValue.parse(otp.body)["otp"]?.stringValue)
        let viaCode = try await hub.signIn(.emailCode(email: "otp@example.com", code: Secret(code)), provider: "openfort")
        #expect(viaCode.userID == otherGuest.userID, "the emailed code upgraded the guest")
        try await hub.finishBackgroundWork()
        #expect(f.revocations("openfort") == 0, "an upgraded guest is the same user: nothing is revoked")
    }
}

/// The hub's events as they arrive, by kind and user.
final class EventLog: Sendable {
    enum Seen: Equatable { case signedIn(String?), other }
    let seen = Mutex<[Seen]>([])
    let task: Task<Void, Never>

    init(_ stream: AsyncStream<AuthEvent>) {
        let seen = self.seen
        task = Task {
            for await event in stream {
                if case .signedIn(let session) = event { seen.withLock { $0.append(.signedIn(session.userID)) } }
            }
        }
    }

    deinit { task.cancel() }

    func waitFor(_ count: Int) async throws -> [Seen] {
        try await waitUntil { self.seen.withLock { $0.count >= count } }
        return seen.withLock { $0 }
    }
}

/// Waits (up to 10 s) until `condition` holds.
func waitUntil(_ condition: @Sendable () -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(10)
    while !condition() {
        guard ContinuousClock.now < deadline else { Issue.record("a condition did not hold within 10 s"); return }
        try await Task.sleep(for: .milliseconds(10))
    }
}
