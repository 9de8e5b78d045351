import AuthHub
import AuthHubEmulator
import AuthHubOpenfort
import AuthHubTesting
import Foundation
import Testing

/// The Openfort client (AuthHubOpenfort) against the emulator's independent reading of the same
/// spec, over real HTTP on loopback.
@Suite struct OpenfortIntegrationTests {
    static let password = Secret("correct horse battery")
    static let key = "pk_test_00000000-0000-4000-8000-000000000001"

    struct Project {
        let emulator: RunningEmulator
        let provider: OpenfortProvider
        let wire = URLSessionTransport(defaultTimeout: .seconds(30), followRedirects: false)

        static func start() async throws -> Project {
            let emulator = try await Emulator.start()
            let configuration = OpenfortConfiguration(publishableKey: OpenfortIntegrationTests.key, baseURL: emulator.url("/openfort"))
            let provider = OpenfortProvider(id: "openfort", configuration: configuration,
                                            context: ProviderContext(transport: URLSessionTransport(defaultTimeout: .seconds(30))))
            return Project(emulator: emulator, provider: provider)
        }

        func auth() -> OpenfortAuth { OpenfortAuth(provider: provider, store: InMemorySessionStore()) }

        func hook(_ method: HTTPRequest.Method, _ path: String, _ body: JSONValue? = nil) async throws -> (status: Int, json: JSONValue?) {
            let reply = try await wire.send(method, emulator.url(path), headerFields: body == nil ? [:] : [.contentType: "application/json"], body: try body.map { try JSONEncoder().encode($0) })
            return (reply.status, try? JSONValue.parse(reply.body))
        }

        func otp(_ email: String, type: String) async throws -> Secret<String> {
            let reply = try await hook(.get, "/openfort/__emulator/otp?email=\(email)&type=\(type)")
            return Secret(try #require(reply.json?["otp"]?.stringValue, "no \(type) OTP for \(email): \(reply.status)"))
        }
    }

    @Test func guestThenSignUpSignInMeValidateAndSignOut() async throws {
        let project = try await Project.start()
        defer { Task { await project.emulator.stop() } }
        let auth = project.auth()
        let guest = try await auth.signInAsGuest()
        #expect(guest.userID?.isEmpty == false)
        #expect(try await auth.currentUser().isAnonymous)
        // A guest signing up is upgraded in place: same user id.
        guard case .signedIn(let upgraded) = try await auth.signUp(email: "ada@example.com", password: Self.password, name: "Ada") else {
            Issue.record("verification was asked for"); return
        }
        #expect(upgraded.userID == guest.userID)
        try await auth.signOut()
        #expect(try await auth.currentSession() == nil)

        let signedIn = try await auth.signIn(email: "ada@example.com", password: Self.password)
        #expect(signedIn.userID == guest.userID)
        let me = try await auth.currentUser()
        #expect(me.email == "ada@example.com" && !me.isAnonymous)
        #expect(try await auth.validateSession().userID == guest.userID)

        let again = await #expect(throws: AuthError.self) { try await auth.signIn(email: "ada@example.com", password: Self.password) }
        #expect(again?.code == .conflict, "the already-logged-in guard")
        try await auth.signOut()
        let notLoggedIn = await #expect(throws: AuthError.self) { try await auth.currentUser() }
        #expect(notLoggedIn?.code == .noSession)
        // The signed-out token is dead at the server too: get-session answers null.
        let stale = OpenfortAuth(provider: project.provider, store: InMemorySessionStore())
        _ = try await stale.storeCredentials(token: signedIn.accessToken, userID: signedIn.userID)
        await #expect(throws: AuthError.self) { try await stale.validateSession() }
        #expect(try await stale.currentSession() == nil)

        let wrong = await #expect(throws: AuthError.self) { try await auth.signIn(email: "ada@example.com", password: Secret("not it at all")) }
        #expect(wrong?.code == .invalidCredentials && wrong?.providerCode == "INVALID_EMAIL_OR_PASSWORD")
        let taken = await #expect(throws: AuthError.self) { try await auth.signUp(email: "ada@example.com", password: Self.password) }
        #expect(taken?.code == .emailAlreadyInUse)
    }

    @Test func signUpNeedingVerificationThenVerifyByLinkToken() async throws {
        let project = try await Project.start()
        defer { Task { await project.emulator.stop() } }
        #expect(try await project.hook(.patch, "/openfort/__emulator/config", ["requireEmailVerification": true]).status == 200)
        let auth = project.auth()
        guard case .verificationRequired = try await auth.signUp(email: "vi@example.com", password: Self.password) else {
            Issue.record("expected verification to be required"); return
        }
        let unverified = await #expect(throws: AuthError.self) { try await auth.signIn(email: "vi@example.com", password: Self.password) }
        #expect(unverified?.code == .emailNotVerified)
        try await auth.requestEmailVerification(email: "vi@example.com")
        let tokens = try await project.hook(.get, "/openfort/__emulator/tokens?email=vi@example.com")
        let token = try #require(tokens.json?["verification_token"]?.stringValue)
        _ = try await auth.verifyEmail(token: Secret(token))
        try await auth.signIn(email: "vi@example.com", password: Self.password)
        #expect(try await auth.currentUser().emailVerified)
    }

    @Test func emailOTPSignInAndVerification() async throws {
        let project = try await Project.start()
        defer { Task { await project.emulator.stop() } }
        let auth = project.auth()
        try await auth.requestEmailOTP(email: "otto@example.com")
        let code = try await project.otp("otto@example.com", type: "sign-in")
        let wrongCode = String(code.revealed().dropLast()) + (code.revealed().last == "0" ? "1" : "0")
        let wrong = await #expect(throws: AuthError.self) { try await auth.signIn(email: "otto@example.com", otp: Secret(wrongCode)) }
        #expect(wrong?.providerCode == "INVALID_OTP")
        let session = try await auth.signIn(email: "otto@example.com", otp: code)
        #expect(session.userID?.isEmpty == false)
        #expect(try await auth.currentUser().email == "otto@example.com")

        // Verifying an email with a code: a password user who must verify first.
        #expect(try await project.hook(.patch, "/openfort/__emulator/config", ["requireEmailVerification": true]).status == 200)
        let other = project.auth()
        guard case .verificationRequired = try await other.signUp(email: "vera@example.com", password: Self.password) else {
            Issue.record("expected verification to be required"); return
        }
        try await project.provider.requestEmailOTP(email: "vera@example.com", type: .emailVerification)
        try await other.verifyEmailOTP(email: "vera@example.com", otp: try await project.otp("vera@example.com", type: "email-verification"))
        if try await other.currentSession() != nil { try await other.signOut() }
        try await other.signIn(email: "vera@example.com", password: Self.password)
        #expect(try await other.currentUser().emailVerified)
    }

    @Test func passwordResetByLinkTokenAndByOTP() async throws {
        let project = try await Project.start()
        defer { Task { await project.emulator.stop() } }
        #expect(try await project.hook(.post, "/openfort/__emulator/users", ["email": "rae@example.com", "password": "correct horse battery",
                                                                             "emailVerified": true]).status < 300)
        let auth = project.auth()
        try await auth.requestPasswordReset(email: "rae@example.com")
        let tokens = try await project.hook(.get, "/openfort/__emulator/tokens?email=rae@example.com")
        try await auth.resetPassword(token: Secret(try #require(tokens.json?["reset_token"]?.stringValue)), newPassword: Secret("a new password 1"))
        try await auth.signIn(email: "rae@example.com", password: Secret("a new password 1"))
        try await auth.signOut()

        try await auth.requestPasswordResetOTP(email: "rae@example.com")
        let code = try await project.otp("rae@example.com", type: "forget-password")
        try await auth.resetPassword(email: "rae@example.com", otp: code, newPassword: Secret("a new password 2"))
        try await auth.signIn(email: "rae@example.com", password: Secret("a new password 2"))
        let old = await #expect(throws: AuthError.self) {
            try await project.provider.signIn(.password(identifier: "rae@example.com", password: Secret("a new password 1")))
        }
        #expect(old?.code == .invalidCredentials)
    }

    @Test func oauthRedirectCallbackIDTokenSignInAndLinking() async throws {
        let project = try await Project.start()
        defer { Task { await project.emulator.stop() } }
        let auth = project.auth()
        let redirect = "myapp://auth/callback"
        // OAuth: the provider URL redirects (the emulator plays Google) to our redirect URL with the token.
        let url = try await auth.oauthURL(provider: "google", redirectURL: redirect)
        let authorize = try await project.wire.send(.get, URL(string: url.absoluteString + "&email=gia@example.com")!)
        #expect(authorize.status == 302)
        let callback = try #require(authorize.headerFields["Location"])
        #expect(callback.hasPrefix(redirect))
        let session = try await auth.completeOAuth(callbackURL: callback)
        #expect(try await auth.currentUser().email == "gia@example.com" && session.userID?.isEmpty == false)
        try await auth.signOut()

        // A denied consent comes back as ?error=.
        let deniedURL = try await auth.oauthURL(provider: "google", redirectURL: redirect)
        let denied = try await project.wire.send(.get, URL(string: deniedURL.absoluteString + "&authhub_emulator_deny=1")!)
        let deniedCallback = try #require(denied.headerFields["Location"])
        let refused = await #expect(throws: AuthError.self) { try await auth.completeOAuth(callbackURL: deniedCallback) }
        #expect(refused?.code == .accessDenied)
        await #expect(throws: AuthError.self) { try await auth.completeOAuth(callbackURL: "not a url at all %%") }

        // Sign in with an Apple ID token, then link a Google account with its ID token and unlink it.
        let apple = try await auth.signIn(idTokenProvider: "apple", token: Secret("emulator:ian@example.com"))
        #expect(apple.userID?.isEmpty == false)
        let bad = OpenfortAuth(provider: project.provider, store: InMemorySessionStore())
        await #expect(throws: AuthError.self) { try await bad.signIn(idTokenProvider: "apple", token: Secret("a-real-apple-token")) }
        #expect(try await auth.currentUser().linkedAccounts.map(\.provider).contains("apple"))
        let linked = try await auth.linkSocial(provider: "google", redirectURL: redirect, idToken: Secret("emulator:ian@example.com"))
        #expect(linked == nil, "an ID token links at once")
        #expect(try await auth.currentUser().linkedAccounts.map(\.provider).contains("google"))
        try await auth.unlink(provider: "google")
        #expect(try await auth.currentUser().linkedAccounts.map(\.provider).contains("google") == false)
        let last = await #expect(throws: AuthError.self) { try await auth.unlink(provider: "apple") }
        #expect(last?.providerCode == "FAILED_TO_UNLINK_LAST_ACCOUNT")
    }
}
