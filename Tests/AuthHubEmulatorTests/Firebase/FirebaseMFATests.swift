import AuthHub
import AuthHubEmulator
import AuthHubFactors
import AuthHubTesting
import Foundation
import Testing

extension FirebaseWire {
    /// `POST /identitytoolkit.googleapis.com/v2/accounts/<op>?key=…`.
    func v2(_ op: String, _ body: JSONValue) async throws -> Reply {
        try await postJSON("/identitytoolkit.googleapis.com/v2/accounts/\(op)?key=\(Self.key)", body)
    }

    /// Seeds a verified account, signs in, enrolls a TOTP factor with a current code, and returns
    /// `(localId, enrollmentId, generator)`.
    func enrollTOTP(_ email: String, clock: FakeClock) async throws -> (String, String, TOTP) {
        let localId = try await seed(email, extra: ["emailVerified": true])
        let idToken = try #require(try await signIn(email).string("idToken"))
        let start = try await v2("mfaEnrollment:start", ["idToken": .string(idToken), "totpEnrollmentInfo": [:]])
        let info = try #require(start["totpSessionInfo"])
        let totp = try TOTP(secret: Secret(try Base32.decode(try #require(info["sharedSecretKey"]?.stringValue))))
        let finalize = try await v2("mfaEnrollment:finalize", [
            "idToken": .string(idToken), "displayName": "Authenticator",
            "totpVerificationInfo": ["sessionInfo": try #require(info["sessionInfo"]), "verificationCode": .string(try totp.code(at: clock.now).revealed())],
        ])
        #expect(finalize.status == 200, "\(String(decoding: finalize.body, as: UTF8.self))")
        let finalIdToken = try #require(finalize.string("idToken"))
        let users = try await lookup(finalIdToken).json?["users"]?.arrayValue
        let enrollment = try #require(users?.first?["mfaInfo"]?.arrayValue?.last?["mfaEnrollmentId"]?.stringValue)
        return (localId, enrollment, totp)
    }
}

@Suite struct FirebaseMFATests {
    @Test func enrollmentStartFinalizeAndTheMfaInfoEntry() async throws {
        let clock = FakeClock()
        let emulator = try await Emulator.start(EmulatorConfiguration(clock: clock))
        let wire = FirebaseWire(emulator: emulator)
        try await wire.seed("t@example.com", extra: ["emailVerified": true])
        let idToken = try #require(try await wire.signIn("t@example.com").string("idToken"))
        let start = try await wire.v2("mfaEnrollment:start", ["idToken": .string(idToken), "totpEnrollmentInfo": [:]])
        let info = try #require(start["totpSessionInfo"]?.objectValue)
        let secret = try #require(info["sharedSecretKey"]?.stringValue)
        let totp = try TOTP(secret: Secret(try Base32.decode(secret)))
        let sessionInfo = try #require(info["sessionInfo"])
        let wrong = try await wire.v2("mfaEnrollment:finalize", [
            "idToken": .string(idToken), "totpVerificationInfo": ["sessionInfo": sessionInfo, "verificationCode": "000000"],
        ])
        let missing = try await wire.v2("mfaEnrollment:finalize", ["idToken": .string(idToken), "totpVerificationInfo": ["sessionInfo": sessionInfo]])
        let unknown = try await wire.v2("mfaEnrollment:finalize", [
            "idToken": .string(idToken), "totpVerificationInfo": ["sessionInfo": "nope", "verificationCode": "123456"],
        ])
        clock.advance(by: 5)
        let code = try totp.code(at: clock.now).revealed()
        let good = try await wire.v2("mfaEnrollment:finalize", [
            "idToken": .string(idToken), "displayName": "Phone app",
            "totpVerificationInfo": ["sessionInfo": sessionInfo, "verificationCode": .string(code)],
        ])
        let reused = try await wire.v2("mfaEnrollment:finalize", [
            "idToken": .string(idToken), "totpVerificationInfo": ["sessionInfo": sessionInfo, "verificationCode": .string(code)],
        ])
        let lookup = try await wire.lookup(try #require(good.string("idToken")))
        let signIn = try await wire.signIn("t@example.com")
        await emulator.stop()

        #expect(start.status == 200)
        #expect(Set(info.keys) == ["sharedSecretKey", "verificationCodeLength", "hashingAlgorithm", "periodSec", "sessionInfo", "finalizeEnrollmentTime"])
        let secretBytes = try Base32.decode(secret)
        #expect(secret.count == 32 && secretBytes.count == 20)
        #expect(info["verificationCodeLength"] == 6 && info["hashingAlgorithm"] == "SHA1" && info["periodSec"] == 30)
        let deadline = try #require(info["finalizeEnrollmentTime"]?.stringValue)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        #expect(formatter.date(from: deadline).map { $0.timeIntervalSince(clock.now).rounded() } == 595, "10 minutes after start")
        #expect(wrong.json == FirebaseWire.envelope("INVALID_CODE"))
        #expect(missing.json == FirebaseWire.envelope("MISSING_CODE"))
        #expect(unknown.json == FirebaseWire.envelope("INVALID_SESSION_INFO"))
        #expect(good.status == 200 && Set(good.json?.objectValue?.keys ?? [:].keys) == ["idToken", "refreshToken"])
        #expect(reused.json == FirebaseWire.envelope("INVALID_SESSION_INFO"), "a session finalizes once")
        let entry = try #require(lookup.json?["users"]?.arrayValue?.first?["mfaInfo"]?.arrayValue?.first?.objectValue)
        #expect(Set(entry.keys) == ["mfaEnrollmentId", "displayName", "totpInfo", "enrolledAt"])
        #expect(entry["displayName"] == "Phone app" && entry["totpInfo"] == [:])
        let enrolledAt = try #require(entry["enrolledAt"]?.stringValue.flatMap(formatter.date(from:)))
        #expect(abs(enrolledAt.timeIntervalSince(clock.now)) < 0.01, "enrolledAt is the finalize time, RFC 3339")
        #expect(signIn["idToken"] == nil && signIn.string("mfaPendingCredential") != nil)
        #expect(signIn["mfaInfo"]?.arrayValue?.count == 1)
    }

    @Test func enrollmentNeedsAVerifiedEmailAndAnUnexpiredSession() async throws {
        let clock = FakeClock()
        let emulator = try await Emulator.start(EmulatorConfiguration(clock: clock))
        let wire = FirebaseWire(emulator: emulator)
        let (_, unverifiedToken, _) = try await wire.signUp("u@example.com")
        let unverified = try await wire.v2("mfaEnrollment:start", ["idToken": .string(unverifiedToken), "totpEnrollmentInfo": [:]])
        try await wire.seed("v@example.com", extra: ["emailVerified": true])
        let idToken = try #require(try await wire.signIn("v@example.com").string("idToken"))
        let noInfo = try await wire.v2("mfaEnrollment:start", ["idToken": .string(idToken)])
        let start = try await wire.v2("mfaEnrollment:start", ["idToken": .string(idToken), "totpEnrollmentInfo": [:]])
        let info = try #require(start["totpSessionInfo"])
        let totp = try TOTP(secret: Secret(try Base32.decode(try #require(info["sharedSecretKey"]?.stringValue))))
        let otherUser = try await wire.v2("mfaEnrollment:finalize", [
            "idToken": .string(unverifiedToken),
            "totpVerificationInfo": ["sessionInfo": try #require(info["sessionInfo"]), "verificationCode": .string(try totp.code(at: clock.now).revealed())],
        ])
        clock.advance(by: 601)
        let late = try await wire.v2("mfaEnrollment:finalize", [
            "idToken": .string(idToken),
            "totpVerificationInfo": ["sessionInfo": try #require(info["sessionInfo"]), "verificationCode": .string(try totp.code(at: clock.now).revealed())],
        ])
        await emulator.stop()

        #expect(unverified.json == FirebaseWire.envelope("UNVERIFIED_EMAIL : Need to verify email first before enrolling second factors."))
        #expect(noInfo.status == 400 && noInfo.json?["error"]?["status"] == "INVALID_ARGUMENT")
        #expect(otherUser.json == FirebaseWire.envelope("INVALID_SESSION_INFO"), "the session is bound to the account that started it")
        #expect(late.json == FirebaseWire.envelope("SESSION_EXPIRED"))
    }

    @Test func mfaSignInFinalizeIssuesSecondFactorTokensAndRefusesReplays() async throws {
        let clock = FakeClock()
        let emulator = try await Emulator.start(EmulatorConfiguration(clock: clock))
        let wire = FirebaseWire(emulator: emulator)
        let (localId, enrollment, totp) = try await wire.enrollTOTP("m@example.com", clock: clock)
        clock.advance(by: 30)
        let pending = try #require(try await wire.signIn("m@example.com").string("mfaPendingCredential"))
        func finalize(_ credential: String?, _ enrollmentId: String?, _ code: String?) async throws -> FirebaseWire.Reply {
            var body: [String: JSONValue] = [:]
            if let credential { body["mfaPendingCredential"] = .string(credential) }
            if let enrollmentId { body["mfaEnrollmentId"] = .string(enrollmentId) }
            if let code { body["totpVerificationInfo"] = ["verificationCode": .string(code)] }
            return try await wire.v2("mfaSignIn:finalize", .object(body))
        }
        let code = try totp.code(at: clock.now).revealed()
        let noCredential = try await finalize(nil, enrollment, code)
        let forged = try await finalize(Data(#"{"_AuthEmulatorMfaPendingCredential":"DO NOT MODIFY","localId":"\#(localId)","projectId":"authhub-dev"}"#.utf8).base64EncodedString(), enrollment, code)
        let noEnrollment = try await finalize(pending, nil, code)
        let otherEnrollment = try await finalize(pending, "not-enrolled", code)
        let noCode = try await finalize(pending, enrollment, nil)
        let wrong = try await finalize(pending, enrollment, code == "000000" ? "111111" : "000000")
        let tooLong = try await finalize(pending, enrollment, String(repeating: "1", count: 100))
        let good = try await finalize(pending, enrollment, code)
        let reusedCredential = try await finalize(pending, enrollment, code)
        let secondPending = try #require(try await wire.signIn("m@example.com").string("mfaPendingCredential"))
        let replay = try await finalize(secondPending, enrollment, code)
        clock.advance(by: 30)
        let nextStep = try await finalize(secondPending, enrollment, try totp.code(at: clock.now).revealed())
        let refreshed = try await wire.refresh(try #require(good.string("refreshToken")))
        let thirdPending = try #require(try await wire.signIn("m@example.com").string("mfaPendingCredential"))
        clock.advance(by: 601)
        let expired = try await finalize(thirdPending, enrollment, try totp.code(at: clock.now).revealed())
        await emulator.stop()

        #expect(noCredential.json == FirebaseWire.envelope("MISSING_MFA_PENDING_CREDENTIAL"))
        #expect(forged.json == FirebaseWire.envelope("INVALID_MFA_PENDING_CREDENTIAL"), "only credentials the emulator issued")
        #expect(noEnrollment.json == FirebaseWire.envelope("MISSING_MFA_ENROLLMENT_ID"))
        #expect(otherEnrollment.json == FirebaseWire.envelope("MFA_ENROLLMENT_NOT_FOUND"))
        #expect(noCode.json == FirebaseWire.envelope("MISSING_CODE"))
        #expect(wrong.json == FirebaseWire.envelope("INVALID_CODE"))
        #expect(tooLong.json == FirebaseWire.envelope("INVALID_CODE"))
        #expect(good.status == 200 && Set(good.json?.objectValue?.keys ?? [:].keys) == ["idToken", "refreshToken"])
        let claims = try DecodedJWT(try #require(good.string("idToken"))).payload
        #expect(claims["sub"] == .string(localId))
        #expect(claims["auth_time"] == .number(clock.now.addingTimeInterval(-631).timeIntervalSince1970.rounded(.down)))
        #expect(claims["firebase"]?["sign_in_provider"] == "password")
        #expect(claims["firebase"]?["sign_in_second_factor"] == "totp")
        #expect(claims["firebase"]?["second_factor_identifier"] == .string(enrollment))
        #expect(reusedCredential.json == FirebaseWire.envelope("INVALID_MFA_PENDING_CREDENTIAL"), "a credential is used once")
        #expect(replay.json == FirebaseWire.envelope("INVALID_CODE"), "an accepted code's time step cannot be used again")
        #expect(nextStep.status == 200, "the next step's code works")
        let refreshedClaims = try DecodedJWT(try #require(refreshed.string("id_token"))).payload
        #expect(refreshedClaims["firebase"]?["second_factor_identifier"] == .string(enrollment), "refreshes keep the second factor")
        #expect(expired.json == FirebaseWire.envelope("INVALID_MFA_PENDING_CREDENTIAL"), "pending credentials expire after 10 minutes")
    }

    @Test func aPasswordChangeInvalidatesPendingCredentialsAndWithdrawRemovesTheFactor() async throws {
        let clock = FakeClock()
        let emulator = try await Emulator.start(EmulatorConfiguration(clock: clock))
        let wire = FirebaseWire(emulator: emulator)
        let (localId, enrollment, totp) = try await wire.enrollTOTP("w@example.com", clock: clock)
        clock.advance(by: 30)
        let pending = try #require(try await wire.signIn("w@example.com").string("mfaPendingCredential"))
        clock.advance(by: 1)
        let change = try await wire.admin("update", ["localId": .string(localId), "password": "another-secret"])
        let stale = try await wire.v2("mfaSignIn:finalize", [
            "mfaPendingCredential": .string(pending), "mfaEnrollmentId": .string(enrollment),
            "totpVerificationInfo": ["verificationCode": .string(try totp.code(at: clock.now).revealed())],
        ])
        let fresh = try #require(try await wire.signIn("w@example.com", password: "another-secret").string("mfaPendingCredential"))
        let signedIn = try await wire.v2("mfaSignIn:finalize", [
            "mfaPendingCredential": .string(fresh), "mfaEnrollmentId": .string(enrollment),
            "totpVerificationInfo": ["verificationCode": .string(try totp.code(at: clock.now).revealed())],
        ])
        let idToken = try #require(signedIn.string("idToken"))
        let withdraw = try await wire.v2("mfaEnrollment:withdraw", ["idToken": .string(idToken), "mfaEnrollmentId": .string(enrollment)])
        let again = try await wire.v2("mfaEnrollment:withdraw", ["idToken": .string(idToken), "mfaEnrollmentId": .string(enrollment)])
        let plain = try await wire.signIn("w@example.com", password: "another-secret")
        await emulator.stop()

        #expect(change.status == 200)
        #expect(stale.json == FirebaseWire.envelope("INVALID_MFA_PENDING_CREDENTIAL"), "bound to the account as it was")
        #expect(signedIn.status == 200)
        #expect(withdraw.status == 200 && withdraw.string("idToken") != nil)
        #expect(again.json == FirebaseWire.envelope("MFA_ENROLLMENT_NOT_FOUND"))
        #expect(plain.string("idToken") != nil, "without factors, password sign-in returns tokens again")
    }

    /// The `:endSessionsOnMFAWithdraw` hook: the withdrawal removes the factor, answers `{}` (the
    /// tokens of `WithdrawMfaResponse` are optional) and ends the account's sessions.
    @Test func aMarkedAccountsWithdrawalAnswersWithoutTokensAndEndsItsSessions() async throws {
        let clock = FakeClock()
        let emulator = try await Emulator.start(EmulatorConfiguration(clock: clock))
        let wire = FirebaseWire(emulator: emulator)
        let (localId, enrollment, totp) = try await wire.enrollTOTP("end@example.com", clock: clock)
        clock.advance(by: 30)
        let pending = try #require(try await wire.signIn("end@example.com").string("mfaPendingCredential"))
        let signedIn = try await wire.v2("mfaSignIn:finalize", [
            "mfaPendingCredential": .string(pending), "mfaEnrollmentId": .string(enrollment),
            "totpVerificationInfo": ["verificationCode": .string(try totp.code(at: clock.now).revealed())],
        ])
        let idToken = try #require(signedIn.string("idToken"))
        let refreshToken = try #require(signedIn.string("refreshToken"))
        let unknown = try await wire.helper(.post, "accounts/\(localId):somethingElse", json: [:])
        let marked = try await wire.helper(.post, "accounts/\(localId):endSessionsOnMFAWithdraw", json: [:])
        clock.advance(by: 1)
        let withdraw = try await wire.v2("mfaEnrollment:withdraw", ["idToken": .string(idToken), "mfaEnrollmentId": .string(enrollment)])
        let refreshed = try await wire.refresh(refreshToken)
        let plain = try await wire.signIn("end@example.com")
        let unmarked = try await wire.helper(.post, "accounts/\(localId):endSessionsOnMFAWithdraw", json: ["enabled": false])
        await emulator.stop()

        #expect(unknown.status == 404)
        #expect(marked.status == 200 && marked.json == ["localId": .string(localId), "mfaWithdrawEndsSessions": true])
        #expect(withdraw.status == 200 && withdraw.json == [:], "no tokens")
        #expect(refreshed.error == "TOKEN_EXPIRED", "the session ended")
        #expect(plain.string("idToken") != nil, "the factor was removed")
        #expect(unmarked.json?["mfaWithdrawEndsSessions"] == false)
    }

    @Test func sensitiveChangesNeedASignInFromTheLastFiveMinutes() async throws {
        let clock = FakeClock()
        let emulator = try await Emulator.start(EmulatorConfiguration(clock: clock))
        let wire = FirebaseWire(emulator: emulator)
        let (_, idToken, refreshToken) = try await wire.signUp("old@example.com")
        clock.advance(by: 300)
        let atWindow = try await wire.accounts("update", ["idToken": .string(idToken), "displayName": "Still fine"])
        let atWindowPassword = try await wire.accounts("update", ["idToken": .string(idToken), "password": "new-secret-1", "returnSecureToken": true])
        let afterChange = try #require(atWindowPassword.string("idToken"))
        clock.advance(by: 1)
        let newRefresh = try #require(atWindowPassword.string("refreshToken"))
        let refreshed = try #require(try await wire.refresh(newRefresh).string("id_token"))
        let password = try await wire.accounts("update", ["idToken": .string(refreshed), "password": "new-secret-2", "returnSecureToken": true])
        let email = try await wire.accounts("update", ["idToken": .string(afterChange), "email": "new@example.com", "returnSecureToken": true])
        let sameEmail = try await wire.accounts("update", ["idToken": .string(afterChange), "email": "old@example.com", "displayName": "Profile"])
        let profile = try await wire.accounts("update", ["idToken": .string(afterChange), "displayName": "Profile only"])
        let delete = try await wire.accounts("delete", ["idToken": .string(afterChange)])
        let recent = try #require(try await wire.signIn("old@example.com", password: "new-secret-1").string("idToken"))
        let deleteRecent = try await wire.accounts("delete", ["idToken": .string(recent)])
        _ = refreshToken
        await emulator.stop()

        #expect(atWindow.status == 200)
        #expect(atWindowPassword.status == 200, "exactly 300 s is still recent")
        let tooOld = FirebaseWire.envelope("CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
        #expect(password.json == tooOld, "a refresh does not renew auth_time")
        #expect(email.json == tooOld)
        #expect(sameEmail.status == 200, "the same email is no change")
        #expect(profile.status == 200)
        #expect(delete.json == tooOld)
        #expect(deleteRecent.status == 200)
    }

    @Test func theRequireRecentLoginHookLastsUntilTheNextSignIn() async throws {
        let emulator = try await Emulator.start()
        let wire = FirebaseWire(emulator: emulator)
        let (localId, idToken, _) = try await wire.signUp("hook@example.com")
        let mark = try await wire.helper(.post, "accounts/\(localId):requireRecentLogin")
        let delete = try await wire.accounts("delete", ["idToken": .string(idToken)])
        let password = try await wire.accounts("update", ["idToken": .string(idToken), "password": "new-secret-1"])
        let unknown = try await wire.helper(.post, "accounts/nobody:requireRecentLogin")
        let otherAction = try await wire.helper(.post, "accounts/\(localId):somethingElse")
        let admin = try await wire.admin("update", ["localId": .string(localId), "password": "admin-set-1"])
        let fresh = try #require(try await wire.signIn("hook@example.com", password: "admin-set-1").string("idToken"))
        let afterSignIn = try await wire.accounts("update", ["idToken": .string(fresh), "password": "new-secret-2"])
        let markAgain = try await wire.helper(.post, "accounts/\(localId):requireRecentLogin", json: ["required": true])
        let unmark = try await wire.helper(.post, "accounts/\(localId):requireRecentLogin", json: ["required": false])
        let newest = try #require(try await wire.signIn("hook@example.com", password: "new-secret-2").string("idToken"))
        let deleteAfterUnmark = try await wire.accounts("delete", ["idToken": .string(newest)])
        await emulator.stop()

        #expect(mark.json == ["localId": .string(localId), "recentLoginRequired": true])
        #expect(delete.json == FirebaseWire.envelope("CREDENTIAL_TOO_OLD_LOGIN_AGAIN"))
        #expect(password.json == FirebaseWire.envelope("CREDENTIAL_TOO_OLD_LOGIN_AGAIN"))
        #expect(unknown.status == 404 && otherAction.status == 404)
        #expect(admin.status == 200, "admin calls present no sign-in to be too old")
        #expect(afterSignIn.status == 200, "a sign-in clears the mark")
        #expect(markAgain.status == 200 && unmark.json == ["localId": .string(localId), "recentLoginRequired": false])
        #expect(deleteAfterUnmark.status == 200)
    }

    @Test func atMostFiveFactorsAndPhoneFactorsAreNotServed() async throws {
        let clock = FakeClock()
        let emulator = try await Emulator.start(EmulatorConfiguration(clock: clock))
        let wire = FirebaseWire(emulator: emulator)
        try await wire.seed("five@example.com", extra: ["emailVerified": true])
        let idToken = try #require(try await wire.signIn("five@example.com").string("idToken"))
        var statuses: [Int] = []
        for _ in 0..<5 {
            let start = try await wire.v2("mfaEnrollment:start", ["idToken": .string(idToken), "totpEnrollmentInfo": [:]])
            let info = try #require(start["totpSessionInfo"])
            let totp = try TOTP(secret: Secret(try Base32.decode(try #require(info["sharedSecretKey"]?.stringValue))))
            let finalize = try await wire.v2("mfaEnrollment:finalize", [
                "idToken": .string(idToken),
                "totpVerificationInfo": ["sessionInfo": try #require(info["sessionInfo"]), "verificationCode": .string(try totp.code(at: clock.now).revealed())],
            ])
            statuses.append(finalize.status)
        }
        let sixth = try await wire.v2("mfaEnrollment:start", ["idToken": .string(idToken), "totpEnrollmentInfo": [:]])
        let phone = try await wire.v2("mfaEnrollment:start", ["idToken": .string(idToken), "phoneEnrollmentInfo": ["phoneNumber": "+15555550100"]])
        let phoneSignIn = try await wire.v2("mfaSignIn:start", ["mfaPendingCredential": "x", "mfaEnrollmentId": "y"])
        let noKey = try await wire.postJSON("/identitytoolkit.googleapis.com/v2/accounts/mfaEnrollment:start", ["idToken": .string(idToken)])
        await emulator.stop()

        #expect(statuses == [200, 200, 200, 200, 200])
        #expect(sixth.json == FirebaseWire.envelope("SECOND_FACTOR_LIMIT_EXCEEDED"))
        #expect(phone.status == 501 && phoneSignIn.status == 501)
        #expect(noKey.status == 403 && noKey.json?["error"]?["status"] == "PERMISSION_DENIED")
    }
}
