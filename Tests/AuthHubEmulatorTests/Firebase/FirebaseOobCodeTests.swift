import AuthHub
import AuthHubEmulator
import AuthHubTesting
import Foundation
import Testing

@Suite struct FirebaseOobCodeTests {
    @Test func passwordResetListsTheCodeVerifiesItAndRevokesOldTokens() async throws {
        let clock = FakeClock()
        let emulator = try await Emulator.start(EmulatorConfiguration(clock: clock))
        let wire = FirebaseWire(emulator: emulator)
        let (_, oldIdToken, oldRefresh) = try await wire.signUp("reset@example.com")
        let send = try await wire.accounts("sendOobCode", ["requestType": "PASSWORD_RESET", "email": "Reset@Example.com"])
        let codes = try await wire.oobCodes()
        let code = try #require(codes.first?["oobCode"]?.stringValue)
        let verify = try await wire.accounts("resetPassword", ["oobCode": .string(code)])
        let stillListed = try await wire.oobCodes()
        clock.advance(by: 10)
        let confirm = try await wire.accounts("resetPassword", ["oobCode": .string(code), "newPassword": "new-secret-456"])
        let afterUse = try await wire.oobCodes()
        let reuse = try await wire.accounts("resetPassword", ["oobCode": .string(code), "newPassword": "new-secret-789"])
        let oldLookup = try await wire.lookup(oldIdToken)
        let oldRefreshReply = try await wire.refresh(oldRefresh)
        let oldPassword = try await wire.signIn("reset@example.com")
        let newPassword = try await wire.signIn("reset@example.com", password: "new-secret-456")
        let newLookup = try await wire.lookup(try #require(newPassword.string("idToken")))
        await emulator.stop()

        #expect(send.json == ["kind": "identitytoolkit#GetOobConfirmationCodeResponse", "email": "reset@example.com"])
        #expect(codes.count == 1)
        #expect(codes.first?["email"] == "reset@example.com")
        #expect(codes.first?["requestType"] == "PASSWORD_RESET")
        let base = emulator.baseURL.absoluteString
        #expect(codes.first?["oobLink"] == .string("\(base)/emulator/action?mode=resetPassword&lang=en&oobCode=\(code)&apiKey=fake-api-key"))
        let resetReply: JSONValue = [
            "kind": "identitytoolkit#ResetPasswordResponse", "email": "reset@example.com", "requestType": "PASSWORD_RESET",
        ]
        #expect(verify.json == resetReply)
        #expect(stillListed.count == 1, "checking a code does not use it")
        #expect(confirm.json == resetReply, "no tokens: the user signs in again")
        #expect(afterUse.isEmpty)
        #expect(reuse.json == FirebaseWire.envelope("INVALID_OOB_CODE"))
        #expect(oldLookup.json == FirebaseWire.envelope("TOKEN_EXPIRED"))
        #expect(oldRefreshReply.json == FirebaseWire.envelope("TOKEN_EXPIRED"))
        #expect(oldPassword.json == FirebaseWire.envelope("INVALID_PASSWORD"))
        #expect(newPassword.status == 200)
        #expect(newLookup.json?["users"]?.arrayValue?.first?["emailVerified"] == true, "a reset proves the address")
    }

    @Test func resetPasswordChecks() async throws {
        let clock = FakeClock()
        let emulator = try await Emulator.start(EmulatorConfiguration(clock: clock))
        let wire = FirebaseWire(emulator: emulator)
        let (_, idToken, _) = try await wire.signUp("checks@example.com")
        _ = try await wire.accounts("sendOobCode", ["requestType": "PASSWORD_RESET", "email": "checks@example.com"])
        _ = try await wire.accounts("sendOobCode", ["requestType": "VERIFY_EMAIL", "idToken": .string(idToken)])
        let codes = try await wire.oobCodes()
        let resetCode = try #require(codes.first { $0["requestType"] == "PASSWORD_RESET" }?["oobCode"])
        let verifyCode = try #require(codes.first { $0["requestType"] == "VERIFY_EMAIL" }?["oobCode"])
        let missing = try await wire.accounts("resetPassword", ["newPassword": "new-secret-456"])
        let unknown = try await wire.accounts("resetPassword", ["oobCode": "nope", "newPassword": "new-secret-456"])
        let otherType = try await wire.accounts("resetPassword", ["oobCode": verifyCode, "newPassword": "new-secret-456"])
        let weak = try await wire.accounts("resetPassword", ["oobCode": resetCode, "newPassword": "12345"])
        clock.advance(by: 3_601)
        let expired = try await wire.accounts("resetPassword", ["oobCode": resetCode, "newPassword": "new-secret-456"])
        await emulator.stop()

        #expect(missing.json == FirebaseWire.envelope("MISSING_OOB_CODE"))
        #expect(unknown.json == FirebaseWire.envelope("INVALID_OOB_CODE"))
        #expect(otherType.json == FirebaseWire.envelope("INVALID_OOB_CODE"))
        #expect(weak.json == FirebaseWire.envelope("WEAK_PASSWORD : Password should be at least 6 characters"))
        #expect(expired.json == FirebaseWire.envelope("EXPIRED_OOB_CODE"), "the weak attempt left the code usable until it expired")
    }

    @Test func sendOobCodeChecks() async throws {
        let emulator = try await Emulator.start()
        let wire = FirebaseWire(emulator: emulator)
        try await wire.seed("known@example.com")
        let cases: [(JSONValue, String)] = [
            (["email": "known@example.com"], "MISSING_REQ_TYPE"),
            (["requestType": "PASSWORD_RESET"], "MISSING_EMAIL"),
            (["requestType": "PASSWORD_RESET", "email": "bad"], "INVALID_EMAIL"),
            (["requestType": "PASSWORD_RESET", "email": "unknown@example.com"], "EMAIL_NOT_FOUND"),
            (["requestType": "VERIFY_EMAIL", "email": "known@example.com"], "MISSING_ID_TOKEN"),
            (["requestType": "VERIFY_EMAIL", "idToken": "not-a-jwt"], "INVALID_ID_TOKEN"),
            (["requestType": "SOMETHING_ELSE", "email": "known@example.com"], "INVALID_REQ_TYPE : Unsupported request type"),
        ]
        var replies: [FirebaseWire.Reply] = []
        for (body, _) in cases { replies.append(try await wire.accounts("sendOobCode", body)) }
        let codes = try await wire.oobCodes()
        await emulator.stop()

        for (index, (body, message)) in cases.enumerated() {
            #expect(replies[index].json == FirebaseWire.envelope(message), "\(body)")
        }
        #expect(codes.isEmpty)
    }

    @Test func verifyEmailCodeAppliedWithUpdateMarksTheEmailVerified() async throws {
        let emulator = try await Emulator.start()
        let wire = FirebaseWire(emulator: emulator)
        let (localId, idToken, refreshToken) = try await wire.signUp("verify@example.com")
        let send = try await wire.accounts("sendOobCode", [
            "requestType": "VERIFY_EMAIL", "idToken": .string(idToken), "email": "ignored@example.com",
        ])
        let codes = try await wire.oobCodes()
        let code = try #require(codes.first?["oobCode"]?.stringValue)
        let apply = try await wire.accounts("update", ["oobCode": .string(code)])
        let again = try await wire.accounts("update", ["oobCode": .string(code)])
        let lookup = try await wire.lookup(idToken)
        let refreshed = try await wire.refresh(refreshToken)
        await emulator.stop()

        #expect(send.json?["email"] == "verify@example.com", "the address comes from the ID token's account")
        #expect(codes.first?["requestType"] == "VERIFY_EMAIL")
        #expect(codes.first?["email"] == "verify@example.com")
        #expect(codes.first?["oobLink"]?.stringValue?.contains("mode=verifyEmail&lang=en&oobCode=") == true)
        #expect(apply.status == 200)
        #expect(apply["localId"] == .string(localId))
        #expect(apply["email"] == "verify@example.com")
        #expect(apply["emailVerified"] == true)
        #expect(apply["providerUserInfo"]?.arrayValue?.first?["providerId"] == "password")
        #expect(apply["idToken"] == nil)
        #expect(again.json == FirebaseWire.envelope("INVALID_OOB_CODE"))
        #expect(lookup.json?["users"]?.arrayValue?.first?["emailVerified"] == true)
        #expect(lookup.status == 200, "verifying the email does not revoke tokens")
        let claims = try DecodedJWT(try #require(refreshed.string("id_token"))).payload
        #expect(claims["email_verified"] == true)
    }

    @Test func followingTheActionLinkAppliesTheCode() async throws {
        let emulator = try await Emulator.start()
        let wire = FirebaseWire(emulator: emulator)
        let (_, idToken, _) = try await wire.signUp("link@example.com")
        _ = try await wire.accounts("sendOobCode", ["requestType": "VERIFY_EMAIL", "idToken": .string(idToken)])
        let link = try #require(try await wire.oobCodes().first?["oobLink"]?.stringValue)
        let path = String(link.dropFirst(emulator.baseURL.absoluteString.count))
        let follow = try await wire.send(.get, path)
        let lookup = try await wire.lookup(idToken)
        let unknown = try await wire.send(.get, "/emulator/action?mode=verifyEmail&oobCode=nope")
        await emulator.stop()

        #expect(follow.status == 200)
        #expect(follow["emailVerified"] == true)
        #expect(lookup.json?["users"]?.arrayValue?.first?["emailVerified"] == true)
        #expect(unknown.json == FirebaseWire.envelope("INVALID_OOB_CODE"))
    }

    @Test func verifyAndChangeEmailIsTheWayToChangeAnEmailWithPrivacyOn() async throws {
        let clock = FakeClock()
        let emulator = try await Emulator.start(EmulatorConfiguration(clock: clock))
        let wire = FirebaseWire(emulator: emulator)
        try await wire.seed("taken@example.com")
        let (localId, idToken, _) = try await wire.signUp("before@example.com")
        try await wire.setPrivacy(true)
        let direct = try await wire.accounts("update", ["idToken": .string(idToken), "email": "after@example.com"])
        let missing = try await wire.accounts("sendOobCode", ["requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": .string(idToken)])
        let taken = try await wire.accounts("sendOobCode", [
            "requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": .string(idToken), "newEmail": "taken@example.com",
        ])
        let send = try await wire.accounts("sendOobCode", [
            "requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": .string(idToken), "newEmail": "After@Example.com",
        ])
        let codes = try await wire.oobCodes()
        let code = try #require(codes.first?["oobCode"]?.stringValue)
        clock.advance(by: 5)
        let apply = try await wire.accounts("update", ["oobCode": .string(code)])
        let old = try await wire.lookup(idToken)
        let signIn = try await wire.signIn("after@example.com")
        let adminLink = try await wire.admin("sendOobCode", [
            "requestType": "PASSWORD_RESET", "email": "after@example.com", "returnOobLink": true,
        ])
        await emulator.stop()

        #expect(direct.json == FirebaseWire.envelope("OPERATION_NOT_ALLOWED"))
        #expect(missing.json == FirebaseWire.envelope("MISSING_NEW_EMAIL"))
        #expect(taken.json == FirebaseWire.envelope("EMAIL_EXISTS"))
        #expect(send["email"] == "after@example.com")
        #expect(codes.count == 1)
        #expect(codes.first?["requestType"] == "VERIFY_AND_CHANGE_EMAIL")
        #expect(codes.first?["email"] == "after@example.com")
        #expect(codes.first?["oobLink"]?.stringValue?.contains("mode=verifyAndChangeEmail&") == true)
        #expect(apply["localId"] == .string(localId))
        #expect(apply["email"] == "after@example.com")
        #expect(apply["emailVerified"] == true)
        #expect(old.json == FirebaseWire.envelope("TOKEN_EXPIRED"), "moving the account to another address revokes its tokens")
        #expect(signIn["localId"] == .string(localId))
        let link = try #require(adminLink.string("oobLink"))
        let adminCode = try #require(adminLink.string("oobCode"))
        #expect(link.hasSuffix("mode=resetPassword&lang=en&oobCode=\(adminCode)&apiKey=fake-api-key"))
    }
}
