import AuthHub
@_spi(Internals) @testable import AuthHubOpenfort
import AuthHubTesting
import Foundation
import Testing

/// Generic requests mapped to the v2 endpoints; sessions built from replies; validation.
@Suite struct OpenfortProviderTests {
    let transport = StubTransport()
    let clock = FakeClock()
    var provider: OpenfortProvider { OF.provider(transport, clock) }

    @Test func capabilities() {
        #expect(provider.capabilities == [.passwordSignIn, .signUp, .guest, .emailCode, .idToken, .passwordReset, .emailVerification,
                                          .userInfo, .refresh, .revoke])
        #expect(OpenfortPlugin().capabilities == provider.capabilities)
    }

    @Test func passwordSignInMakesASession() async throws {
        transport.on(.post, OF.path("sign-in/email")) { _ in .json(200, OF.authReply(token: "tok-9", id: "u-9")) }
        let session = try await provider.signIn(.password(identifier: "jane@example.com", password: Secret("pw")))
        #expect(session.accessToken.revealed() == "tok-9" && session.tokenType == "Bearer")
        #expect(session.refreshToken?.revealed() == "tok-9", "the session token is the renewal credential")
        #expect(session.userID == "u-9" && session.expiresAt == nil && session.providerID == "openfort")
        #expect(session.claims["email"] == "jane@example.com")
        #expect(!OpenfortProvider.isAnonymous(session))
    }

    @Test func guestEmailCodeAndIDToken() async throws {
        transport.on(.post, OF.path("sign-in/anonymous")) { _ in .json(200, OF.authReply(token: "g", anonymous: true)) }
        transport.on(.post, OF.path("email-otp/send-verification-otp")) { _ in .json(200, ["success": true]) }
        transport.on(.post, OF.path("sign-in/email-otp")) { _ in .json(200, OF.authReply(token: "o")) }
        transport.on(.post, OF.path("sign-in/social")) { _ in .json(200, OF.authReply(token: "i")) }
        let guest = try await provider.signIn(.guest)
        #expect(OpenfortProvider.isAnonymous(guest) && guest.accessToken.revealed() == "g")
        let challenge = try await provider.startSignIn(.emailCode(email: "jane@example.com"))
        #expect(challenge.destination == "jane@example.com")
        #expect(transport.requests(to: OF.path("email-otp/send-verification-otp")).first?.jsonBody?["type"] == "sign-in")
        #expect(try await provider.signIn(.emailCode(email: "jane@example.com", code: Secret("123456"))).accessToken.revealed() == "o")
        let apple = try await provider.signIn(.idToken(provider: "apple", token: Secret("emulator:jane@example.com"), nonce: "n"))
        #expect(apple.accessToken.revealed() == "i")
        #expect(transport.requests(to: OF.path("sign-in/social")).first?.jsonBody
            == ["provider": "apple", "idToken": ["token": "emulator:jane@example.com", "nonce": "n"]])
    }

    @Test func signUpWithAndWithoutVerification() async throws {
        transport.on(.post, OF.path("sign-up/email"), times: 1) { _ in .json(200, ["token": nil, "user": OF.user()]) }
        transport.on(.post, OF.path("sign-up/email")) { _ in .json(200, OF.authReply(token: "new")) }
        guard case .verificationRequired(let email) = try await provider.signUp(SignUpRequest(email: "jane@example.com", password: Secret("pw"))) else {
            Issue.record("expected verificationRequired"); return
        }
        #expect(email == "jane@example.com")
        guard case .signedIn(let session) = try await provider.signUp(SignUpRequest(email: "b@example.com", password: Secret("pw"), displayName: "Bee")) else {
            Issue.record("expected a session"); return
        }
        #expect(session.accessToken.revealed() == "new")
        let bodies = transport.requests(to: OF.path("sign-up/email")).compactMap(\.jsonBody)
        #expect(bodies.map { $0["name"] } == ["jane@example.com", "Bee"], "name defaults to the email")
    }

    @Test func unsupportedRequests() async throws {
        await #expect(throws: AuthError(.unsupported)) { _ = try await provider.signIn(.passkey(identifier: nil)) }
        await #expect(throws: AuthError(.unsupported)) {
            _ = try await provider.signIn(.smsCode(phoneNumber: "+1", code: Secret("1")))
        }
        await #expect(throws: AuthError(.unsupported)) { _ = try await provider.startSignIn(.smsCode(phoneNumber: "+1")) }
        await #expect(throws: AuthError(.unsupported)) {
            _ = try await provider.signIn(.authorizationCode(code: Secret("c"), codeVerifier: nil, redirectURI: "x://y"))
        }
        await #expect(throws: AuthError(.unsupported)) {
            try await provider.deleteAccount(Session(providerID: "openfort", accessToken: Secret("t")))
        }
        #expect(transport.requests.isEmpty)
    }

    @Test func refreshIsGetSession() async throws {
        transport.on(.get, OF.path("get-session")) { _ in .json(200, OF.sessionReply(token: "rotated")) }
        let old = provider.session(token: Secret("tok-1"), userID: "user-1")
        let renewed = try await provider.refresh(old, scope: nil)
        #expect(renewed.accessToken.revealed() == "rotated" && renewed.refreshToken?.revealed() == "rotated")
        #expect(renewed.expiresAt == Date(timeIntervalSince1970: 1_767_830_400))
        #expect(transport.requests.first?.header("Authorization") == "Bearer tok-1")
    }

    @Test(arguments: [200, 401])
    func refreshEndsOnNullOr401(_ status: Int) async throws {
        transport.on(.get, OF.path("get-session")) { _ in status == 200 ? .raw(200, "null") : .json(401, ["message": "Unauthorized"]) }
        await #expect(throws: AuthError(.refreshTokenInvalid)) {
            _ = try await provider.refresh(provider.session(token: Secret("t"), userID: "u"), scope: nil)
        }
    }

    @Test func refreshKeeps5xxAsIs() async throws {
        transport.on(.get, OF.path("get-session")) { _ in .json(503, ["message": "down"]) }
        await #expect(throws: AuthError(.providerUnavailable)) {
            _ = try await provider.refresh(provider.session(token: Secret("t"), userID: "u"), scope: nil)
        }
    }

    @Test func userInfoAndPasswordReset() async throws {
        transport.on(.get, "/iam/v2/me") { _ in .json(200, OF.meReply) }
        transport.on(.post, OF.path("request-password-reset")) { _ in .json(200, ["status": true, "message": "sent"]) }
        let info = try await provider.userInfo(provider.session(token: Secret("t"), userID: "user-1"))
        #expect(info.id == "user-1" && info.email == "jane@example.com" && info.emailVerified == true)
        try await provider.sendPasswordReset(email: "jane@example.com")
        #expect(transport.requests(to: OF.path("request-password-reset")).first?.jsonBody == ["email": "jane@example.com"])
    }

    @Test func linkingAGuestGoesThroughSignInSocial() async throws {
        transport.on(.post, OF.path("sign-in/social")) { _ in .json(200, ["url": "https://accounts.google.com/a", "redirect": false]) }
        transport.on(.post, OF.path("link-social")) { _ in .json(200, ["url": "https://accounts.google.com/b", "redirect": false]) }
        var guest = provider.session(token: Secret("g"), userID: "u")
        guest.extras[OpenfortProvider.anonymousExtra] = true
        let member = provider.session(token: Secret("m"), userID: "u")
        #expect(try await provider.linkSocial(guest, provider: "google", redirectURL: "myapp://l")?.path == "/a")
        #expect(try await provider.linkSocial(member, provider: "google", redirectURL: "myapp://l")?.path == "/b")
        #expect(transport.requests.map { $0.header("Authorization") } == ["Bearer g", "Bearer m"])
    }
}
