import AuthHub
@_spi(Internals) @testable import AuthHubFirebase
import AuthHubTesting
import Foundation
import Testing

/// The provider's session mapping, refresh, and the generic AuthProvider surface.
@Suite struct FirebaseProviderTests {
    let transport = StubTransport()
    let clock = FakeClock()

    init() { FB.serveKeys(transport) }

    var provider: FirebaseProvider { FB.provider(transport, clock) }

    @Test func signInMapsTheRepliesToAVerifiedSession() async throws {
        transport.on(.post, "/v1/accounts:signInWithPassword") { [clock] _ in try await .json(200, FB.tokenReply(now: clock.now)) }
        let session = try await provider.signIn(.password(identifier: "a@example.com", password: Secret("pw")))
        #expect(session.providerID == "firebase" && session.userID == "uid-1" && session.tokenType == "Bearer")
        #expect(session.accessToken == session.idToken && session.refreshToken?.revealed() == "rt-1")
        #expect(session.expiresAt == clock.now.addingTimeInterval(3600))
        #expect(session.claims["email"] == "a@example.com" && session.extras["firebase.sign_in_provider"] == "password")
        #expect(!session.description.contains(session.accessToken.revealed()))
    }

    @Test func aReplyWhoseTokenDoesNotVerifyIsRefused() async throws {
        transport.on(.post, "/v1/accounts:signInWithPassword") { [clock] _ in
            try await .json(200, FB.tokenReply(now: clock.now, unsigned: true))
        }
        let error = await #expect(throws: AuthError(.invalidToken)) {
            try await provider.signIn(.password(identifier: "a@example.com", password: Secret("pw")))
        }
        #expect(error?.details["reason"] == "alg")
        transport.on(.post, "/v1/accounts:signUp") { [clock] _ in try await .json(200, FB.tokenReply(uid: "uid-1", now: clock.now, extra: ["localId": "uid-2"])) }
        let mismatch = await #expect(throws: AuthError(.invalidToken)) {
            try await provider.signUp(SignUpRequest(email: "a@example.com", password: Secret("pw")))
        }
        #expect(mismatch?.details["reason"] == "sub")
    }

    @Test func signUpSignsInAtOnce() async throws {
        transport.on(.post, "/v1/accounts:signUp") { [clock] _ in try await .json(200, FB.tokenReply(now: clock.now)) }
        let result = try await provider.signUp(SignUpRequest(email: "a@example.com", password: Secret("pw-123456"), displayName: "Ada"))
        guard case .signedIn(let session) = result else { Issue.record("not signed in"); return }
        #expect(session.userID == "uid-1")
        #expect(transport.requests(to: "/v1/accounts:signUp").first?.jsonBody?["displayName"] == "Ada")
    }

    @Test func emulatorConfigurationSignsInWithUnsignedTokens() async throws {
        let emulator = StubTransport()
        emulator.on(.post, "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword") { [clock] _ in
            try await .json(200, FB.tokenReply(now: clock.now, unsigned: true))
        }
        let provider = FB.provider(emulator, clock, configuration: FB.emulator)
        let session = try await provider.signIn(.password(identifier: "a@example.com", password: Secret("pw")))
        #expect(session.userID == "uid-1")
        #expect(emulator.requests.count == 1, "no key fetch in emulator mode")
    }

    @Test func refreshReplacesTheRefreshTokenAndVerifies() async throws {
        transport.on(.post, "/v1/token") { [clock] _ in try await .json(200, FB.refreshReply(now: clock.now, refreshToken: "rt-2")) }
        var stored = Session(providerID: "firebase", accessToken: Secret("old"), refreshToken: Secret("rt-1"),
                             expiresAt: clock.now, userID: "uid-1", issuedAt: clock.now.addingTimeInterval(-100))
        stored.accountKey = "work"
        clock.advance(by: 10)
        // The provider returns what the server said; the session manager merges it into the stored session.
        let key = SessionKey(provider: "firebase", account: "work")
        let reply = try await provider.refresh(stored, scope: nil)
        #expect(reply.issuedAt == nil, "the provider does not carry the old session's issuedAt over")
        let renewed = SessionManager.merge(renewed: reply, into: stored, requestedScope: nil, key: key)
        #expect(renewed.refreshToken?.revealed() == "rt-2" && renewed.accessToken == renewed.idToken)
        #expect(renewed.expiresAt == clock.now.addingTimeInterval(3600) && renewed.accountKey == "work")
        #expect(renewed.issuedAt == stored.issuedAt)
        #expect(transport.requests(to: "/v1/token").first?.formBody == ["grant_type": "refresh_token", "refresh_token": "rt-1"])

        transport.on(.post, "/v1/token", first: true) { [clock] _ in try await .json(200, FB.refreshReply(now: clock.now, refreshToken: nil)) }
        let withoutToken = try await provider.refresh(stored, scope: nil)
        #expect(withoutToken.refreshToken == nil, "the provider does not carry the old refresh token over")
        #expect(SessionManager.merge(renewed: withoutToken, into: stored, requestedScope: nil, key: key).refreshToken?.revealed() == "rt-1",
                "a reply without one keeps the old")

        stored.refreshToken = nil
        await #expect(throws: AuthError(.refreshTokenInvalid)) { try await provider.refresh(stored, scope: nil) }
    }

    @Test func unsupportedMethodsAndCapabilities() async throws {
        await #expect(throws: AuthError(.unsupported)) { try await provider.signIn(.guest) }
        await #expect(throws: AuthError(.unsupported)) { try await provider.startSignIn(.emailCode(email: "a@example.com")) }
        #expect(provider.capabilities == FirebasePlugin().capabilities)
        #expect(provider.capabilities.isSuperset(of: [.passwordSignIn, .signUp, .passwordReset, .refresh, .userInfo, .accountDeletion]))
        #expect(!provider.capabilities.contains(.revoke))
        #expect(provider.capabilities.isSuperset(of: [.mfa, .factorEnrollment]), "TOTP second factors")
        let session = Session(providerID: "firebase", accessToken: Secret("id"))
        try await provider.signOut(session)
        #expect(transport.requests.isEmpty, "sign-out is local")
    }

    @Test func userInfoPasswordResetAndDeletion() async throws {
        transport.on(.post, "/v1/accounts:lookup") { _ in .json(200, ["users": [["localId": "uid-1", "email": "a@example.com", "emailVerified": true, "displayName": "Ada"]]]) }
        transport.on(.post, "/v1/accounts:sendOobCode") { _ in .json(200, ["email": "a@example.com"]) }
        transport.on(.post, "/v1/accounts:delete") { _ in .json(200, ["kind": "identitytoolkit#DeleteAccountResponse"]) }
        transport.on(.post, "/v1/accounts:resetPassword") { _ in .json(200, ["email": "a@example.com", "requestType": "PASSWORD_RESET"]) }
        let session = Session(providerID: "firebase", accessToken: Secret("id-1"), idToken: Secret("id-1"))
        let info = try await provider.userInfo(session)
        #expect(info.id == "uid-1" && info.name == "Ada" && info.emailVerified == true)
        try await provider.sendPasswordReset(email: "a@example.com")
        try await provider.sendEmailVerification(session)
        try await provider.deleteAccount(session)
        #expect(try await provider.verifyPasswordResetCode(Secret("oob")) == "a@example.com")
        #expect(try await provider.confirmPasswordReset(code: Secret("oob"), newPassword: Secret("pw-2")) == "a@example.com")
        #expect(transport.requests(to: "/v1/accounts:delete").first?.jsonBody == ["idToken": "id-1"])
        #expect(transport.requests(to: "/v1/accounts:sendOobCode").map { $0.jsonBody?["requestType"] } == ["PASSWORD_RESET", "VERIFY_EMAIL"])
    }

    @Test func credentialChangesReturnASessionWithTheNewTokens() async throws {
        transport.on(.post, "/v1/accounts:update") { [clock] _ in try await .json(200, FB.tokenReply(now: clock.now, refreshToken: "rt-new")) }
        let session = Session(providerID: "firebase", accessToken: Secret("id-1"), idToken: Secret("id-1"), refreshToken: Secret("rt-1"))
        let renewed = try await provider.updatePassword(session, newPassword: Secret("pw-2"))
        #expect(renewed.refreshToken?.revealed() == "rt-new" && renewed.accessToken != session.accessToken)
    }
}
