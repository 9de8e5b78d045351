import AuthHub
import AuthHubEmulator
import AuthHubTesting
import Foundation
import Testing

@Suite struct OpenfortRequestTests {
    @Test func malformedRequestsAndHookErrors() async throws {
        let wire = try await OpenfortWire.start()
        let notObject = try await wire.send(.post, OpenfortWire.auth + "sign-in/email", json: ["a", "b"])
        let missing = try await wire.post("sign-in/email", ["password": "whatever long"])
        let mistyped = try await wire.post("sign-in/email", ["email": 5, "password": "whatever long"])
        let config = try await wire.send(.get, "/openfort/__emulator/config", key: nil)
        try await wire.seed("dup@example.com")
        let duplicateSeed = try await wire.send(
            .post, "/openfort/__emulator/users", json: ["email": "dup@example.com", "password": "long enough 1"], key: nil
        )
        let noTokens = try await wire.tokens("dup@example.com")
        let badState = try await wire.send(.get, "/openfort/__emulator/oauth/authorize?provider=google&state=nope", key: nil)
        let noCallback = try await wire.get("reset-password/whatever", key: nil)
        _ = try await wire.post("email-otp/send-verification-otp", ["email": "dup@example.com", "type": "email-verification"])
        let otp = try await wire.otp("dup@example.com")
        let wrongCode = otp == "000000" ? "111111" : "000000"
        let wrongCheck = try await wire.post(
            "email-otp/check-verification-otp", ["email": "dup@example.com", "type": "email-verification", "otp": .string(wrongCode)]
        )
        let token = try #require(try await wire.signIn("dup@example.com").string("token"))
        let encoded = try await wire.session(token + ".c2lnbmF0dXJl")
        await wire.emulator.stop()

        #expect(notObject.status == 400 && notObject.code == "BODY_MUST_BE_AN_OBJECT")
        #expect(missing.status == 400 && missing.code == "VALIDATION_ERROR")
        #expect(mistyped.status == 400 && mistyped.code == "VALIDATION_ERROR")
        #expect(config.json == ["requireEmailVerification": false])
        #expect(duplicateSeed.status == 422)
        #expect(noTokens.status == 404 && noTokens.code == "NOT_FOUND")
        #expect(badState.status == 400 && badState.code == "INVALID_STATE")
        #expect(noCallback.status == 400 && noCallback.code == "CALLBACK_URL_REQUIRED")
        #expect(wrongCheck.status == 400 && wrongCheck.code == "INVALID_OTP")
        #expect(encoded["session"]?["token"] == .string(token), "a signed <token>.<signature> Bearer is accepted")
    }

    @Test func emulatorResetClearsOpenfortState() async throws {
        let wire = try await OpenfortWire.start()
        try await wire.seed("gone@example.com")
        let token = try #require(try await wire.signIn("gone@example.com").string("token"))
        await wire.emulator.reset()
        let session = try await wire.session(token)
        let signIn = try await wire.signIn("gone@example.com")
        await wire.emulator.stop()

        #expect(session.json == .null)
        #expect(signIn.status == 401)
    }
}
