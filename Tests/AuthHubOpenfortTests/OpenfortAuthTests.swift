import AuthHub
@_spi(Internals) @testable import AuthHubOpenfort
import AuthHubTesting
import Foundation
import Testing

/// The client-side policy: §5 guards, validation through get-session, sign-out, OAuth completion,
/// auth-state order.
@Suite struct OpenfortAuthTests {
    let transport = StubTransport()
    let clock = FakeClock()
    let store = InMemorySessionStore()

    func auth() -> OpenfortAuth {
        OpenfortAuth(provider: OF.provider(transport, clock), store: store, clock: clock)
    }

    func stubSignIn(token: String = "tok-1") {
        transport.on(.post, OF.path("sign-in/email")) { _ in .json(200, OF.authReply(token: token)) }
    }

    func stubGuest() {
        transport.on(.post, OF.path("sign-in/anonymous")) { _ in .json(200, OF.authReply(token: "guest-tok", id: "guest-1", anonymous: true)) }
    }

    func expectCode(_ code: AuthErrorCode, _ providerCode: String? = nil, _ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("expected \(code)")
        } catch let error as AuthError {
            #expect(error.code == code)
            if let providerCode { #expect(error.providerCode == providerCode) }
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func signInStoresTheSession() async throws {
        let auth = auth()
        stubSignIn()
        let session = try await auth.signIn(email: "jane@example.com", password: Secret("pw"))
        let stored = try await store.load(auth.key)
        #expect(stored?.accessToken == session.accessToken)
        #expect(try await auth.currentSession()?.userID == "user-1")
    }

    @Test func signedInGuardsRefuseWithoutHTTP() async throws {
        let auth = auth()
        stubSignIn()
        try await auth.signIn(email: "jane@example.com", password: Secret("pw"))
        let sent = transport.requests.count
        await expectCode(.conflict, "ALREADY_LOGGED_IN") { try await auth.signIn(email: "jane@example.com", password: Secret("pw")) }
        await expectCode(.conflict, "ALREADY_LOGGED_IN") { try await auth.signInAsGuest() }
        await expectCode(.conflict, "ALREADY_LOGGED_IN") { try await auth.signUp(email: "x@example.com", password: Secret("pw")) }
        await expectCode(.conflict, "ALREADY_LOGGED_IN") { try await auth.signIn(email: "x@example.com", otp: Secret("1")) }
        await expectCode(.conflict, "ALREADY_LOGGED_IN") { try await auth.signIn(idTokenProvider: "google", token: Secret("t")) }
        await expectCode(.conflict, "ALREADY_LOGGED_IN") { _ = try await auth.oauthURL(provider: "google", redirectURL: "myapp://o") }
        await expectCode(.conflict, "ALREADY_LOGGED_IN") { try await auth.completeOAuth(callbackURL: "myapp://o?access_token=t&user_id=u") }
        #expect(transport.requests.count == sent)
    }

    @Test func signedOutGuardsRefuseWithoutHTTP() async throws {
        let auth = auth()
        await expectCode(.noSession, "NOT_LOGGED_IN") { _ = try await auth.currentUser() }
        await expectCode(.noSession, "NOT_LOGGED_IN") { try await auth.validateSession() }
        await expectCode(.noSession, "NOT_LOGGED_IN") { _ = try await auth.linkSocial(provider: "google", redirectURL: "myapp://l") }
        await expectCode(.noSession, "NOT_LOGGED_IN") { try await auth.unlink(provider: "google") }
        await expectCode(.noSession, "NOT_LOGGED_IN") { try await auth.changeEmail("n@example.com") }
        try await auth.signOut()
        #expect(transport.requests.isEmpty)
    }

    @Test func aGuestIsUpgradedBySignUpWithItsToken() async throws {
        let auth = auth()
        stubGuest()
        transport.on(.post, OF.path("sign-up/email")) { _ in .json(200, OF.authReply(token: "member-tok", id: "guest-1")) }
        try await auth.signInAsGuest()
        guard case .signedIn(let session) = try await auth.signUp(email: "jane@example.com", password: Secret("pw")) else {
            Issue.record("expected a session"); return
        }
        #expect(session.accessToken.revealed() == "member-tok" && !OpenfortProvider.isAnonymous(session))
        #expect(transport.requests(to: OF.path("sign-up/email")).first?.header("Authorization") == "Bearer guest-tok")
        await expectCode(.conflict, "ALREADY_LOGGED_IN") { try await auth.signUp(email: "b@example.com", password: Secret("pw")) }
    }

    @Test func verificationRequiredSignUpStoresNothing() async throws {
        let auth = auth()
        transport.on(.post, OF.path("sign-up/email")) { _ in .json(200, ["token": nil, "user": OF.user()]) }
        guard case .verificationRequired = try await auth.signUp(email: "jane@example.com", password: Secret("pw"),
                                                                 callbackURL: "myapp://verified") else {
            Issue.record("expected verificationRequired"); return
        }
        #expect(try await auth.currentSession() == nil)
        #expect(transport.requests.first?.jsonBody?["callbackURL"] == "myapp://verified")
    }

    @Test func emailOTPTypeFollowsTheSignedInUser() async throws {
        let auth = auth()
        transport.on(.post, OF.path("email-otp/send-verification-otp")) { _ in .json(200, ["success": true]) }
        stubSignIn()
        try await auth.requestEmailOTP(email: "jane@example.com")
        try await auth.signIn(email: "jane@example.com", password: Secret("pw"))
        try await auth.requestEmailOTP(email: "jane@example.com")
        let types = transport.requests(to: OF.path("email-otp/send-verification-otp")).map { $0.jsonBody?["type"] }
        #expect(types == ["sign-in", "email-verification"])
    }

    @Test func validationUpdatesTheSession() async throws {
        let auth = auth()
        stubSignIn()
        transport.on(.get, OF.path("get-session")) { _ in .json(200, OF.sessionReply(token: "tok-2")) }
        try await auth.signIn(email: "jane@example.com", password: Secret("pw"))
        let validated = try await auth.validateSession()
        #expect(validated.accessToken.revealed() == "tok-2")
        let loaded = try await store.load(auth.key)
        #expect(loaded?.accessToken.revealed() == "tok-2")
        #expect(transport.requests.last?.header("Authorization") == "Bearer tok-1")
    }

    @Test(arguments: [200, 401])
    func nullOr401EndsTheSession(_ status: Int) async throws {
        let auth = auth()
        stubSignIn()
        transport.on(.get, OF.path("get-session")) { _ in status == 200 ? .raw(200, "null") : .json(401, ["code": "UNAUTHORIZED"]) }
        try await auth.signIn(email: "jane@example.com", password: Secret("pw"))
        await expectCode(.refreshTokenInvalid) { try await auth.validateSession() }
        #expect(try await auth.currentSession() == nil)
        let loaded = try await store.load(auth.key)
        #expect(loaded == nil)
    }

    @Test(arguments: [503, 500, 429])
    func transientFailuresKeepTheSession(_ status: Int) async throws {
        let auth = auth()
        stubSignIn()
        transport.on(.get, OF.path("get-session")) { _ in .json(status, ["message": "busy"]) }
        try await auth.signIn(email: "jane@example.com", password: Secret("pw"))
        await #expect(throws: AuthError.self) { try await auth.validateSession() }
        let loaded = try await store.load(auth.key)
        #expect(loaded?.accessToken.revealed() == "tok-1")
    }

    @Test func networkFailureKeepsTheSession() async throws {
        let auth = auth()
        stubSignIn()
        transport.on(.get, OF.path("get-session")) { _ in .failure(TransportError(.connection, "refused")) }
        try await auth.signIn(email: "jane@example.com", password: Secret("pw"))
        await expectCode(.network) { try await auth.validateSession() }
        #expect(try await auth.currentSession() != nil)
    }

    @Test func currentUserValidatesThenFetchesMe() async throws {
        let auth = auth()
        stubSignIn()
        transport.on(.get, OF.path("get-session")) { _ in .json(200, OF.sessionReply()) }
        transport.on(.get, "/iam/v2/me") { _ in .json(200, OF.meReply) }
        try await auth.signIn(email: "jane@example.com", password: Secret("pw"))
        let me = try await auth.currentUser()
        #expect(me.id == "user-1")
        #expect(transport.requests.map(\.url.path) == [OF.path("sign-in/email"), OF.path("get-session"), "/iam/v2/me"])
    }

    @Test func a401OnASessionCallEndsTheSession() async throws {
        let auth = auth()
        stubSignIn()
        transport.on(.post, OF.path("unlink-account")) { _ in .json(401, ["message": "Unauthorized"]) }
        try await auth.signIn(email: "jane@example.com", password: Secret("pw"))
        await expectCode(.sessionExpired) { try await auth.unlink(provider: "google") }
        #expect(try await auth.currentSession() == nil)
    }

    @Test func aFailingUnlinkOtherwiseKeepsTheSession() async throws {
        let auth = auth()
        stubSignIn()
        transport.on(.post, OF.path("unlink-account")) { _ in .json(400, ["code": "FAILED_TO_UNLINK_LAST_ACCOUNT"]) }
        try await auth.signIn(email: "jane@example.com", password: Secret("pw"))
        await expectCode(.invalidRequest, "FAILED_TO_UNLINK_LAST_ACCOUNT") { try await auth.unlink(provider: "credential") }
        #expect(try await auth.currentSession() != nil)
    }

    @Test func signOutCallsTheServerAndClearsEvenOnFailure() async throws {
        let auth = auth()
        stubSignIn()
        transport.on(.post, OF.path("sign-out")) { _ in .json(500, ["message": "boom"]) }
        try await auth.signIn(email: "jane@example.com", password: Secret("pw"))
        try await auth.signOut()
        #expect(try await auth.currentSession() == nil)
        let signOut = try #require(transport.requests(to: OF.path("sign-out")).first)
        #expect(signOut.header("Authorization") == "Bearer tok-1" && signOut.jsonBody == [:])
    }

    @Test func completeOAuthStoresAndValidates() async throws {
        let auth = auth()
        transport.on(.get, OF.path("get-session")) { _ in .json(200, OF.sessionReply(token: "oauth-tok")) }
        let session = try await auth.completeOAuth(callbackURL: "myapp://oauth?access_token=oauth-tok&user_id=user-1")
        #expect(session.accessToken.revealed() == "oauth-tok" && session.userID == "user-1")
        #expect(session.claims["email"] == "jane@example.com", "the user from get-session")
        #expect(transport.requests.only?.header("Authorization") == "Bearer oauth-tok")
    }

    @Test func completeOAuthWithARejectedTokenStoresNothing() async throws {
        let auth = auth()
        transport.on(.get, OF.path("get-session")) { _ in .raw(200, "null") }
        await expectCode(.refreshTokenInvalid) { try await auth.completeOAuth(callbackURL: "myapp://oauth?access_token=bad&user_id=u") }
        #expect(try await auth.currentSession() == nil)
    }

    @Test func completeOAuthErrorsSendNothing() async throws {
        let auth = auth()
        await expectCode(.accessDenied, "access_denied") { try await auth.completeOAuth(callbackURL: "myapp://oauth?error=access_denied") }
        await expectCode(.invalidRequest) { try await auth.completeOAuth(callbackURL: "myapp://oauth?user_id=u") }
        await expectCode(.invalidRequest) { try await auth.completeOAuth(callbackURL: "not a url") }
        let current = try await auth.currentSession()
        #expect(transport.requests.isEmpty && current == nil)
    }

    @Test func oauthURLUpgradesAGuest() async throws {
        let auth = auth()
        stubGuest()
        transport.on(.post, OF.path("sign-in/social")) { _ in .json(200, ["url": "https://accounts.google.com/o/oauth2/v2/auth", "redirect": false]) }
        #expect(try await auth.oauthURL(provider: "google", redirectURL: "myapp://oauth").host == "accounts.google.com")
        try await auth.signInAsGuest()
        _ = try await auth.oauthURL(provider: "google", redirectURL: "myapp://oauth")
        #expect(transport.requests(to: OF.path("sign-in/social")).map { $0.header("Authorization") } == [nil, "Bearer guest-tok"])
        #expect(transport.requests(to: OF.path("sign-in/social")).first?.jsonBody
            == ["provider": "google", "callbackURL": "myapp://oauth", "disableRedirect": true])
    }

    @Test func storeCredentialsIsLocal() async throws {
        let auth = auth()
        let session = try await auth.storeCredentials(token: Secret("t"), userID: "u")
        #expect(session.userID == "u" && transport.requests.isEmpty)
        let loaded = try await store.load(auth.key)
        #expect(loaded?.accessToken.revealed() == "t")
    }

    @Test func verifyEmailOTPStoresAReturnedSession() async throws {
        let auth = auth()
        transport.on(.post, OF.path("email-otp/verify-email")) { _ in .json(200, ["status": true, "token": "v-tok", "user": OF.user()]) }
        try await auth.verifyEmailOTP(email: "jane@example.com", otp: Secret("123456"))
        #expect(try await auth.currentSession()?.accessToken.revealed() == "v-tok")
    }

    @Test func authStateOrder() async throws {
        let auth = auth()
        stubSignIn()
        transport.on(.get, OF.path("get-session"), times: 1) { _ in .json(200, OF.sessionReply(token: "tok-2")) }
        transport.on(.get, OF.path("get-session")) { _ in .raw(200, "null") }
        transport.on(.post, OF.path("sign-out")) { _ in .json(200, ["success": true]) }
        let events = await auth.authStateChanges()
        try await auth.signIn(email: "jane@example.com", password: Secret("pw"))
        try await auth.validateSession()
        await #expect(throws: AuthError(.refreshTokenInvalid)) { try await auth.validateSession() }
        try await auth.signIn(email: "jane@example.com", password: Secret("pw"))
        try await auth.signOut()
        var names: [String] = []
        for await event in events {
            names.append(Self.name(event))
            if names.count == 6 { break }
        }
        #expect(names == ["initial(nil)", "signedIn(tok-1)", "tokenRefreshed(tok-2)", "sessionExpired", "signedIn(tok-1)", "signedOut"])
    }

    static func name(_ event: AuthEvent) -> String {
        switch event {
        case .initialSession(_, let session): "initial(\(session?.accessToken.revealed() ?? "nil"))"
        case .signedIn(let session): "signedIn(\(session.accessToken.revealed()))"
        case .tokenRefreshed(let session): "tokenRefreshed(\(session.accessToken.revealed()))"
        case .signedOut: "signedOut"
        case .sessionExpired: "sessionExpired"
        }
    }
}
