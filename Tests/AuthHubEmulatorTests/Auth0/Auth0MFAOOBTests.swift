import AuthHub
import AuthHubEmulator
import AuthHubTesting
import Foundation
import Testing

/// Out-of-band MFA of spec/auth0.md §3.7 over real HTTP: SMS/email enrollment, challenge and the
/// `mfa-oob` grant, with binding codes read through the emulator-only hook.
@Suite struct Auth0MFAOOBTests {
    static let oobGrant = "http://auth0.com/oauth/grant-type/mfa-oob"

    func verify(_ wire: Auth0Wire, token: String, oobCode: String, bindingCode: String?) async throws -> Auth0Wire.Reply {
        var body: [String: JSONValue] = [
            "client_id": .string(Auth0Wire.clientId), "grant_type": .string(Self.oobGrant), "mfa_token": .string(token),
            "oob_code": .string(oobCode),
        ]
        if let bindingCode { body["binding_code"] = .string(bindingCode) }
        return try await wire.post("/auth0/oauth/token", json: .object(body))
    }

    func bindingCode(_ wire: Auth0Wire, oobCode: String) async throws -> Auth0Wire.Reply {
        try await wire.get("/auth0/__emulator/mfa-binding-code?" + queryString([("oob_code", oobCode)]))
    }

    func mfaToken(_ wire: Auth0Wire, _ email: String) async throws -> String {
        let reply = try await wire.login(email)
        #expect(reply.status == 403)
        return try #require(reply.json?["mfa_token"]?.stringValue)
    }

    func challengeOOB(_ wire: Auth0Wire, token: String, authenticatorId: String?) async throws -> Auth0Wire.Reply {
        var body: [String: JSONValue] = [
            "client_id": .string(Auth0Wire.clientId), "mfa_token": .string(token), "challenge_type": "oob",
        ]
        if let authenticatorId { body["authenticator_id"] = .string(authenticatorId) }
        return try await wire.post("/auth0/mfa/challenge", json: .object(body))
    }

    /// A code that differs from `code` in every digit.
    func wrong(_ code: String) -> String { String(code.map { $0 == "0" ? "1" : "0" }) }

    @Test func smsEnrollmentChallengeAndVerify() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        try await wire.seed("sms@example.com", extra: ["mfa_required": true])

        // Enrollment: associate, then the mfa-oob grant with the binding code confirms it.
        let enrollToken = try await mfaToken(wire, "sms@example.com")
        let bearer: HTTPFields = [.authorization: "Bearer \(enrollToken)"]
        let associate = try await wire.post("/auth0/mfa/associate", json: [
            "authenticator_types": ["oob"], "oob_channels": ["sms"], "phone_number": "+1 555 555 0100",
        ], headerFields: bearer)
        let enrollOOB = try #require(associate.json?["oob_code"]?.stringValue)
        let pending = try await wire.get("/auth0/mfa/authenticators", headerFields: bearer)
        let enrollBinding = try #require(try await bindingCode(wire, oobCode: enrollOOB).json?["binding_code"]?.stringValue)
        let enrolled = try await verify(wire, token: enrollToken, oobCode: enrollOOB, bindingCode: enrollBinding)
        let enrolledClaims = try await wire.verifiedClaims(try #require(enrolled.json?["id_token"]?.stringValue))
        let spentHook = try await bindingCode(wire, oobCode: enrollOOB)

        // Next login: challenge the confirmed authenticator and verify.
        let required = try await wire.login("sms@example.com")
        let loginToken = try #require(required.json?["mfa_token"]?.stringValue)
        let listed = try await wire.get("/auth0/mfa/authenticators", headerFields: [.authorization: "Bearer \(loginToken)"])
        let smsId = try #require(listed.json?.arrayValue?.first { $0["authenticator_type"] == "oob" }?["id"]?.stringValue)
        let challenge = try await challengeOOB(wire, token: loginToken, authenticatorId: smsId)
        let oobCode = try #require(challenge.json?["oob_code"]?.stringValue)
        let hook = try await bindingCode(wire, oobCode: oobCode)
        let code = try #require(hook.json?["binding_code"]?.stringValue)
        let verified = try await verify(wire, token: loginToken, oobCode: oobCode, bindingCode: code)
        let again = try await wire.post("/auth0/mfa/associate", json: [
            "authenticator_types": ["oob"], "oob_channels": ["sms"], "phone_number": "+1 555 555 0199",
        ], headerFields: [.authorization: "Bearer \(try await mfaToken(wire, "sms@example.com"))"])
        await emulator.stop()

        #expect(associate.status == 200)
        #expect(associate.json?["authenticator_type"] == "oob")
        #expect(associate.json?["oob_channel"] == "sms")
        #expect(associate.json?["binding_method"] == "prompt")
        #expect(associate.json?["recovery_codes"]?.arrayValue?.count == 1)
        let pendingSMS = try #require(pending.json?.arrayValue?.first { $0["authenticator_type"] == "oob" })
        #expect(pendingSMS["active"] == false)
        #expect(pendingSMS["oob_channel"] == "sms")
        #expect(pendingSMS["name"] == "XXXXXXXX0100")
        #expect(pendingSMS["id"]?.stringValue?.hasPrefix("sms|dev_") == true)
        #expect(enrollBinding.count == 6 && enrollBinding.allSatisfy(\.isNumber))
        #expect(enrolled.status == 200)
        #expect(enrolled.json?["refresh_token"] != nil)
        #expect(enrolledClaims["email"] == "sms@example.com")
        #expect(spentHook.status == 404)
        #expect(required.json?["mfa_requirements"] == ["challenge": [["type": "phone"]]])
        let active = try #require(listed.json?.arrayValue?.first { $0["authenticator_type"] == "oob" })
        #expect(active["active"] == true)
        #expect(active["type"] == "phone")
        #expect(challenge.status == 200)
        #expect(challenge.json?["challenge_type"] == "oob")
        #expect(challenge.json?["binding_method"] == "prompt")
        #expect(hook.json?["oob_channel"] == "sms")
        #expect(verified.status == 200)
        #expect(verified.json?["access_token"]?.stringValue?.isEmpty == false)
        #expect(again.status == 403)
        #expect(again.json?["error"] == "access_denied")
    }

    @Test func wrongBindingCodeAndReusedOOBCodeAreRefused() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        try await wire.seed("email@example.com", extra: ["mfa_required": true])
        let enrollToken = try await mfaToken(wire, "email@example.com")
        let associate = try await wire.post("/auth0/mfa/associate", json: [
            "authenticator_types": ["oob"], "oob_channels": ["email"], "email": "email@example.com",
        ], headerFields: [.authorization: "Bearer \(enrollToken)"])
        let enrollOOB = try #require(associate.json?["oob_code"]?.stringValue)
        let enrollBinding = try #require(try await bindingCode(wire, oobCode: enrollOOB).json?["binding_code"]?.stringValue)
        let wrongEnroll = try await verify(wire, token: enrollToken, oobCode: enrollOOB, bindingCode: wrong(enrollBinding))
        let missingBinding = try await verify(wire, token: enrollToken, oobCode: enrollOOB, bindingCode: nil)
        let enrolled = try await verify(wire, token: enrollToken, oobCode: enrollOOB, bindingCode: enrollBinding)

        let loginToken = try await mfaToken(wire, "email@example.com")
        let listed = try await wire.get("/auth0/mfa/authenticators", headerFields: [.authorization: "Bearer \(loginToken)"])
        // Without authenticator_id the first confirmed OOB authenticator is challenged.
        let challenge = try await challengeOOB(wire, token: loginToken, authenticatorId: nil)
        let oobCode = try #require(challenge.json?["oob_code"]?.stringValue)
        let code = try #require(try await bindingCode(wire, oobCode: oobCode).json?["binding_code"]?.stringValue)
        let ok = try await verify(wire, token: loginToken, oobCode: oobCode, bindingCode: code)
        let spentHook = try await bindingCode(wire, oobCode: oobCode)
        // The oob_code is spent with its MFA token (the hook no longer knows it): neither a new login's MFA token nor the spent one can reuse it.
        let otherToken = try await mfaToken(wire, "email@example.com")
        let reused = try await verify(wire, token: otherToken, oobCode: oobCode, bindingCode: code)
        let spentToken = try await verify(wire, token: loginToken, oobCode: oobCode, bindingCode: code)
        // An oob_code belongs to the MFA token it was issued for.
        let secondChallenge = try await challengeOOB(wire, token: otherToken, authenticatorId: nil)
        let secondCode = try #require(secondChallenge.json?["oob_code"]?.stringValue)
        let thirdToken = try await mfaToken(wire, "email@example.com")
        let foreign = try await verify(wire, token: thirdToken, oobCode: secondCode, bindingCode: "000000")
        let unknownAuthenticator = try await challengeOOB(wire, token: otherToken, authenticatorId: "email|dev_nothing")
        await emulator.stop()

        #expect(associate.status == 200)
        #expect(associate.json?["oob_channel"] == "email")
        #expect(wrongEnroll.status == 403)
        #expect(wrongEnroll.json == ["error": "invalid_grant", "error_description": "Invalid binding_code."])
        #expect(missingBinding.status == 400)
        #expect(missingBinding.json?["error"] == "invalid_request")
        #expect(enrolled.status == 200, "a wrong binding code may be corrected")
        let email = try #require(listed.json?.arrayValue?.first { $0["authenticator_type"] == "oob" })
        #expect(email["oob_channel"] == "email")
        #expect(email["type"] == "email")
        #expect(email["name"] == "e***@example.com")
        #expect(challenge.status == 200)
        #expect(ok.status == 200)
        #expect(spentHook.status == 404)
        #expect(reused.status == 403)
        #expect(reused.json == ["error": "invalid_grant", "error_description": "Invalid oob_code."])
        #expect(spentToken.status == 403)
        #expect(spentToken.json == ["error": "invalid_grant", "error_description": "Malformed mfa_token"])
        #expect(secondChallenge.status == 200)
        #expect(foreign.status == 403)
        #expect(foreign.json == ["error": "invalid_grant", "error_description": "Invalid oob_code."])
        #expect(unknownAuthenticator.status == 400)
        #expect(unknownAuthenticator.json?["error"] == "invalid_request")
    }

    @Test func repeatedWrongBindingCodesDropTheOOBCodeAndBadEnrollmentsAreRefused() async throws {
        let clock = FakeClock()
        let emulator = try await Emulator.start(EmulatorConfiguration(clock: clock))
        let wire = Auth0Wire(emulator: emulator)
        try await wire.seed("guess@example.com", extra: ["mfa_required": true])
        let token = try await mfaToken(wire, "guess@example.com")
        let bearer: HTTPFields = [.authorization: "Bearer \(token)"]
        let noChannel = try await wire.post("/auth0/mfa/associate", json: ["authenticator_types": ["oob"]], headerFields: bearer)
        let push = try await wire.post("/auth0/mfa/associate", json: ["authenticator_types": ["oob"], "oob_channels": ["auth0"]],
                                       headerFields: bearer)
        let noPhone = try await wire.post("/auth0/mfa/associate", json: ["authenticator_types": ["oob"], "oob_channels": ["sms"]],
                                          headerFields: bearer)
        let notEnrolled = try await challengeOOB(wire, token: token, authenticatorId: nil)
        let associate = try await wire.post("/auth0/mfa/associate", json: [
            "authenticator_types": ["oob"], "oob_channels": ["sms"], "phone_number": "+15555550123",
        ], headerFields: bearer)
        let oobCode = try #require(associate.json?["oob_code"]?.stringValue)
        let code = try #require(try await bindingCode(wire, oobCode: oobCode).json?["binding_code"]?.stringValue)
        var failures: [Auth0Wire.Reply] = []
        for _ in 0..<5 { failures.append(try await verify(wire, token: token, oobCode: oobCode, bindingCode: wrong(code))) }
        let afterGuesses = try await verify(wire, token: token, oobCode: oobCode, bindingCode: code)

        // An oob_code expires with time.
        let second = try await wire.post("/auth0/mfa/associate", json: [
            "authenticator_types": ["oob"], "oob_channels": ["sms"], "phone_number": "+15555550123",
        ], headerFields: bearer)
        let secondCode = try #require(second.json?["oob_code"]?.stringValue)
        let secondBinding = try #require(try await bindingCode(wire, oobCode: secondCode).json?["binding_code"]?.stringValue)
        clock.advance(by: 301)
        let expired = try await verify(wire, token: token, oobCode: secondCode, bindingCode: secondBinding)
        await emulator.stop()

        #expect(noChannel.status == 400)
        #expect(noChannel.json == ["error": "invalid_request", "error_description": "Missing required parameter: oob_channels"])
        #expect(push.status == 400)
        #expect(push.json?["error"] == "invalid_request")
        #expect(noPhone.status == 400)
        #expect(noPhone.json == ["error": "invalid_request", "error_description": "Missing required parameter: phone_number"])
        #expect(notEnrolled.status == 400)
        #expect(notEnrolled.json?["error"] == "unsupported_challenge_type")
        #expect(failures.allSatisfy { $0.status == 403 && $0.json?["error_description"] == "Invalid binding_code." })
        #expect(afterGuesses.status == 403)
        #expect(afterGuesses.json == ["error": "invalid_grant", "error_description": "Invalid oob_code."])
        #expect(second.status == 200)
        #expect(expired.status == 403)
        #expect(expired.json == ["error": "invalid_grant", "error_description": "Invalid oob_code."])
    }
}
