import AuthHub
import AuthHubEmulator
import AuthHubFactors
import AuthHubTesting
import Foundation
import Testing

@Suite struct Auth0RefreshAndMFATests {
    static let invalidRefresh: JSONValue = ["error": "invalid_grant", "error_description": "Unknown or invalid refresh token."]

    @Test func refreshTokensRotateAndReuseRevokesTheFamily() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        try await wire.seed("rotate@example.com")
        let login = try #require(try await wire.login("rotate@example.com").json)
        let r1 = try #require(login["refresh_token"]?.stringValue)
        let other = try #require(try await wire.login("rotate@example.com").json?["refresh_token"]?.stringValue)

        let first = try await wire.refresh(r1)
        let r2 = try #require(first.json?["refresh_token"]?.stringValue)
        let second = try await wire.refresh(r2)
        let r3 = try #require(second.json?["refresh_token"]?.stringValue)
        let reuse = try await wire.refresh(r1)
        let afterReuse = try await wire.refresh(r3)
        let unrelated = try await wire.refresh(other)
        let claims = try await wire.verifiedClaims(try #require(first.json?["id_token"]?.stringValue))
        await emulator.stop()

        #expect(first.status == 200)
        #expect(r2 != r1)
        #expect(first.json?["access_token"] != login["access_token"])
        #expect(first.json?["scope"] == "openid profile email offline_access")
        #expect(claims["email"] == "rotate@example.com")
        #expect(second.status == 200)
        #expect(r3 != r2)
        #expect(reuse.status == 403)
        #expect(reuse.json == Self.invalidRefresh)
        #expect(afterReuse.status == 403, "the whole family is revoked once a rotated token is reused")
        #expect(afterReuse.json == Self.invalidRefresh)
        #expect(unrelated.status == 200, "another login's family is untouched")
    }

    /// Auth0's reuse interval (`refresh_token.leeway`): the previous token may be exchanged again within
    /// it, for a new token of the family; outside it, or once a token issued from it was exchanged (it is
    /// then the second-to-last), reuse detection revokes the family as before.
    @Test func theReuseIntervalCoversOnlyThePreviousTokenAndOnlyWithinIt() async throws {
        let clock = FakeClock()
        let emulator = try await Emulator.start(EmulatorConfiguration(clock: clock))
        let wire = Auth0Wire(emulator: emulator)
        try await wire.seed("leeway@example.com")
        let registered = try await wire.post("/auth0/__emulator/clients", json: [
            "client_id": .string(Auth0Wire.clientId), "refresh_token_leeway": 30,
        ])
        let badLeeways = [JSONValue.number(-1), .number(1.5), .number(86_401), .number(1e300), .string("30")]
        var badStatuses: [Int] = []
        for bad in badLeeways {
            badStatuses.append(try await wire.post("/auth0/__emulator/clients", json: ["client_id": "other", "refresh_token_leeway": bad]).status)
        }

        // Within the interval: r1 (the previous token) is exchanged again, twice; each gives a new token.
        let r1 = try #require(try await wire.login("leeway@example.com").json?["refresh_token"]?.stringValue)
        let r2 = try #require(try await wire.refresh(r1).json?["refresh_token"]?.stringValue)
        clock.advance(by: 29)
        let again = try await wire.refresh(r1)
        let r2b = try #require(again.json?["refresh_token"]?.stringValue)
        let twice = try await wire.refresh(r1)
        // r2 and r2b are both usable; once r2b is exchanged, r1 is the second-to-last: reuse is a breach.
        let r3 = try #require(try await wire.refresh(r2b).json?["refresh_token"]?.stringValue)
        let secondToLast = try await wire.refresh(r1)
        let familyAfterBreach = try await wire.refresh(r3)

        // Outside the interval: a fresh family whose previous token is presented 31 s after its exchange.
        let s1 = try #require(try await wire.login("leeway@example.com").json?["refresh_token"]?.stringValue)
        let s2 = try #require(try await wire.refresh(s1).json?["refresh_token"]?.stringValue)
        clock.advance(by: 31)
        let late = try await wire.refresh(s1)
        let familyAfterLate = try await wire.refresh(s2)
        await emulator.stop()

        #expect(registered.status == 201)
        #expect(registered.json?["refresh_token_leeway"] == 30)
        #expect(badStatuses == [400, 400, 400, 400, 400])
        #expect(again.status == 200, "the previous token, within the interval")
        #expect(r2b != r2 && r2b != r1)
        #expect(twice.status == 200)
        #expect(secondToLast.status == 403, "a token issued from it was exchanged: no longer the previous one")
        #expect(secondToLast.json == Self.invalidRefresh)
        #expect(familyAfterBreach.status == 403, "reuse outside the interval revokes the family")
        #expect(late.status == 403)
        #expect(familyAfterLate.status == 403)
    }

    @Test func revokeEndsTheFamilyAndAcceptsUnknownTokens() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        try await wire.seed("revoke@example.com")
        let r1 = try #require(try await wire.login("revoke@example.com").json?["refresh_token"]?.stringValue)
        let r2 = try #require(try await wire.refresh(r1).json?["refresh_token"]?.stringValue)
        let revoke = try await wire.post("/auth0/oauth/revoke", json: ["client_id": .string(Auth0Wire.clientId), "token": .string(r2)])
        let afterRevoke = try await wire.refresh(r2)
        let unknown = try await wire.post("/auth0/oauth/revoke", json: ["client_id": .string(Auth0Wire.clientId), "token": "nothing"])
        let missing = try await wire.post("/auth0/oauth/revoke", json: ["client_id": .string(Auth0Wire.clientId)])
        await emulator.stop()

        #expect(revoke.status == 200)
        #expect(revoke.body.isEmpty)
        #expect(afterRevoke.status == 403)
        #expect(afterRevoke.json == Self.invalidRefresh)
        #expect(unknown.status == 200)
        #expect(missing.status == 400)
        #expect(missing.json?["error"] == "invalid_request")
    }

    func mfaOTP(_ wire: Auth0Wire, token: String, otp: String) async throws -> Auth0Wire.Reply {
        try await wire.post("/auth0/oauth/token", json: [
            "client_id": .string(Auth0Wire.clientId), "grant_type": "http://auth0.com/oauth/grant-type/mfa-otp",
            "mfa_token": .string(token), "otp": .string(otp),
        ])
    }

    @Test func mfaRequiredThenEnrollTOTPAndVerify() async throws {
        let clock = FakeClock()
        let emulator = try await Emulator.start(EmulatorConfiguration(clock: clock))
        let wire = Auth0Wire(emulator: emulator)
        try await wire.seed("mfa@example.com", extra: ["mfa_required": true])

        let required = try await wire.login("mfa@example.com")
        let mfaToken = try #require(required.json?["mfa_token"]?.stringValue)
        let bearer: HTTPFields = [.authorization: "Bearer \(mfaToken)"]
        let before = try await wire.get("/auth0/mfa/authenticators", headerFields: bearer)
        let associate = try await wire.post("/auth0/mfa/associate", json: ["authenticator_types": ["otp"]], headerFields: bearer)
        let secret = try #require(associate.json?["secret"]?.stringValue)
        let totp = try TOTP(secret: Secret(try Base32.decode(secret)))
        let code = try totp.code(at: clock.now).revealed()
        let wrongCode = String(code.map { $0 == "0" ? "1" : "0" })
        let wrong = try await mfaOTP(wire, token: mfaToken, otp: wrongCode)
        let verified = try await mfaOTP(wire, token: mfaToken, otp: code)
        let spentToken = try await mfaOTP(wire, token: mfaToken, otp: code)
        let idClaims = try await wire.verifiedClaims(try #require(verified.json?["id_token"]?.stringValue))

        // Enrolled now: the next login asks for a challenge, and the authenticator is active.
        clock.advance(by: 60)
        let next = try await wire.login("mfa@example.com")
        let nextToken = try #require(next.json?["mfa_token"]?.stringValue)
        let listed = try await wire.get("/auth0/mfa/authenticators", headerFields: [.authorization: "Bearer \(nextToken)"])
        let again = try await wire.post("/auth0/mfa/associate", json: ["authenticator_types": ["otp"]],
                                        headerFields: [.authorization: "Bearer \(nextToken)"])
        let recoveryCode = try #require(associate.json?["recovery_codes"]?.arrayValue?.first?.stringValue)
        let recovered = try await wire.post("/auth0/oauth/token", json: [
            "client_id": .string(Auth0Wire.clientId), "grant_type": "http://auth0.com/oauth/grant-type/mfa-recovery-code",
            "mfa_token": .string(nextToken), "recovery_code": .string(recoveryCode),
        ])
        await emulator.stop()

        #expect(required.status == 403)
        #expect(required.json?["error"] == "mfa_required")
        #expect(required.json?["error_description"] == "Multifactor authentication required")
        #expect(required.json?["mfa_requirements"] == ["enroll": [["type": "otp"]]])
        #expect(before.status == 200)
        #expect(before.json == [])
        #expect(associate.status == 200)
        #expect(associate.json?["authenticator_type"] == "otp")
        #expect(associate.json?["barcode_uri"]?.stringValue?.hasPrefix("otpauth://totp/") == true)
        #expect(associate.json?["barcode_uri"]?.stringValue?.contains("secret=\(secret)") == true)
        #expect(wrong.status == 403)
        #expect(wrong.json == ["error": "invalid_grant", "error_description": "Invalid otp_code."])
        #expect(verified.status == 200)
        #expect(verified.json?["refresh_token"] != nil)
        #expect(idClaims["email"] == "mfa@example.com")
        #expect(spentToken.status == 403)
        #expect(spentToken.json == ["error": "invalid_grant", "error_description": "Malformed mfa_token"])

        #expect(next.json?["mfa_requirements"] == ["challenge": [["type": "otp"]]])
        let authenticators = try #require(listed.json?.arrayValue)
        #expect(authenticators.contains { $0["authenticator_type"] == "otp" && $0["active"] == true })
        #expect(authenticators.contains { $0["authenticator_type"] == "recovery-code" })
        #expect(again.status == 403)
        #expect(again.json?["error"] == "access_denied")
        #expect(recovered.status == 200)
        #expect(recovered.json?["recovery_code"]?.stringValue?.isEmpty == false)
        #expect(recovered.json?["recovery_code"]?.stringValue != recoveryCode)
    }

    @Test func seededTOTPUsersAreChallengedAndCodesCannotBeReplayed() async throws {
        let clock = FakeClock()
        let emulator = try await Emulator.start(EmulatorConfiguration(clock: clock))
        let wire = Auth0Wire(emulator: emulator)
        let secretBytes = Array("12345678901234567890".utf8)
        try await wire.seed("seeded@example.com", extra: ["totp_secret": .string(Base32.encode(secretBytes))])
        let totp = try TOTP(secret: Secret(secretBytes))

        let first = try #require(try await wire.login("seeded@example.com").json?["mfa_token"]?.stringValue)
        let code = try totp.code(at: clock.now).revealed()
        let ok = try await mfaOTP(wire, token: first, otp: code)
        let second = try #require(try await wire.login("seeded@example.com").json?["mfa_token"]?.stringValue)
        let replay = try await mfaOTP(wire, token: second, otp: code)
        clock.advance(by: 601)
        let expired = try await mfaOTP(wire, token: second, otp: try totp.code(at: clock.now).revealed())
        let noBearer = try await wire.get("/auth0/mfa/authenticators")
        await emulator.stop()

        #expect(ok.status == 200)
        #expect(replay.status == 403)
        #expect(replay.json == ["error": "invalid_grant", "error_description": "Invalid otp_code."])
        #expect(expired.status == 403)
        #expect(expired.json == ["error": "expired_token", "error_description": "mfa_token is expired"])
        #expect(noBearer.status == 401)
    }

    @Test func sessionTransferExchangeIsARefreshGrantWithASpecialAudience() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        try await wire.seed("sso@example.com")
        let r1 = try #require(try await wire.login("sso@example.com").json?["refresh_token"]?.stringValue)
        let exchange = try await wire.post("/auth0/oauth/token", json: [
            "client_id": .string(Auth0Wire.clientId), "grant_type": "refresh_token", "refresh_token": .string(r1),
            "audience": "urn:127.0.0.1:session_transfer",
        ])
        let transferToken = try #require(exchange.json?["access_token"]?.stringValue)
        let asAccessToken = try await wire.get("/auth0/userinfo", headerFields: [.authorization: "Bearer \(transferToken)"])
        let claims = try await wire.verifiedClaims(try #require(exchange.json?["id_token"]?.stringValue))
        await emulator.stop()

        #expect(exchange.status == 200)
        #expect(exchange.json?["issued_token_type"] == "urn:auth0:params:oauth:token-type:session_transfer_token")
        #expect(exchange.json?["expires_in"] == 60)
        #expect(exchange.json?["refresh_token"] != nil)
        #expect(claims["email"] == "sso@example.com")
        #expect(asAccessToken.status == 401)
    }

    @Test func mfaChallengeAndChangePassword() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        try await wire.seed("challenge@example.com", extra: ["totp_secret": "JBSWY3DPEHPK3PXP"])
        let mfaToken = try #require(try await wire.login("challenge@example.com").json?["mfa_token"]?.stringValue)
        let otp = try await wire.post("/auth0/mfa/challenge", json: [
            "client_id": .string(Auth0Wire.clientId), "mfa_token": .string(mfaToken), "challenge_type": "otp",
        ])
        let oob = try await wire.post("/auth0/mfa/challenge", json: [
            "client_id": .string(Auth0Wire.clientId), "mfa_token": .string(mfaToken), "challenge_type": "oob",
            "authenticator_id": "sms|dev_1",
        ])
        let badToken = try await wire.post("/auth0/mfa/challenge", json: [
            "client_id": .string(Auth0Wire.clientId), "mfa_token": "garbage", "challenge_type": "otp",
        ])
        let reset = try await wire.post("/auth0/dbconnections/change_password", json: [
            "client_id": .string(Auth0Wire.clientId), "email": "challenge@example.com", "connection": "Username-Password-Authentication",
        ])
        await emulator.stop()

        #expect(otp.status == 200)
        #expect(otp.json == ["challenge_type": "otp"])
        #expect(oob.status == 400)
        #expect(oob.json?["error"] == "invalid_request")
        #expect(badToken.status == 403)
        #expect(badToken.json == ["error": "invalid_grant", "error_description": "Malformed mfa_token"])
        #expect(reset.status == 200)
        #expect(reset.text == "We've just sent you an email to reset your password.")
    }

    @Test func resetClearsUsersButKeepsTheSigningKey() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        try await wire.seed("reset@example.com")
        let before = try await wire.get("/auth0/.well-known/jwks.json").json
        await emulator.reset()
        let login = try await wire.login("reset@example.com")
        let after = try await wire.get("/auth0/.well-known/jwks.json").json
        let users = try await wire.get("/auth0/__emulator/users").json
        await emulator.stop()
        #expect(login.status == 403)
        #expect(before == after)
        #expect(users == ["users": []])
    }
}
