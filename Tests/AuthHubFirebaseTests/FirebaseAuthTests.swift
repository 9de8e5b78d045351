import AuthHub
@_spi(Internals) @testable import AuthHubFirebase
import AuthHubTesting
import Foundation
import Testing

/// The Firebase `Auth` object on the core session layer: refresh window, single flight, when the
/// session ends and when it does not, and the auth-state stream.
@Suite struct FirebaseAuthTests {
    let transport = StubTransport()
    let clock = FakeClock()
    let store = InMemorySessionStore()

    init() { FB.serveKeys(transport) }

    func auth() -> FirebaseAuth {
        FirebaseAuth(provider: FB.provider(transport, clock), store: store, clock: clock)
    }

    func stubSignIn() {
        transport.on(.post, "/v1/accounts:signInWithPassword") { [clock] _ in try await .json(200, FB.tokenReply(now: clock.now)) }
    }

    func stubRefresh(_ refreshToken: String? = "rt-2") {
        transport.on(.post, "/v1/token") { [clock] _ in try await .json(200, FB.refreshReply(now: clock.now, refreshToken: refreshToken)) }
    }

    var refreshes: Int { transport.requests(to: "/v1/token").count }

    @Test func theFiveMinuteWindow() async throws {
        let auth = auth()
        stubSignIn()
        stubRefresh()
        let first = try await auth.signIn(email: "a@example.com", password: Secret("pw"))
        clock.advance(by: 3600 - 301)
        #expect(try await auth.idToken() == first.accessToken, "more than 5 minutes left: the cached token")
        #expect(refreshes == 0)
        clock.advance(by: 2)
        let renewed = try await auth.idToken()
        #expect(renewed != first.accessToken && refreshes == 1, "less than 5 minutes left: renewed")
        #expect(try await auth.currentSession()?.refreshToken?.revealed() == "rt-2", "the new refresh token is stored")
        _ = try await auth.idToken(forceRefresh: true)
        #expect(refreshes == 2)
        #expect(transport.requests(to: "/v1/token").last?.formBody["refresh_token"] == "rt-2")
    }

    @Test func hundredConcurrentCallersCauseOneRefresh() async throws {
        let auth = auth()
        stubSignIn()
        try await auth.signIn(email: "a@example.com", password: Secret("pw"))
        stubRefresh()
        clock.advance(by: 3600 - 100)
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<100 { group.addTask { try await auth.idToken().revealed() } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(tokens.count == 1 && refreshes == 1)
    }

    @Test(arguments: ["USER_NOT_FOUND", "USER_DISABLED", "TOKEN_EXPIRED", "INVALID_ID_TOKEN", "INVALID_REFRESH_TOKEN"])
    func aDeadUserEndsTheSessionOnRefresh(_ code: String) async throws {
        let auth = auth()
        stubSignIn()
        try await auth.signIn(email: "a@example.com", password: Secret("pw"))
        transport.on(.post, "/v1/token") { _ in .json(400, ["error": ["code": 400, "message": .string(code), "status": "INVALID_ARGUMENT"]]) }
        clock.advance(by: 3600)
        let error = await #expect(throws: AuthError(.refreshTokenInvalid)) { try await auth.idToken() }
        #expect(error?.providerCode == code)
        #expect(try await auth.currentSession() == nil, "\(code) clears the session")
    }

    @Test func transientFailuresKeepTheSession() async throws {
        let auth = auth()
        stubSignIn()
        try await auth.signIn(email: "a@example.com", password: Secret("pw"))
        clock.advance(by: 3600)
        transport.on(.post, "/v1/token", times: 1) { _ in .failure(TransportError(.connection, "refused")) }
        await #expect(throws: AuthError(.network)) { try await auth.idToken() }
        #expect(try await auth.currentSession() != nil)
        transport.on(.post, "/v1/token", times: 3, first: true) { _ in .raw(503, "<html>unavailable</html>") }
        await #expect(throws: AuthError(.providerUnavailable)) { try await auth.idToken() }
        transport.on(.post, "/v1/token", times: 3, first: true) { _ in .json(429, FB.error("TOO_MANY_ATTEMPTS_TRY_LATER", code: 429), headerFields: [.retryAfter: "1"]) }
        await #expect(throws: AuthError(.rateLimited)) { try await auth.idToken() }
        #expect(try await auth.currentSession() != nil, "network, 503 and 429 keep the session")
        stubRefresh()
        _ = try await auth.idToken()
        #expect(try await auth.currentSession()?.refreshToken?.revealed() == "rt-2")
    }

    @Test func deadUserOnOtherTokenOperationsSignsOutButRecentLoginDoesNot() async throws {
        let auth = auth()
        stubSignIn()
        try await auth.signIn(email: "a@example.com", password: Secret("pw"))
        transport.on(.post, "/v1/accounts:delete", times: 1) { _ in .json(400, FB.error("CREDENTIAL_TOO_OLD_LOGIN_AGAIN")) }
        await #expect(throws: AuthError(.requiresRecentLogin)) { try await auth.deleteAccount() }
        #expect(try await auth.currentSession() != nil)
        transport.on(.post, "/v1/accounts:lookup") { _ in .json(400, FB.error("USER_NOT_FOUND")) }
        await #expect(throws: AuthError(.userNotFound)) { try await auth.currentUser() }
        #expect(try await auth.currentSession() == nil)
        #expect(try await auth.currentUser() == nil, "signed out: no user")
    }

    @Test func authStateStreamOrder() async throws {
        let auth = auth()
        stubSignIn()
        stubRefresh()
        let stream = await auth.authStateChanges()
        var iterator = stream.makeAsyncIterator()
        let initial = await iterator.next()
        #expect(initial?.change == .initial && initial?.isSignedIn == false)

        try await auth.signIn(email: "a@example.com", password: Secret("pw"))
        _ = try await auth.idToken(forceRefresh: true)
        try await auth.signOut()
        let changes = [await iterator.next(), await iterator.next(), await iterator.next()]
        #expect(changes.map { $0?.change } == [.signedIn, .tokenRefreshed, .signedOut])
        #expect(changes.map { $0?.uid } == ["uid-1", "uid-1", nil])

        // A new listener starts with the current state.
        try await auth.signIn(email: "a@example.com", password: Secret("pw"))
        var late = await auth.authStateChanges().makeAsyncIterator()
        let now = await late.next()
        #expect(now?.change == .initial && now?.uid == "uid-1")
        #expect(now.map { "\($0)" } == "initial(uid-1)")
    }

    @Test func deleteAccountClearsTheSession() async throws {
        let auth = auth()
        stubSignIn()
        transport.on(.post, "/v1/accounts:delete") { _ in .json(200, ["kind": "identitytoolkit#DeleteAccountResponse"]) }
        try await auth.signIn(email: "a@example.com", password: Secret("pw"))
        try await auth.deleteAccount()
        #expect(try await auth.currentSession() == nil)
        await #expect(throws: AuthError(.noSession)) { try await auth.idToken() }
    }

    @Test func updatePasswordStoresTheNewTokens() async throws {
        let auth = auth()
        stubSignIn()
        transport.on(.post, "/v1/accounts:update") { [clock] _ in try await .json(200, FB.tokenReply(now: clock.now, refreshToken: "rt-pw")) }
        try await auth.signIn(email: "a@example.com", password: Secret("pw"))
        try await auth.updatePassword(Secret("pw-2"))
        #expect(try await auth.currentSession()?.refreshToken?.revealed() == "rt-pw")
    }

    @Test func mfaSignInStoresNothing() async throws {
        let auth = auth()
        transport.on(.post, "/v1/accounts:signInWithPassword") { _ in
            .json(200, ["localId": "uid-1", "mfaPendingCredential": "pending", "mfaInfo": [["mfaEnrollmentId": "e1", "phoneInfo": "+***1"]]])
        }
        await #expect(throws: AuthError(.mfaRequired)) { try await auth.signIn(email: "a@example.com", password: Secret("pw")) }
        #expect(try await auth.currentSession() == nil)
    }

    /// Reauthenticating a deleted or disabled user signs out (as the JS SDK), still throwing the
    /// mapped error; a wrong password, or an answer that cannot tell (enumeration protection's
    /// INVALID_LOGIN_CREDENTIALS), or a transient failure keeps the session.
    @Test(arguments: [("EMAIL_NOT_FOUND", AuthErrorCode.userNotFound, true), ("USER_NOT_FOUND", .userNotFound, true),
                      ("USER_DISABLED", .accessDenied, true), ("INVALID_PASSWORD", .invalidCredentials, false),
                      ("INVALID_LOGIN_CREDENTIALS", .invalidCredentials, false), ("TOO_MANY_ATTEMPTS_TRY_LATER", .rateLimited, false)])
    func reauthenticatingAGoneUserSignsOut(serverCode: String, expected: AuthErrorCode, signsOut: Bool) async throws {
        let auth = auth()
        stubSignIn()
        try await auth.signIn(email: "a@example.com", password: Secret("pw"))
        let events = await auth.sessions.events()
        transport.on(.post, "/v1/accounts:signInWithPassword", first: true) { _ in .json(400, FB.error(serverCode)) }
        let error = await #expect(throws: AuthError.self) { try await auth.reauthenticate(password: Secret("pw")) }
        #expect(error?.code == expected && error?.providerCode == serverCode)
        #expect((try await auth.currentSession() == nil) == signsOut, "\(serverCode)")
        #expect((try await store.load(auth.key) == nil) == signsOut)
        if signsOut {
            var iterator = events.makeAsyncIterator()
            _ = await iterator.next()  // initialSession
            guard case .signedOut? = await iterator.next() else { Issue.record("no signedOut event"); return }
        }
    }

    @Test func reauthenticateSignsTheSameUserInAgainAndRefusesAnother() async throws {
        let auth = auth()
        transport.on(.post, "/v1/accounts:signInWithPassword") { [clock] request in
            let uid = request.jsonBody?["password"] == "pw" ? "uid-1" : "uid-2"
            clock.advance(by: 1)
            return try await .json(200, FB.tokenReply(uid: uid, now: clock.now))
        }
        await #expect(throws: AuthError(.noSession)) { try await auth.reauthenticate(password: Secret("pw")) }
        let first = try await auth.signIn(email: "a@example.com", password: Secret("pw"))
        let mismatch = await #expect(throws: AuthError(.invalidCredentials)) { try await auth.reauthenticate(password: Secret("other")) }
        #expect(mismatch?.providerCode == "USER_MISMATCH" && mismatch?.details["iosCode"] == "17024")
        #expect(try await auth.currentSession()?.accessToken == first.accessToken, "nothing stored for another user")
        let again = try await auth.reauthenticate(password: Secret("pw"))
        #expect(again.userID == "uid-1" && again.accessToken != first.accessToken)
        #expect(try await auth.currentSession()?.accessToken == again.accessToken)
        let last = try #require(transport.requests(to: "/v1/accounts:signInWithPassword").last)
        #expect(last.jsonBody == ["email": "a@example.com", "password": "pw", "returnSecureToken": true], "the signed-in user's email")
    }
}
