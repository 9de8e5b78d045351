import AuthHub
import AuthHubEmulator
import AuthHubTesting
import Foundation
import Testing

@Suite struct OpenfortOTPTests {
    @Test func signInWithEmailOTPCreatesTheUser() async throws {
        let wire = try await OpenfortWire.start()
        let send = try await wire.post("email-otp/send-verification-otp", ["email": "otp@example.com", "type": "sign-in"])
        let hook = try await wire.send(.get, "/openfort/__emulator/otp?email=otp@example.com", key: nil)
        let otp = try #require(hook.string("otp"))
        let wrongCode = otp == "000000" ? "111111" : "000000"
        let wrong = try await wire.post("sign-in/email-otp", ["email": "otp@example.com", "otp": .string(wrongCode)])
        let signIn = try await wire.post("sign-in/email-otp", ["email": "otp@example.com", "otp": .string(otp)])
        let reuse = try await wire.post("sign-in/email-otp", ["email": "otp@example.com", "otp": .string(otp)])
        let none = try await wire.send(.get, "/openfort/__emulator/otp?email=otp@example.com", key: nil)
        let badType = try await wire.post("email-otp/send-verification-otp", ["email": "otp@example.com", "type": "magic"])
        await wire.emulator.stop()

        #expect(send.json == ["success": true])
        #expect(hook["email"] == "otp@example.com" && hook["type"] == "sign-in")
        #expect(otp.count == 6 && otp.allSatisfy(\.isNumber))
        #expect(wrong.status == 400 && wrong.json == ["code": "INVALID_OTP", "message": "Invalid OTP"])
        #expect(signIn.status == 200)
        #expect(signIn.string("token") != nil)
        #expect(signIn["user"]?["emailVerified"] == true)
        #expect(reuse.status == 400 && reuse.code == "INVALID_OTP")
        #expect(none.status == 404 && none.code == "NOT_FOUND")
        #expect(badType.status == 400 && badType.code == "VALIDATION_ERROR")
    }

    @Test func expiredAndTooManyAttempts() async throws {
        let clock = FakeClock()
        let wire = try await OpenfortWire.start(clock)
        _ = try await wire.post("email-otp/send-verification-otp", ["email": "e@example.com", "type": "sign-in"])
        let otp = try await wire.otp("e@example.com")
        clock.advance(by: 301)
        let expired = try await wire.post("sign-in/email-otp", ["email": "e@example.com", "otp": .string(otp)])
        _ = try await wire.post("email-otp/send-verification-otp", ["email": "e@example.com", "type": "sign-in"])
        let fresh = try await wire.otp("e@example.com")
        let wrongCode = fresh == "000000" ? "111111" : "000000"
        var wrongs: [String?] = []
        for _ in 0..<3 {
            wrongs.append(try await wire.post("sign-in/email-otp", ["email": "e@example.com", "otp": .string(wrongCode)]).code)
        }
        let locked = try await wire.post("sign-in/email-otp", ["email": "e@example.com", "otp": .string(fresh)])
        await wire.emulator.stop()

        #expect(expired.status == 400 && expired.code == "OTP_EXPIRED")
        #expect(wrongs == ["INVALID_OTP", "INVALID_OTP", "INVALID_OTP"])
        #expect(locked.status == 403 && locked.code == "TOO_MANY_ATTEMPTS")
    }

    @Test func verifyEmailWithOTP() async throws {
        let wire = try await OpenfortWire.start()
        let signUp = try await wire.signUp("ver@example.com")
        let token = try #require(signUp.string("token"))
        _ = try await wire.post("email-otp/send-verification-otp", ["email": "ver@example.com", "type": "email-verification"])
        let hook = try await wire.send(.get, "/openfort/__emulator/otp?email=ver@example.com", key: nil)
        let otp = try #require(hook.string("otp"))
        let check = try await wire.post("email-otp/check-verification-otp", ["email": "ver@example.com", "type": "email-verification", "otp": .string(otp)])
        let verify = try await wire.send(
            .post, OpenfortWire.auth + "email-otp/verify-email", json: ["email": "ver@example.com", "otp": .string(otp)], bearer: token
        )
        let unknown = try await wire.post("email-otp/verify-email", ["email": "ghost@example.com", "otp": "123456"])
        _ = try await wire.post("email-otp/send-verification-otp", ["email": "ghost@example.com", "type": "email-verification"])
        let ghostOTP = try await wire.send(.get, "/openfort/__emulator/otp?email=ghost@example.com", key: nil)
        let me = try await wire.me(token)
        await wire.emulator.stop()

        #expect(hook["type"] == "email-verification")
        #expect(check.json == ["success": true])
        #expect(verify.status == 200)
        #expect(verify["status"] == true)
        #expect(verify["user"]?["emailVerified"] == true)
        #expect(verify.string("token") != nil)
        #expect(unknown.status == 400 && unknown.code == "USER_NOT_FOUND")
        #expect(ghostOTP.status == 404, "no verification OTP for an unknown address")
        #expect(me["emailVerified"] == true)
    }

    @Test func passwordResetWithOTP() async throws {
        let wire = try await OpenfortWire.start()
        try await wire.seed("r@example.com")
        let request = try await wire.post("forget-password/email-otp", ["email": "r@example.com"])
        let hook = try await wire.send(.get, "/openfort/__emulator/otp?email=r@example.com&type=forget-password", key: nil)
        let otp = try #require(hook.string("otp"))
        let short = try await wire.post("email-otp/reset-password", ["email": "r@example.com", "otp": .string(otp), "password": "short"])
        let reset = try await wire.post("email-otp/reset-password", ["email": "r@example.com", "otp": .string(otp), "password": "brand new password"])
        let reuse = try await wire.post("email-otp/reset-password", ["email": "r@example.com", "otp": .string(otp), "password": "another password"])
        let old = try await wire.signIn("r@example.com")
        let new = try await wire.signIn("r@example.com", password: "brand new password")
        await wire.emulator.stop()

        #expect(request.json == ["success": true])
        #expect(hook["type"] == "forget-password")
        #expect(short.status == 400 && short.code == "PASSWORD_TOO_SHORT")
        #expect(reset.json == ["status": true])
        #expect(reuse.status == 400 && reuse.code == "INVALID_OTP")
        #expect(old.status == 401)
        #expect(new.status == 200)
    }
}
