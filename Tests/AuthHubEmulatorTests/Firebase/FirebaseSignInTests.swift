import AuthHub
import AuthHubEmulator
import AuthHubTesting
import Foundation
import Testing

@Suite struct FirebaseSignInTests {
    @Test func signUpAndSignInReturnUnsignedIDTokensWithTheSpecClaims() async throws {
        let clock = FakeClock()
        let emulator = try await Emulator.start(EmulatorConfiguration(clock: clock))
        let wire = FirebaseWire(emulator: emulator)
        let signUp = try await wire.accounts("signUp", [
            "email": "Mixed.Case@Example.COM", "password": "secret-123", "displayName": "Ada", "returnSecureToken": true,
        ])
        let signUpAt = Int(clock.now.timeIntervalSince1970)
        clock.advance(by: 30)
        let signIn = try await wire.signIn("mixed.case@example.com")
        await emulator.stop()

        #expect(signUp.status == 200)
        #expect(signUp["kind"] == "identitytoolkit#SignupNewUserResponse")
        #expect(signUp["email"] == "mixed.case@example.com")
        #expect(signUp["displayName"] == "Ada")
        #expect(signUp["expiresIn"] == "3600")
        let localId = try #require(signUp.string("localId"))
        #expect(localId.count == 28)
        let idToken = try #require(signUp.string("idToken"))
        #expect(idToken.hasSuffix("."))
        let jwt = try DecodedJWT(idToken)
        #expect(jwt.header == ["alg": "none", "typ": "JWT"])
        #expect(jwt.signature.isEmpty)
        #expect(jwt.payload == [
            "iss": "https://securetoken.google.com/authhub-dev", "aud": "authhub-dev",
            "sub": .string(localId), "user_id": .string(localId),
            "iat": .number(Double(signUpAt)), "exp": .number(Double(signUpAt + 3600)), "auth_time": .number(Double(signUpAt)),
            "email": "mixed.case@example.com", "email_verified": false, "name": "Ada",
            "firebase": ["identities": ["email": ["mixed.case@example.com"]], "sign_in_provider": "password"],
        ])
        let refresh = try #require(signUp.string("refreshToken"))
        let refreshJSON = try JSONValue.parse(try #require(Data(base64Encoded: refresh)))
        #expect(refreshJSON["_AuthEmulatorRefreshToken"] == "DO NOT MODIFY")
        #expect(refreshJSON["localId"] == .string(localId))
        #expect(refreshJSON["projectId"] == "authhub-dev")

        #expect(signIn.status == 200)
        #expect(signIn["kind"] == "identitytoolkit#VerifyPasswordResponse")
        #expect(signIn["localId"] == .string(localId))
        #expect(signIn["registered"] == true)
        #expect(signIn["displayName"] == "Ada")
        #expect(signIn["expiresIn"] == "3600")
        let signInClaims = try DecodedJWT(try #require(signIn.string("idToken"))).payload
        #expect(signInClaims["iat"] == .number(Double(signUpAt + 30)))
        #expect(signInClaims["auth_time"] == .number(Double(signUpAt + 30)))
    }

    @Test func signUpChecksRunInTheEmulatorsOrder() async throws {
        let emulator = try await Emulator.start()
        let wire = FirebaseWire(emulator: emulator)
        try await wire.seed("taken@example.com")
        let cases: [(JSONValue, String)] = [
            ([:], "ADMIN_ONLY_OPERATION"),
            (["password": "x"], "MISSING_EMAIL"),
            (["email": "not-an-email"], "MISSING_PASSWORD"),
            (["email": "not-an-email", "password": "x"], "INVALID_EMAIL"),
            (["email": "two@at@example.com", "password": "secret-123"], "INVALID_EMAIL"),
            (["email": "@example.com", "password": "secret-123"], "INVALID_EMAIL"),
            (["email": "TAKEN@example.com", "password": "x"], "EMAIL_EXISTS"),
            (["email": "new@example.com", "password": "12345"], "WEAK_PASSWORD : Password should be at least 6 characters"),
        ]
        var replies: [FirebaseWire.Reply] = []
        for (body, _) in cases { replies.append(try await wire.accounts("signUp", body)) }
        let minimal = try await wire.accounts("signUp", ["email": "a@b", "password": "123456"])
        await emulator.stop()

        for (index, (body, message)) in cases.enumerated() {
            #expect(replies[index].status == 400, "\(body)")
            #expect(replies[index].json == FirebaseWire.envelope(message), "\(body)")
        }
        #expect(minimal.status == 200, "one @ with text on both sides and six characters are enough")
    }

    @Test func signInChecksRunInTheEmulatorsOrderWithEmailPrivacyOff() async throws {
        let emulator = try await Emulator.start()
        let wire = FirebaseWire(emulator: emulator)
        try await wire.seed("user@example.com")
        try await wire.seed("off@example.com", extra: ["disabled": true])
        let cases: [(JSONValue, String)] = [
            (["password": "x"], "MISSING_EMAIL"),
            (["email": "bad"], "INVALID_EMAIL"),
            (["email": "user@example.com"], "MISSING_PASSWORD"),
            (["email": "nobody@example.com", "password": "wrong-password"], "EMAIL_NOT_FOUND"),
            (["email": "off@example.com", "password": "wrong-password"], "USER_DISABLED"),
            (["email": "user@example.com", "password": "wrong-password"], "INVALID_PASSWORD"),
        ]
        var replies: [FirebaseWire.Reply] = []
        for (body, _) in cases { replies.append(try await wire.accounts("signInWithPassword", body)) }
        let config = try await wire.helper(.get, "config")
        let upperCase = try await wire.signIn("USER@Example.com")
        await emulator.stop()

        for (index, (body, message)) in cases.enumerated() {
            #expect(replies[index].json == FirebaseWire.envelope(message), "\(body)")
        }
        #expect(config.json == ["signIn": ["allowDuplicateEmails": false], "emailPrivacyConfig": ["enableImprovedEmailPrivacy": false],
                                "tenants": []])
        #expect(upperCase.status == 200)
    }

    @Test func improvedEmailPrivacyHidesWhetherTheEmailExists() async throws {
        let emulator = try await Emulator.start()
        let wire = FirebaseWire(emulator: emulator)
        try await wire.seed("user@example.com")
        try await wire.seed("off@example.com", extra: ["disabled": true])
        try await wire.setPrivacy(true)
        let config = try await wire.helper(.get, "config")
        let unknown = try await wire.signIn("nobody@example.com")
        let disabled = try await wire.signIn("off@example.com", password: "wrong-password")
        let wrong = try await wire.signIn("user@example.com", password: "wrong-password")
        let reset = try await wire.accounts("sendOobCode", ["requestType": "PASSWORD_RESET", "email": "nobody@example.com"])
        let codes = try await wire.oobCodes()
        try await wire.setPrivacy(false)
        let unknownAgain = try await wire.signIn("nobody@example.com")
        let resetAgain = try await wire.accounts("sendOobCode", ["requestType": "PASSWORD_RESET", "email": "nobody@example.com"])
        await emulator.stop()

        #expect(config.json?["emailPrivacyConfig"] == ["enableImprovedEmailPrivacy": true])
        #expect(unknown.json == FirebaseWire.envelope("INVALID_LOGIN_CREDENTIALS"))
        #expect(disabled.json == FirebaseWire.envelope("USER_DISABLED"))
        #expect(wrong.json == FirebaseWire.envelope("INVALID_LOGIN_CREDENTIALS"))
        #expect(reset.status == 200)
        #expect(reset.json == ["kind": "identitytoolkit#GetOobConfirmationCodeResponse", "email": "nobody@example.com"])
        #expect(codes.isEmpty, "no code is made for an unknown address")
        #expect(unknownAgain.json == FirebaseWire.envelope("EMAIL_NOT_FOUND"))
        #expect(resetAgain.json == FirebaseWire.envelope("EMAIL_NOT_FOUND"))
    }

    @Test func usersWithSecondFactorsGetAPendingCredentialAndNoTokens() async throws {
        let emulator = try await Emulator.start()
        let wire = FirebaseWire(emulator: emulator)
        let factor: JSONValue = ["mfaEnrollmentId": "enrollment-1", "displayName": "phone", "phoneInfo": "+15555550100"]
        let localId = try await wire.seed("mfa@example.com", extra: ["mfaInfo": [factor]])
        let reply = try await wire.signIn("mfa@example.com")
        let wrong = try await wire.signIn("mfa@example.com", password: "wrong-password")
        await emulator.stop()

        #expect(reply.status == 200)
        #expect(reply["localId"] == .string(localId))
        #expect(reply["email"] == "mfa@example.com")
        #expect(reply["mfaInfo"] == [factor])
        #expect(reply["idToken"] == nil)
        #expect(reply["refreshToken"] == nil)
        let pending = try #require(reply.string("mfaPendingCredential"))
        #expect(!pending.isEmpty)
        #expect(wrong.json == FirebaseWire.envelope("INVALID_PASSWORD"), "the password is checked before the second factor")
    }
}
