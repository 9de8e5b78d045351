import AuthHub
import AuthHubEmulator
import AuthHubTesting
import Foundation
import Testing

@Suite struct OpenfortPasswordTests {
    @Test func signUpSignInSessionMeAndSignOut() async throws {
        let clock = FakeClock()
        let wire = try await OpenfortWire.start(clock)
        let signUp = try await wire.signUp("Jane@Example.com")
        let duplicate = try await wire.signUp("jane@example.com")
        let short = try await wire.post("sign-up/email", ["email": "x@example.com", "password": "short", "name": "x"])
        let badEmail = try await wire.post("sign-up/email", ["email": "nope", "password": "long enough 1", "name": "x"])
        let noName = try await wire.post("sign-up/email", ["email": "y@example.com", "password": "long enough 1"])
        let signIn = try await wire.signIn("jane@example.com")
        let wrong = try await wire.signIn("jane@example.com", password: "wrong password")
        let unknown = try await wire.signIn("nobody@example.com")
        let token = try #require(signIn.string("token"))
        let session = try await wire.session(token)
        let me = try await wire.me(token)
        let accounts = try await wire.get("list-accounts", bearer: token)
        let signOut = try await wire.post("sign-out", [:], bearer: token)
        let afterSignOut = try await wire.session(token)
        let meAfter = try await wire.me(token)
        let signOutAgain = try await wire.post("sign-out", [:], bearer: token)
        await wire.emulator.stop()

        #expect(signUp.status == 200)
        #expect(signUp.string("token")?.count == 32)
        let user = try #require(signUp["user"])
        #expect(user["email"] == "jane@example.com")
        #expect(user["name"] == "Jane@Example.com")
        #expect(user["emailVerified"] == false)
        #expect(user["isAnonymous"] == false)
        #expect(user["image"] == .null)
        #expect(user["createdAt"] == "2026-01-01T00:00:00.000Z")
        #expect(duplicate.status == 422)
        #expect(duplicate.json == ["code": "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL", "message": "User already exists. Use another email."])
        #expect(short.status == 400 && short.code == "PASSWORD_TOO_SHORT")
        #expect(badEmail.status == 400 && badEmail.code == "INVALID_EMAIL")
        #expect(noName.status == 400 && noName.code == "VALIDATION_ERROR")
        #expect(signIn.status == 200)
        #expect(signIn["redirect"] == false && signIn["url"] == .null)
        #expect(signIn["user"]?["id"] == user["id"])
        #expect(wrong.status == 401)
        #expect(wrong.json == ["code": "INVALID_EMAIL_OR_PASSWORD", "message": "Invalid email or password"])
        #expect(unknown.status == 401 && unknown.code == "INVALID_EMAIL_OR_PASSWORD")
        #expect(session.status == 200)
        #expect(session["session"]?["token"] == .string(token))
        #expect(session["session"]?["userId"] == user["id"])
        #expect(session["session"]?["expiresAt"] == "2026-01-08T00:00:00.000Z")
        #expect(session["user"]?["email"] == "jane@example.com")
        #expect(me["id"] == user["id"])
        #expect(me["createdAt"] == 1_767_225_600_000)
        #expect(me["email"] == "jane@example.com")
        #expect(me["phoneNumber"] == .null)
        #expect(me["linkedAccounts"]?.arrayValue?.map { $0["provider"] } == ["credential"])
        #expect(accounts.json?.arrayValue?.first?["provider"] == "credential")
        #expect(signOut.json == ["success": true])
        #expect(afterSignOut.status == 200 && afterSignOut.json == .null)
        #expect(meAfter.status == 401 && meAfter.code == "UNAUTHORIZED")
        #expect(signOutAgain.status == 400 && signOutAgain.code == "FAILED_TO_GET_SESSION")
    }

    @Test func projectKeyIsRequiredAndMustLookPublishable() async throws {
        let wire = try await OpenfortWire.start()
        let missing = try await wire.post("sign-in/anonymous", key: nil)
        let secret = try await wire.post("sign-in/anonymous", key: "sk_test_00000000-0000-0000-0000-000000000000")
        let notUUID = try await wire.post("sign-in/anonymous", key: "pk_test_dev")
        let live = try await wire.post("sign-in/anonymous", key: "pk_live_12345678-1234-1234-1234-123456789abc")
        let me = try await wire.send(.get, "/openfort/iam/v2/me", key: nil, bearer: live.string("token"))
        await wire.emulator.stop()

        for reply in [missing, secret, notUUID, me] {
            #expect(reply.status == 401)
            #expect(reply.code == "INVALID_PROJECT_KEY")
        }
        #expect(live.status == 200)
    }

    @Test func verificationRequiredSignUpAndUnverifiedSignIn() async throws {
        let wire = try await OpenfortWire.start()
        try await wire.requireVerification(true)
        let signUp = try await wire.signUp("v@example.com")
        let signIn = try await wire.signIn("v@example.com")
        let tokens = try await wire.tokens("v@example.com")
        let verificationToken = try #require(tokens.string("verification_token"))
        let verify = try await wire.get("verify-email?token=\(verificationToken)")
        let reuse = try await wire.get("verify-email?token=\(verificationToken)")
        let afterVerify = try await wire.signIn("v@example.com")
        await wire.emulator.stop()

        #expect(signUp.status == 200)
        #expect(signUp["token"] == .null)
        #expect(signUp["user"]?["email"] == "v@example.com")
        #expect(signIn.status == 403)
        #expect(signIn.json == ["code": "EMAIL_NOT_VERIFIED", "message": "Email not verified"])
        #expect(tokens["reset_token"] == nil)
        #expect(verify.status == 200)
        #expect(verify["status"] == true)
        #expect(verify["user"]?["emailVerified"] == true)
        #expect(reuse.status == 400 && reuse.code == "INVALID_TOKEN")
        #expect(afterVerify.status == 200 && afterVerify.string("token") != nil)
    }

    @Test func guestSignInThenUpgradeBySignUp() async throws {
        let wire = try await OpenfortWire.start()
        let guest = try await wire.post("sign-in/anonymous")
        let guestToken = try #require(guest.string("token"))
        let again = try await wire.post("sign-in/anonymous", bearer: guestToken)
        let guestMe = try await wire.me(guestToken)
        let upgrade = try await wire.send(
            .post, OpenfortWire.auth + "sign-up/email",
            json: ["email": "guest@example.com", "password": .string(OpenfortWire.password), "name": "Guest"], bearer: guestToken
        )
        let oldSession = try await wire.session(guestToken)
        let upgradedMe = try await wire.me(try #require(upgrade.string("token")))
        await wire.emulator.stop()

        #expect(guest.status == 200)
        #expect(guest["user"]?["isAnonymous"] == true)
        #expect(guest["user"]?["email"]?.stringValue?.hasPrefix("temp@") == true)
        #expect(again.status == 400 && again.code == "ANONYMOUS_USERS_CANNOT_SIGN_IN_AGAIN_ANONYMOUSLY")
        #expect(guestMe["isAnonymous"] == true && guestMe["email"] == .null)
        #expect(guestMe["linkedAccounts"] == [])
        #expect(upgrade["user"]?["id"] == guest["user"]?["id"], "the guest keeps its id")
        #expect(upgrade["user"]?["isAnonymous"] == false)
        #expect(oldSession.json == .null)
        #expect(upgradedMe["email"] == "guest@example.com")
        #expect(upgradedMe["linkedAccounts"]?.arrayValue?.map { $0["provider"] } == ["credential"])
    }

    @Test func getSessionExpiresAndIsExtendedWithTheClock() async throws {
        let clock = FakeClock()
        let wire = try await OpenfortWire.start(clock)
        try await wire.seed("s@example.com")
        let first = try #require(try await wire.signIn("s@example.com").string("token"))
        let second = try #require(try await wire.signIn("s@example.com").string("token"))
        clock.advance(by: 2 * 86_400)
        let extended = try await wire.session(first)
        clock.advance(by: 5 * 86_400 + 1)
        let stillValid = try await wire.session(first)
        let expired = try await wire.session(second)
        let noBearer = try await wire.get("get-session")
        await wire.emulator.stop()

        #expect(extended["session"]?["expiresAt"] == "2026-01-10T00:00:00.000Z")
        #expect(stillValid["session"]?["token"] == .string(first))
        #expect(expired.status == 200 && expired.json == .null)
        #expect(noBearer.status == 200 && noBearer.json == .null)
    }
}
