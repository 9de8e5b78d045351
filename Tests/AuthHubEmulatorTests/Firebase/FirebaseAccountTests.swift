import AuthHub
import AuthHubEmulator
import AuthHubTesting
import Foundation
import Testing

@Suite struct FirebaseAccountTests {
    /// Identity Platform tenants: each has its own accounts; `tenantId` must name a configured one;
    /// where the SDKs send it for an existing account, a call that names another tenant (or none)
    /// is `TENANT_ID_MISMATCH`; lookups are not checked.
    @Test func tenantsHaveTheirOwnAccountsAndCallsMustNameTheAccountsTenant() async throws {
        let emulator = try await Emulator.start()
        let wire = FirebaseWire(emulator: emulator)
        let badTenants = try await wire.helper(.patch, "config", json: ["tenants": ["has space"]])
        let tooMany = try await wire.helper(.patch, "config", json: ["tenants": .array((0...100).map { .string("t\($0)") })])
        let config = try await wire.helper(.patch, "config", json: ["tenants": ["tenant-a", "tenant-b"]])
        let unknown = try await wire.accounts("signUp", ["email": "t@example.com", "password": "secret-123", "tenantId": "nope"])
        let inA = try await wire.accounts("signUp", ["email": "t@example.com", "password": "secret-123", "tenantId": "tenant-a",
                                                     "returnSecureToken": true])
        let inProject = try await wire.accounts("signUp", ["email": "t@example.com", "password": "secret-123", "returnSecureToken": true])
        let idToken = try #require(inA.string("idToken"))
        let claims = try DecodedJWT(idToken).payload
        let signInB = try await wire.accounts("signInWithPassword", ["email": "t@example.com", "password": "secret-123", "tenantId": "tenant-b"])
        let signInA = try await wire.accounts("signInWithPassword", ["email": "t@example.com", "password": "secret-123", "tenantId": "tenant-a"])
        let verifyNone = try await wire.accounts("sendOobCode", ["requestType": "VERIFY_EMAIL", "idToken": .string(idToken)])
        let verifyB = try await wire.accounts("sendOobCode", ["requestType": "VERIFY_EMAIL", "idToken": .string(idToken), "tenantId": "tenant-b"])
        let verifyA = try await wire.accounts("sendOobCode", ["requestType": "VERIFY_EMAIL", "idToken": .string(idToken), "tenantId": "tenant-a"])
        let code = try #require(try await wire.oobCodes().last?["oobCode"]?.stringValue)
        let applyNone = try await wire.accounts("update", ["oobCode": .string(code)])
        let applyA = try await wire.accounts("update", ["oobCode": .string(code), "tenantId": "tenant-a"])
        let profileNone = try await wire.accounts("update", ["idToken": .string(idToken), "displayName": "T"])
        let lookup = try await wire.lookup(idToken)
        let resetNone = try await wire.accounts("sendOobCode", ["requestType": "PASSWORD_RESET", "email": "t@example.com"])
        let resetA = try await wire.accounts("sendOobCode", ["requestType": "PASSWORD_RESET", "email": "t@example.com", "tenantId": "tenant-a"])
        let resetCode = try #require(try await wire.oobCodes().last?["oobCode"]?.stringValue)
        let checkNone = try await wire.accounts("resetPassword", ["oobCode": .string(resetCode)])
        let checkA = try await wire.accounts("resetPassword", ["oobCode": .string(resetCode), "tenantId": "tenant-a"])
        await emulator.stop()

        #expect(badTenants.status == 400 && tooMany.status == 400)
        #expect(config.json?["tenants"] == ["tenant-a", "tenant-b"])
        #expect(unknown.error == "INVALID_TENANT_ID")
        #expect(inA.status == 200 && inProject.status == 200, "one address, two pools")
        #expect(inA.string("localId") != inProject.string("localId"))
        #expect(claims["firebase"]?["tenant"] == "tenant-a")
        #expect(signInB.error == "EMAIL_NOT_FOUND" && signInA.status == 200)
        #expect(verifyNone.error == "TENANT_ID_MISMATCH" && verifyB.error == "TENANT_ID_MISMATCH" && verifyA.status == 200)
        #expect(applyNone.error == "TENANT_ID_MISMATCH" && applyA.status == 200)
        #expect(profileNone.error == "TENANT_ID_MISMATCH")
        #expect(lookup.status == 200 && lookup.json?["users"]?.arrayValue?.first?["tenantId"] == "tenant-a")
        #expect(resetNone.status == 200, "the project's own account of that address")
        #expect(resetA.status == 200)
        #expect(checkNone.error == "TENANT_ID_MISMATCH" && checkA.status == 200)
    }

    @Test func changingThePasswordReturnsNewTokensAndExpiresTheOldOnes() async throws {
        let clock = FakeClock()
        let emulator = try await Emulator.start(EmulatorConfiguration(clock: clock))
        let wire = FirebaseWire(emulator: emulator)
        let (localId, oldIdToken, oldRefresh) = try await wire.signUp("change@example.com")
        let signUpAt = Int(clock.now.timeIntervalSince1970)
        clock.advance(by: 5)
        let weak = try await wire.accounts("update", ["idToken": .string(oldIdToken), "password": "12345"])
        let update = try await wire.accounts("update", [
            "idToken": .string(oldIdToken), "password": "new-secret-456", "returnSecureToken": true,
        ])
        let newIdToken = try #require(update.string("idToken"))
        let newRefresh = try #require(update.string("refreshToken"))
        let oldLookup = try await wire.lookup(oldIdToken)
        let newLookup = try await wire.lookup(newIdToken)
        let oldRefreshReply = try await wire.refresh(oldRefresh)
        let newRefreshReply = try await wire.refresh(newRefresh)
        let signIn = try await wire.signIn("change@example.com", password: "new-secret-456")
        await emulator.stop()

        #expect(weak.json == FirebaseWire.envelope("WEAK_PASSWORD : Password should be at least 6 characters"))
        #expect(update.status == 200)
        #expect(update["kind"] == "identitytoolkit#SetAccountInfoResponse")
        #expect(update["localId"] == .string(localId))
        #expect(update["expiresIn"] == "3600")
        let claims = try DecodedJWT(newIdToken).payload
        #expect(claims["iat"] == .number(Double(signUpAt + 5)))
        #expect(claims["auth_time"] == .number(Double(signUpAt)), "auth_time stays the original sign-in's")
        #expect(oldLookup.json == FirebaseWire.envelope("TOKEN_EXPIRED"))
        #expect(newLookup.status == 200)
        #expect(newLookup.json?["users"]?.arrayValue?.first?["validSince"] == .string(String(signUpAt + 5)))
        #expect(oldRefreshReply.json == FirebaseWire.envelope("TOKEN_EXPIRED"))
        #expect(newRefreshReply.status == 200)
        #expect(signIn.status == 200)
    }

    @Test func changingTheEmailReturnsTokensAndUnverifiesIt() async throws {
        let clock = FakeClock()
        let emulator = try await Emulator.start(EmulatorConfiguration(clock: clock))
        let wire = FirebaseWire(emulator: emulator)
        try await wire.seed("taken@example.com")
        try await wire.seed("old@example.com", extra: ["emailVerified": true])
        let idToken = try #require(try await wire.signIn("old@example.com").string("idToken"))
        clock.advance(by: 5)
        let invalid = try await wire.accounts("update", ["idToken": .string(idToken), "email": "bad"])
        let taken = try await wire.accounts("update", ["idToken": .string(idToken), "email": "Taken@example.com"])
        let update = try await wire.accounts("update", ["idToken": .string(idToken), "email": "New@Example.com", "returnSecureToken": true])
        let old = try await wire.lookup(idToken)
        let fresh = try await wire.lookup(try #require(update.string("idToken")))
        let oldSignIn = try await wire.signIn("old@example.com")
        await emulator.stop()

        #expect(invalid.json == FirebaseWire.envelope("INVALID_EMAIL"))
        #expect(taken.json == FirebaseWire.envelope("EMAIL_EXISTS"))
        #expect(update["email"] == "new@example.com")
        #expect(update["emailVerified"] == false)
        #expect(update["refreshToken"] != nil)
        #expect(old.json == FirebaseWire.envelope("TOKEN_EXPIRED"))
        let user = fresh.json?["users"]?.arrayValue?.first
        #expect(user?["email"] == "new@example.com")
        #expect(user?["emailVerified"] == false)
        #expect(oldSignIn.json == FirebaseWire.envelope("EMAIL_NOT_FOUND"))
    }

    @Test func profileChangesReturnNoTokensAndDeleteAttributeClears() async throws {
        let emulator = try await Emulator.start()
        let wire = FirebaseWire(emulator: emulator)
        let (_, idToken, _) = try await wire.signUp("profile@example.com")
        let set = try await wire.accounts("update", [
            "idToken": .string(idToken), "displayName": "Grace", "photoUrl": "https://example.com/g.png", "returnSecureToken": true,
        ])
        let afterSet = try await wire.lookup(idToken)
        let clear = try await wire.accounts("update", ["idToken": .string(idToken), "deleteAttribute": ["DISPLAY_NAME"]])
        let afterClear = try await wire.lookup(idToken)
        let signIn = try await wire.signIn("profile@example.com")
        await emulator.stop()

        #expect(set.status == 200)
        #expect(set["displayName"] == "Grace")
        #expect(set["photoUrl"] == "https://example.com/g.png")
        #expect(set["idToken"] == nil)
        #expect(set["refreshToken"] == nil)
        #expect(afterSet.status == 200, "a profile change does not revoke tokens")
        #expect(afterSet.json?["users"]?.arrayValue?.first?["displayName"] == "Grace")
        #expect(clear["displayName"] == nil)
        #expect(clear["photoUrl"] == "https://example.com/g.png")
        #expect(afterClear.json?["users"]?.arrayValue?.first?["displayName"] == nil)
        #expect(signIn["profilePicture"] == "https://example.com/g.png")
        let claims = try DecodedJWT(try #require(signIn.string("idToken"))).payload
        #expect(claims["picture"] == "https://example.com/g.png")
        #expect(claims["name"] == nil)
    }

    @Test func lookupReportsTheUserInfoFields() async throws {
        let clock = FakeClock()
        let emulator = try await Emulator.start(EmulatorConfiguration(clock: clock))
        let wire = FirebaseWire(emulator: emulator)
        let (localId, idToken, _) = try await wire.signUp("look@example.com", password: "very-secret-password")
        let millis = String(Int64(clock.now.timeIntervalSince1970 * 1000))
        let lookup = try await wire.lookup(idToken)
        let missing = try await wire.accounts("lookup", [:])
        let garbage = try await wire.lookup("a.b.c")
        let adminById = try await wire.admin("lookup", ["localId": [.string(localId)]])
        let adminByEmail = try await wire.admin("lookup", ["email": ["LOOK@example.com"]])
        let adminNone = try await wire.admin("lookup", ["localId": ["nobody"]])
        let nonAdmin = try await wire.accounts("lookup", ["localId": [.string(localId)]])
        await emulator.stop()

        #expect(lookup["kind"] == "identitytoolkit#GetAccountInfoResponse")
        let user = try #require(lookup.json?["users"]?.arrayValue?.first)
        #expect(user == [
            "localId": .string(localId), "email": "look@example.com", "emailVerified": false,
            "passwordHash": "UkVEQUNURUQ=", "passwordUpdatedAt": .number(Double(millis) ?? 0),
            "validSince": .string(String(Int(clock.now.timeIntervalSince1970))), "disabled": false,
            "createdAt": .string(millis), "lastLoginAt": .string(millis),
            "providerUserInfo": [[
                "providerId": "password", "rawId": "look@example.com", "federatedId": "look@example.com", "email": "look@example.com",
            ]],
        ])
        #expect(!lookup.body.contains(Data("very-secret-password".utf8)))
        #expect(missing.json == FirebaseWire.envelope("MISSING_ID_TOKEN"))
        #expect(garbage.json == FirebaseWire.envelope("INVALID_ID_TOKEN"))
        #expect(adminById.json?["users"]?.arrayValue?.first?["localId"] == .string(localId))
        #expect(adminByEmail.json?["users"]?.arrayValue?.count == 1)
        #expect(adminNone.json == ["kind": "identitytoolkit#GetAccountInfoResponse"], "users is left out when none match")
        #expect(nonAdmin.json == FirebaseWire.envelope("MISSING_ID_TOKEN"), "localId lookups are for privileged callers")
    }

    @Test func deleteRemovesTheAccount() async throws {
        let emulator = try await Emulator.start()
        let wire = FirebaseWire(emulator: emulator)
        let (_, idToken, refreshToken) = try await wire.signUp("gone@example.com")
        let other = try await wire.seed("other@example.com")
        let missing = try await wire.accounts("delete", [:])
        let delete = try await wire.accounts("delete", ["idToken": .string(idToken)])
        let lookup = try await wire.lookup(idToken)
        let again = try await wire.accounts("delete", ["idToken": .string(idToken)])
        let refresh = try await wire.refresh(refreshToken)
        let signIn = try await wire.signIn("gone@example.com")
        let adminDelete = try await wire.admin("delete", ["localId": .string(other)])
        let adminUnknown = try await wire.admin("delete", ["localId": .string(other)])
        await emulator.stop()

        #expect(missing.json == FirebaseWire.envelope("MISSING_ID_TOKEN"))
        #expect(delete.json == ["kind": "identitytoolkit#DeleteAccountResponse"])
        #expect(lookup.json == FirebaseWire.envelope("USER_NOT_FOUND"))
        #expect(again.json == FirebaseWire.envelope("USER_NOT_FOUND"))
        #expect(refresh.json == FirebaseWire.envelope("INVALID_REFRESH_TOKEN"))
        #expect(signIn.json == FirebaseWire.envelope("EMAIL_NOT_FOUND"))
        #expect(adminDelete.json == ["kind": "identitytoolkit#DeleteAccountResponse"])
        #expect(adminUnknown.json == FirebaseWire.envelope("USER_NOT_FOUND"))
    }

    @Test func disabledUsersAreRefusedEverywhere() async throws {
        let emulator = try await Emulator.start()
        let wire = FirebaseWire(emulator: emulator)
        try await wire.seed("seeded-off@example.com", extra: ["disabled": true])
        let (localId, idToken, refreshToken) = try await wire.signUp("later-off@example.com")
        let seededSignIn = try await wire.signIn("seeded-off@example.com")
        let disable = try await wire.admin("update", ["localId": .string(localId), "disableUser": true])
        let selfEnable = try await wire.accounts("update", ["idToken": .string(idToken), "disableUser": false])
        let lookup = try await wire.lookup(idToken)
        let refresh = try await wire.refresh(refreshToken)
        let signIn = try await wire.signIn("later-off@example.com")
        let adminLookup = try await wire.admin("lookup", ["localId": [.string(localId)]])
        await emulator.stop()

        #expect(seededSignIn.json == FirebaseWire.envelope("USER_DISABLED"))
        #expect(disable.status == 200)
        #expect(disable["idToken"] == nil)
        #expect(selfEnable.json == FirebaseWire.envelope("USER_DISABLED"))
        #expect(lookup.json == FirebaseWire.envelope("USER_DISABLED"))
        #expect(refresh.json == FirebaseWire.envelope("USER_DISABLED"))
        #expect(signIn.json == FirebaseWire.envelope("USER_DISABLED"))
        #expect(adminLookup.json?["users"]?.arrayValue?.first?["disabled"] == true)
    }
}
