import AuthHub
import AuthHubAuth0
import AuthHubEmulator
import AuthHubFactors
import AuthHubOIDC
import AuthHubTesting
import Foundation
import Testing

/// Counts requests on their way to a real transport.
final class CountingTransport: HTTPTransport {
    let inner: any HTTPTransport
    let paths = Mutex<[String]>([])
    init(_ inner: any HTTPTransport) { self.inner = inner }
    func send(_ request: HTTPRequest, body: Data?, timeout: Duration?) async throws -> HTTPReply {
        paths.withLock { $0.append(request.url?.path ?? "") }
        return try await inner.send(request, body: body, timeout: timeout)
    }
    func count(_ path: String) -> Int { paths.withLock { $0.filter { $0 == path }.count } }
}

/// The Auth0 client (AuthHubAuth0 over AuthHubOIDC) against the emulator's independent reading of
/// the same spec, over real HTTP on loopback.
@Suite struct Auth0IntegrationTests {
    static let password = "correct horse battery staple"

    /// A running emulator, an Auth0 provider pointed at it, and the emulator-only hooks.
    struct Tenant {
        let emulator: RunningEmulator
        let transport: CountingTransport
        let provider: Auth0Provider
        let wire = URLSessionTransport(defaultTimeout: .seconds(30), followRedirects: false)

        static func start(clock: any AuthClock = SystemClock(), audience: String? = nil) async throws -> Tenant {
            let emulator = try await Emulator.start()
            let transport = CountingTransport(URLSessionTransport(defaultTimeout: .seconds(30)))
            let configuration = try Auth0Configuration(domain: emulator.url("/auth0").absoluteString, clientId: "authhub-it",
                                                       audience: audience, connection: "Username-Password-Authentication")
            let provider = Auth0Provider(id: "auth0", configuration: configuration,
                                         context: ProviderContext(transport: transport, clock: clock))
            return Tenant(emulator: emulator, transport: transport, provider: provider)
        }

        /// Seeds a user through `POST /auth0/__emulator/users`.
        func seed(_ email: String, extra: [String: JSONValue] = [:]) async throws {
            var body: [String: JSONValue] = ["email": .string(email), "password": .string(Auth0IntegrationTests.password)]
            body.merge(extra) { _, new in new }
            let reply = try await wire.send(.post, emulator.url("/auth0/__emulator/users"), headerFields: [.contentType: "application/json"], body: try JSONEncoder().encode(JSONValue.object(body)))
            #expect(reply.status == 201, "\(String(decoding: reply.body, as: UTF8.self))")
        }

        func signIn(_ email: String) async throws -> Session {
            try await provider.signIn(.password(identifier: email, password: Secret(Auth0IntegrationTests.password)))
        }
    }

    @Test func passwordLoginUserInfoAndAValidatedIDToken() async throws {
        let tenant = try await Tenant.start()
        defer { Task { await tenant.emulator.stop() } }
        try await tenant.seed("ada@example.com")
        let session = try await tenant.signIn("ada@example.com")
        #expect(session.userID?.isEmpty == false && session.refreshToken != nil && session.claims["email"] == "ada@example.com")
        // The emulator's ID token verifies against its JWKS with the client's own validator.
        let claims = try await tenant.provider.idTokenValidator.validate(
            try #require(session.idToken), expecting: IDTokenExpectations(issuer: tenant.provider.webAuth.issuer, clientId: "authhub-it"))
        #expect(claims.subject == session.userID)
        let info = try await tenant.provider.userInfo(session)
        #expect(info.id == session.userID && info.email == "ada@example.com")

        let wrong = await #expect(throws: AuthError.self) {
            try await tenant.provider.signIn(.password(identifier: "ada@example.com", password: Secret("nope")))
        }
        #expect(wrong?.code == .invalidCredentials && wrong?.auth0.isInvalidCredentials == true)
    }

    @Test func refreshRotatesAndReuseOfAnOldRefreshTokenIsRejected() async throws {
        let tenant = try await Tenant.start()
        defer { Task { await tenant.emulator.stop() } }
        try await tenant.seed("bob@example.com")
        let manager = Auth0CredentialsManager(provider: tenant.provider, store: InMemorySessionStore())
        let first = try await manager.store(try await tenant.signIn("bob@example.com"))
        let renewed = try await manager.renew()
        #expect(renewed.refreshToken != first.refreshToken, "the emulator rotates refresh tokens")
        #expect(renewed.accessToken != first.accessToken)

        // Presenting the rotated-away token again is reuse: rejected, and the family revoked.
        let reuse = await #expect(throws: AuthError.self) {
            try await tenant.provider.authentication.renew(refreshToken: try #require(first.refreshToken))
        }
        #expect(reuse?.code == .refreshTokenInvalid, "\(String(describing: reuse))")
        let familyRevoked = await #expect(throws: AuthError.self) { try await manager.renew() }
        #expect(familyRevoked?.code == .refreshTokenInvalid)
        #expect(try await manager.sessions.current() == nil, "the provider's word that the token is dead clears the session")
    }

    /// With an `audience` configured, a refresh keeps the scope and audience of the sign-in (the emulator
    /// narrows the scope whenever one is sent, as Auth0 does, so sending `scope=openid` would show here).
    @Test func refreshWithAnAudienceConfiguredKeepsTheOriginalScope() async throws {
        let tenant = try await Tenant.start(audience: "https://api.example.com/")
        defer { Task { await tenant.emulator.stop() } }
        try await tenant.seed("scope@example.com")
        let session = try await tenant.signIn("scope@example.com")
        #expect(session.scope == "openid profile email offline_access")
        let renewed = try await tenant.provider.refresh(session, scope: nil)
        #expect(renewed.scope == session.scope)
        let again = try await tenant.provider.refresh(renewed, scope: nil)
        #expect(again.scope == session.scope)
        // The access token still grants the original scopes to the configured audience.
        let info = try await tenant.provider.userInfo(again)
        #expect(info.email == "scope@example.com", "openid profile email still granted")
        // Asking for a narrower scope narrows it (the emulator's rule the test above relies on).
        let narrowed = try await tenant.provider.refresh(again, scope: "openid")
        #expect(narrowed.scope == "openid")
    }

    @Test func revokeEndsTheRefreshToken() async throws {
        let tenant = try await Tenant.start()
        defer { Task { await tenant.emulator.stop() } }
        try await tenant.seed("cy@example.com")
        let manager = Auth0CredentialsManager(provider: tenant.provider, store: InMemorySessionStore())
        let session = try await manager.store(try await tenant.signIn("cy@example.com"))
        try await manager.revoke()
        #expect(try await manager.sessions.current() == nil)
        await #expect(throws: AuthError(.refreshTokenInvalid)) {
            try await tenant.provider.authentication.renew(refreshToken: try #require(session.refreshToken))
        }
    }

    @Test func browserLoginThroughTheLoopbackReceiver() async throws {
        let tenant = try await Tenant.start()
        defer { Task { await tenant.emulator.stop() } }
        try await tenant.seed("dee@example.com")
        let wire = tenant.wire
        let session = try await tenant.provider.webAuth.signIn(open: { url in
            // The test is the browser: Universal Login completes (emulator hook), then the 302 to
            // the loopback redirect URI is followed by hand.
            let authorize = try await wire.send(.get, url, headerFields: [HTTPField.Name.constant("X-AuthHub-Emulator-User"): "dee@example.com"])
            #expect(authorize.status == 302)
            let location = try #require(authorize.headerFields["Location"].flatMap(URL.init(string:)))
            #expect(location.host == "127.0.0.1")
            Task.detached { _ = try await wire.send(.get, location) }
        }, timeout: .seconds(30))
        #expect(session.claims["email"] == "dee@example.com" && session.refreshToken != nil)
        #expect(session.claims["nonce"] != nil, "the nonce was sent and checked")
    }

    /// Organizations through Web Auth: a member signs in to the organization (the client checks
    /// `org_id`), an invitee accepts the invitation link while signing in and becomes a member, and
    /// someone else is refused.
    @Test func organizationSignInAndInvitations() async throws {
        let tenant = try await Tenant.start()
        defer { Task { await tenant.emulator.stop() } }
        for email in ["member@example.com", "invitee@example.com", "outsider@example.com"] { try await tenant.seed(email) }
        func post(_ path: String, _ body: JSONValue) async throws -> JSONValue {
            let reply = try await tenant.wire.send(.post, tenant.emulator.url(path), headerFields: [.contentType: "application/json"], body: try JSONEncoder().encode(body))
            #expect(reply.status == 201, "\(String(decoding: reply.body, as: UTF8.self))")
            return try JSONValue.parse(reply.body)
        }
        let organization = try #require(try await post("/auth0/__emulator/organizations", ["name": "acme", "members": ["member@example.com"]])["id"]?.stringValue)
        let invitation = try #require(try await post("/auth0/__emulator/organizations/\(organization)/invitations",
                                                     ["email": "invitee@example.com"])["invitation_url"]?.stringValue)
        let wire = tenant.wire
        func browserSignIn(_ user: String, _ options: Auth0WebAuth.Options) async throws -> Session {
            try await tenant.provider.webAuth.signIn(open: { url in
                let authorize = try await wire.send(.get, url, headerFields: [HTTPField.Name.constant("X-AuthHub-Emulator-User"): user])
                let location = try #require(authorize.headerFields["Location"].flatMap(URL.init(string:)))
                Task.detached { _ = try await wire.send(.get, location) }
            }, timeout: .seconds(30), options: options)
        }

        let member = try await browserSignIn("member@example.com", .init(organization: organization))
        #expect(member.claims["org_id"] == .string(organization) && member.claims["org_name"] == "acme")
        let byName = try await browserSignIn("member@example.com", .init(organization: "acme"))
        #expect(byName.claims["org_name"] == "acme", "an organization name is checked against org_name")

        let invited = try await browserSignIn("invitee@example.com", .init(invitationURL: URL(string: invitation)))
        #expect(invited.claims["org_id"] == .string(organization))
        let nowMember = try await browserSignIn("invitee@example.com", .init(organization: organization))
        #expect(nowMember.claims["org_id"] == .string(organization), "accepting the invitation made the invitee a member")

        let refused = await #expect(throws: AuthError.self) { _ = try await browserSignIn("outsider@example.com", .init(organization: organization)) }
        #expect(refused?.code == .accessDenied, "\(String(describing: refused))")
    }

    @Test func mfaRequiredLoginCompletedWithATOTPCode() async throws {
        let tenant = try await Tenant.start()
        defer { Task { await tenant.emulator.stop() } }
        let secret = Base32.encode(SystemRandom().bytes(20))
        try await tenant.seed("eve@example.com", extra: ["totp_secret": .string(secret)])
        let error = await #expect(throws: AuthError.self) { try await tenant.signIn("eve@example.com") }
        #expect(error?.code == .mfaRequired)
        let requirement = try #require(error?.mfa)
        let totp = try TOTP(secret: Secret(try Base32.decode(secret)))
        let wrongCode = await #expect(throws: AuthError.self) {
            try await tenant.provider.signIn(mfa: requirement, .otp(Secret("000000" == totp.code(at: Date()).revealed() ? "111111" : "000000")))
        }
        #expect(wrongCode?.code == .invalidMFACode)
        let authenticators = try await tenant.provider.authentication.listAuthenticators(mfaToken: requirement.token, factorsAllowed: ["otp"])
        #expect(authenticators.count == 1 && authenticators.first?.authenticatorType == "otp")
        let session = try await tenant.provider.signIn(mfa: requirement, .otp(try totp.code(at: Date())))
        #expect(session.claims["email"] == "eve@example.com")
        // The MFA token is spent by the successful verification.
        await #expect(throws: AuthError.self) {
            try await tenant.provider.authentication.listAuthenticators(mfaToken: requirement.token, factorsAllowed: ["otp"])
        }
    }

    @Test func passkeySignupThenLoginWithTheSoftwareAuthenticator() async throws {
        let tenant = try await Tenant.start()
        defer { Task { await tenant.emulator.stop() } }
        let authenticator = try SoftwarePasskeyAuthenticator(store: InMemoryPasskeyCredentialStore())
        let api = tenant.provider.authentication
        let signup = try await api.passkeySignupChallenge(userProfile: ["email": "fay@example.com", "name": "Fay"],
                                                          connection: "Username-Password-Authentication")
        let registration = try await authenticator.makeCredential(signup.options)
        let created = try await api.signup(passkey: registration, challenge: signup)
        #expect(!created.accessToken.isEmpty)

        let login = try await api.passkeyLoginChallenge(connection: "Username-Password-Authentication")
        let assertion = try await authenticator.getAssertion(login.options)
        let credentials = try await api.login(passkey: assertion, challenge: login)
        let session = tenant.provider.session(from: credentials)
        #expect(session.claims["email"] == "fay@example.com")

        // The same assertion cannot be replayed: its challenge was spent.
        await #expect(throws: AuthError.self) { try await api.login(passkey: assertion, challenge: login) }
    }

    @Test func passwordlessEmailCodeFromTheEmulatorsOutbox() async throws {
        let tenant = try await Tenant.start()
        defer { Task { await tenant.emulator.stop() } }
        let challenge = try await tenant.provider.startSignIn(.emailCode(email: "gus@example.com"))
        #expect(challenge.destination == "gus@example.com")
        let outbox = try await tenant.wire.send(.get, tenant.emulator.url("/auth0/__emulator/passwordless?email=gus%40example.com"))
        let code = try #require(try JSONValue.parse(outbox.body)["code"]?.stringValue)
        let session = try await tenant.provider.signIn(.emailCode(email: "gus@example.com", code: Secret(code)))
        #expect(session.claims["email"] == "gus@example.com")
    }

    @Test func thousandConcurrentCallersCauseOneRefresh() async throws {
        let tenant = try await Tenant.start()
        defer { Task { await tenant.emulator.stop() } }
        try await tenant.seed("hal@example.com")
        let store = InMemorySessionStore()
        let manager = Auth0CredentialsManager(provider: tenant.provider, store: store)
        var session = try await tenant.signIn("hal@example.com")
        session.expiresAt = Date().addingTimeInterval(-1)
        try await manager.store(session)
        let before = tenant.transport.count("/auth0/oauth/token")
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<1000 { group.addTask { try await manager.credentials().accessToken.revealed() } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(tokens.count == 1)
        #expect(tenant.transport.count("/auth0/oauth/token") - before == 1)
    }
}
