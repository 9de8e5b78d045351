import AuthHub
import AuthHubEmulator
import AuthHubTesting
import Foundation
import Testing

@Suite struct OpenfortLinkTests {
    @Test func passwordResetByLink() async throws {
        let clock = FakeClock()
        let wire = try await OpenfortWire.start(clock)
        try await wire.seed("link@example.com")
        let request = try await wire.post("request-password-reset", ["email": "link@example.com", "redirectTo": "myapp://reset"])
        let unknown = try await wire.post("request-password-reset", ["email": "ghost@example.com"])
        let ghost = try await wire.tokens("ghost@example.com")
        let token = try #require(try await wire.tokens("link@example.com").string("reset_token"))
        let landing = try await wire.get("reset-password/\(token)?callbackURL=myapp://reset", key: nil)
        let badLanding = try await wire.get("reset-password/nope?callbackURL=myapp://reset", key: nil)
        let bad = try await wire.post("reset-password", ["newPassword": "brand new password", "token": "nope"])
        let reset = try await wire.post("reset-password", ["newPassword": "brand new password", "token": .string(token)])
        let reuse = try await wire.post("reset-password", ["newPassword": "brand new password", "token": .string(token)])
        _ = try await wire.post("forget-password", ["email": "link@example.com"])
        let late = try #require(try await wire.tokens("link@example.com").string("reset_token"))
        clock.advance(by: 3_601)
        let expired = try await wire.post("reset-password", ["newPassword": "third password 3", "token": .string(late)])
        let new = try await wire.signIn("link@example.com", password: "brand new password")
        await wire.emulator.stop()

        #expect(request.json == ["status": true, "message": "If this email exists in our system, check your email for the reset link"])
        #expect(unknown.json == request.json, "no account enumeration")
        #expect(ghost.status == 404)
        #expect(landing.status == 302 && landing.location == "myapp://reset?token=\(token)")
        #expect(badLanding.status == 302 && badLanding.location == "myapp://reset?error=INVALID_TOKEN")
        #expect(bad.status == 400 && bad.json == ["code": "INVALID_TOKEN", "message": "Invalid token"])
        #expect(reset.json == ["status": true])
        #expect(reuse.status == 400 && reuse.code == "INVALID_TOKEN")
        #expect(expired.status == 400 && expired.code == "INVALID_TOKEN")
        #expect(new.status == 200)
    }

    @Test func emailVerificationByLinkWithCallback() async throws {
        let clock = FakeClock()
        let wire = try await OpenfortWire.start(clock)
        try await wire.seed("cb@example.com")
        try await wire.seed("done@example.com", verified: true)
        let send = try await wire.post("send-verification-email", ["email": "cb@example.com", "callbackURL": "myapp://verified"])
        let already = try await wire.post("send-verification-email", ["email": "done@example.com"])
        let token = try #require(try await wire.tokens("cb@example.com").string("verification_token"))
        let bad = try await wire.get("verify-email?token=nope&callbackURL=myapp://verified")
        let badJSON = try await wire.get("verify-email?token=nope")
        let verify = try await wire.get("verify-email?token=\(token)&callbackURL=myapp://verified")
        try await wire.requireVerification(true)
        let signIn = try await wire.signIn("cb@example.com")
        try await wire.seed("late@example.com")
        _ = try await wire.post("send-verification-email", ["email": "late@example.com"])
        let late = try #require(try await wire.tokens("late@example.com").string("verification_token"))
        clock.advance(by: 3_601)
        let expired = try await wire.get("verify-email?token=\(late)")
        await wire.emulator.stop()

        #expect(send.json == ["status": true])
        #expect(already.status == 400 && already.code == "EMAIL_ALREADY_VERIFIED")
        #expect(bad.status == 302 && bad.location == "myapp://verified?error=INVALID_TOKEN")
        #expect(badJSON.status == 400 && badJSON.code == "INVALID_TOKEN")
        #expect(verify.status == 302 && verify.location == "myapp://verified")
        #expect(signIn.status == 200 && signIn["user"]?["emailVerified"] == true)
        #expect(expired.status == 400 && expired.code == "TOKEN_EXPIRED")
    }
}
