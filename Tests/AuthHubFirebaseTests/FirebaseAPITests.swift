import AuthHub
@_spi(Internals) @testable import AuthHubFirebase
import AuthHubTesting
import Foundation
import Testing

/// Every request of spec/firebase.md §3 — URL (production and emulator), method, headers, body —
/// and how the replies are read.
@Suite struct FirebaseAPITests {
    let transport = StubTransport()
    let clock = FakeClock()

    func api(_ configuration: FirebaseConfiguration = FB.production) -> FirebaseAPI {
        FirebaseAPI(providerID: "firebase", configuration: configuration, context: ProviderContext(transport: transport, clock: clock))
    }

    static let toolkit = "https://identitytoolkit.googleapis.com/v1/accounts:"

    /// Stubs `accounts:<op>` with a reply and returns nothing; requests are read from the transport.
    func stub(_ op: String, _ reply: JSONValue) {
        transport.on(.post, "/v1/accounts:\(op)") { _ in .json(200, reply) }
    }

    func only(_ op: String) throws -> StubTransport.Request {
        let requests = transport.requests.filter { $0.url.path.hasSuffix("accounts:\(op)") }
        #expect(requests.count == 1)
        return try #require(requests.first)
    }

    func expectJSONPost(_ request: StubTransport.Request, url: String) {
        #expect(request.method == .post)
        #expect(request.url.absoluteString == url)
        #expect(request.headerFields["Content-Type"] == "application/json")
        #expect(transport.unmatchedRequests.isEmpty)
    }

    @Test func urlsInProductionAndWithTheEmulator() {
        #expect(FirebaseAPI.identityToolkitBaseURL(FB.production).absoluteString == "https://identitytoolkit.googleapis.com/v1/")
        #expect(FirebaseAPI.secureTokenBaseURL(FB.production).absoluteString == "https://securetoken.googleapis.com/v1/")
        #expect(FirebaseAPI.identityToolkitBaseURL(FB.emulator).absoluteString == "http://127.0.0.1:9099/identitytoolkit.googleapis.com/v1/")
        #expect(FirebaseAPI.secureTokenBaseURL(FB.emulator).absoluteString == "http://127.0.0.1:9099/securetoken.googleapis.com/v1/")
    }

    @Test func signUpSendsExactlyTheSpecFields() async throws {
        stub("signUp", try await FB.tokenReply(now: clock.now))
        let tokens = try await api().signUp(email: "a@example.com", password: Secret("pw-123456"), displayName: "Ada")
        let request = try only("signUp")
        expectJSONPost(request, url: Self.toolkit + "signUp?key=AIza-test-key")
        #expect(request.jsonBody == ["email": "a@example.com", "password": "pw-123456", "returnSecureToken": true, "displayName": "Ada"])
        #expect(tokens.localID == "uid-1" && tokens.refreshToken.revealed() == "rt-1" && tokens.expiresIn == 3600)
    }

    @Test func signInWithPasswordInProductionWithATenantAndWithTheEmulator() async throws {
        stub("signInWithPassword", try await FB.tokenReply(now: clock.now, extra: ["profilePicture": "https://p/x.png"]))
        let tokens = try await api(FB.tenant).signInWithPassword(email: "a@example.com", password: Secret("pw"))
        let request = try only("signInWithPassword")
        expectJSONPost(request, url: Self.toolkit + "signInWithPassword?key=AIza-test-key")
        #expect(request.jsonBody == ["email": "a@example.com", "password": "pw", "returnSecureToken": true, "tenantId": "tenant-1"])
        #expect(tokens.registered == true && tokens.photoURL == "https://p/x.png")

        let emulator = StubTransport()
        emulator.on(.post, "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword") { _ in
            try await .json(200, FB.tokenReply(now: Date(), unsigned: true))
        }
        let emulated = FirebaseAPI(providerID: "firebase", configuration: FB.emulator, context: ProviderContext(transport: emulator, clock: clock))
        _ = try await emulated.signInWithPassword(email: "a@example.com", password: Secret("pw"))
        let sent = try #require(emulator.requests.first)
        #expect(sent.url.absoluteString == "http://127.0.0.1:9099/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=any")
        #expect(sent.jsonBody == ["email": "a@example.com", "password": "pw", "returnSecureToken": true])
    }

    @Test func anMFAReplyIsMFARequired() async throws {
        stub("signInWithPassword", [
            "kind": "identitytoolkit#VerifyPasswordResponse", "localId": "uid-1", "email": "a@example.com",
            "mfaPendingCredential": "pending-cred",
            "mfaInfo": [["mfaEnrollmentId": "enr-1", "displayName": "phone", "phoneInfo": "+*******1234", "enrolledAt": "2026-01-01T00:00:00Z"],
                        ["mfaEnrollmentId": "enr-2", "totpInfo": [:]]],
        ])
        let error = await #expect(throws: AuthError(.mfaRequired)) {
            try await api().signInWithPassword(email: "a@example.com", password: Secret("pw"))
        }
        #expect(error?.mfa?.token.revealed() == "pending-cred")
        #expect(error?.mfa?.challengeTypes == ["phone", "totp"])
        #expect(error?.details["mfaEnrollmentIds"] == "enr-1,enr-2")
        #expect(!(error?.description.contains("pending-cred") ?? true))
    }

    @Test func refreshIsAFormPostReadingSnakeCase() async throws {
        transport.on(.post, "/v1/token") { _ in try await .json(200, FB.refreshReply(now: Date(timeIntervalSince1970: 1_767_225_600))) }
        let reply = try await api().refresh(refreshToken: Secret("rt/1+=&"))
        let request = try #require(transport.requests.first)
        #expect(request.method == .post)
        #expect(request.url.absoluteString == "https://securetoken.googleapis.com/v1/token?key=AIza-test-key")
        #expect(request.headerFields["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(String(decoding: request.body ?? Data(), as: UTF8.self) == "grant_type=refresh_token&refresh_token=rt%2F1%2B%3D%26")
        #expect(request.formBody == ["grant_type": "refresh_token", "refresh_token": "rt/1+=&"])
        #expect(reply.refreshToken?.revealed() == "rt-2" && reply.expiresIn == 3600 && reply.userID == "uid-1")
        #expect(reply.projectNumber == "1234567890" && reply.tokenType == "Bearer" && !reply.idToken.isEmpty)

        let emulator = StubTransport()
        emulator.on(.post, "/securetoken.googleapis.com/v1/token") { _ in .json(200, ["id_token": "x.y.", "expires_in": "3600"]) }
        let emulated = FirebaseAPI(providerID: "firebase", configuration: FB.emulator, context: ProviderContext(transport: emulator, clock: clock))
        let unchanged = try await emulated.refresh(refreshToken: Secret("rt"))
        #expect(emulator.requests.first?.url.absoluteString == "http://127.0.0.1:9099/securetoken.googleapis.com/v1/token?key=any")
        #expect(unchanged.refreshToken == nil, "a reply without refresh_token keeps the stored one (decided by the caller)")
    }

    @Test func oobCodes() async throws {
        stub("sendOobCode", ["kind": "identitytoolkit#GetOobConfirmationCodeResponse", "email": "a@example.com"])
        let api = api(FB.tenant)
        #expect(try await api.sendPasswordResetEmail(email: "a@example.com", locale: "fr") == "a@example.com")
        try await api.sendEmailVerification(idToken: Secret("id-tok"))
        try await api.sendVerifyAndChangeEmail(idToken: Secret("id-tok"), newEmail: "b@example.com", continueURL: "https://app/x")
        let sent = transport.requests
        #expect(sent.count == 3)
        for request in sent { expectJSONPost(request, url: Self.toolkit + "sendOobCode?key=AIza-test-key") }
        #expect(sent[0].jsonBody == ["requestType": "PASSWORD_RESET", "email": "a@example.com", "tenantId": "tenant-1"])
        #expect(sent[0].headerFields["X-Firebase-Locale"] == "fr")
        // Both SDKs add tenantId to every sendOobCode (firebase-js-sdk `sendOobCode` → `_addTidIfNecessary`).
        #expect(sent[1].jsonBody == ["requestType": "VERIFY_EMAIL", "idToken": "id-tok", "tenantId": "tenant-1"])
        #expect(sent[1].headerFields["X-Firebase-Locale"] == nil)
        #expect(sent[2].jsonBody == ["requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": "id-tok", "newEmail": "b@example.com",
                                     "continueUrl": "https://app/x", "tenantId": "tenant-1"])
    }

    @Test func resetPasswordVerifyAndConfirm() async throws {
        stub("resetPassword", ["kind": "identitytoolkit#ResetPasswordResponse", "email": "a@example.com", "requestType": "PASSWORD_RESET"])
        let info = try await api().verifyPasswordResetCode(Secret("oob-1"))
        #expect(info.email == "a@example.com" && info.requestType == "PASSWORD_RESET")
        _ = try await api(FB.tenant).confirmPasswordReset(code: Secret("oob-1"), newPassword: Secret("new-pw"))
        _ = try await api(FB.tenant).verifyPasswordResetCode(Secret("oob-1"))
        let sent = transport.requests
        // resetPassword carries tenantId whether it only checks the code or sets the password (both SDKs).
        #expect(sent.map(\.jsonBody) == [["oobCode": "oob-1"], ["oobCode": "oob-1", "newPassword": "new-pw", "tenantId": "tenant-1"],
                                         ["oobCode": "oob-1", "tenantId": "tenant-1"]])
        for request in sent { expectJSONPost(request, url: Self.toolkit + "resetPassword?key=AIza-test-key") }
    }

    @Test func accountUpdates() async throws {
        let tokens = try await FB.tokenReply(now: clock.now, refreshToken: "rt-new")
        transport.on(.post, "/v1/accounts:update", where: { $0.jsonBody?["displayName"] != nil || $0.jsonBody?["deleteAttribute"] != nil }) { _ in
            .json(200, ["localId": "uid-1", "email": "a@example.com", "displayName": "Ada", "providerUserInfo": [["providerId": "password"]]])
        }
        transport.on(.post, "/v1/accounts:update", where: { $0.jsonBody?["oobCode"] != nil }) { _ in
            .json(200, ["localId": "uid-1", "email": "a@example.com", "emailVerified": true])
        }
        transport.on(.post, "/v1/accounts:update") { _ in .json(200, tokens) }
        let api = api()
        let verified = try await api.applyActionCode(Secret("oob-2"))
        #expect(verified.emailVerified == true && verified.tokens == nil)
        let password = try await api.updatePassword(idToken: Secret("id-1"), newPassword: Secret("pw-2"))
        #expect(password.tokens?.refreshToken.revealed() == "rt-new")
        _ = try await api.updateEmail(idToken: Secret("id-1"), newEmail: "b@example.com")
        let profile = try await api.updateProfile(idToken: Secret("id-1"), displayName: .set("Ada"), photoURL: .remove)
        #expect(profile.displayName == "Ada" && profile.providers.map(\.providerID) == ["password"] && profile.tokens == nil)
        _ = try await api.updateProfile(idToken: Secret("id-1"), displayName: .remove, photoURL: .set("https://p/y.png"))
        let sent = transport.requests
        for request in sent { expectJSONPost(request, url: Self.toolkit + "update?key=AIza-test-key") }
        #expect(sent.map(\.jsonBody) == [
            ["oobCode": "oob-2"],
            ["idToken": "id-1", "password": "pw-2", "returnSecureToken": true],
            ["idToken": "id-1", "email": "b@example.com", "returnSecureToken": true],
            ["idToken": "id-1", "displayName": "Ada", "deleteAttribute": ["PHOTO_URL"], "returnSecureToken": true],
            ["idToken": "id-1", "photoUrl": "https://p/y.png", "deleteAttribute": ["DISPLAY_NAME"], "returnSecureToken": true],
        ])
    }

    /// firebase-ios-sdk's `SetAccountInfoRequest` adds `tenantId` to every `accounts:update` (and
    /// firebase-js-sdk to applying a code); neither adds it to `lookup` or `delete`.
    @Test func accountUpdatesCarryTheTenantAndLookupAndDeleteDoNot() async throws {
        let tokens = try await FB.tokenReply(now: clock.now, refreshToken: "rt-new")
        transport.on(.post, "/v1/accounts:update", where: { $0.jsonBody?["oobCode"] != nil || $0.jsonBody?["displayName"] != nil }) { _ in
            .json(200, ["localId": "uid-1", "email": "a@example.com", "emailVerified": true])
        }
        transport.on(.post, "/v1/accounts:update") { _ in .json(200, tokens) }
        stub("lookup", ["kind": "identitytoolkit#GetAccountInfoResponse", "users": [["localId": "uid-1"]]])
        stub("delete", ["kind": "identitytoolkit#DeleteAccountResponse"])
        let api = api(FB.tenant)
        _ = try await api.applyActionCode(Secret("oob-2"))
        _ = try await api.updatePassword(idToken: Secret("id-1"), newPassword: Secret("pw-2"))
        _ = try await api.updateEmail(idToken: Secret("id-1"), newEmail: "b@example.com")
        _ = try await api.updateProfile(idToken: Secret("id-1"), displayName: .set("Ada"))
        _ = try await api.lookup(idToken: Secret("id-1"))
        try await api.deleteAccount(idToken: Secret("id-1"))
        #expect(transport.requests.map(\.jsonBody) == [
            ["oobCode": "oob-2", "tenantId": "tenant-1"],
            ["idToken": "id-1", "password": "pw-2", "returnSecureToken": true, "tenantId": "tenant-1"],
            ["idToken": "id-1", "email": "b@example.com", "returnSecureToken": true, "tenantId": "tenant-1"],
            ["idToken": "id-1", "displayName": "Ada", "returnSecureToken": true, "tenantId": "tenant-1"],
            ["idToken": "id-1"],
            ["idToken": "id-1"],
        ])
    }

    @Test func lookupReadsEveryUserInfoFieldTolerantly() async throws {
        stub("lookup", ["kind": "identitytoolkit#GetAccountInfoResponse", "users": [[
            "localId": "uid-1", "email": "a@example.com", "emailVerified": true, "displayName": "Ada", "photoUrl": "https://p/x.png",
            "phoneNumber": "+15555550100", "passwordHash": "UkVEQUNURUQ=", "passwordUpdatedAt": 1_767_225_600_000,
            "validSince": "1767225600", "disabled": false, "lastLoginAt": "1767225600000", "createdAt": "1767225500000",
            "lastRefreshAt": "2026-01-01T00:00:00.000Z", "customAttributes": #"{"role":"admin"}"#, "tenantId": "tenant-1",
            "mfaInfo": [["mfaEnrollmentId": "enr-1", "phoneInfo": "+*******0100"]],
            "providerUserInfo": [["providerId": "password", "rawId": "a@example.com", "federatedId": "a@example.com", "email": "a@example.com"]],
            "somethingNew": 1,
        ]]])
        let user = try await api().lookup(idToken: Secret("id-1"))
        expectJSONPost(try only("lookup"), url: Self.toolkit + "lookup?key=AIza-test-key")
        #expect(transport.requests.first?.jsonBody == ["idToken": "id-1"])
        #expect(user.uid == "uid-1" && user.emailVerified && user.displayName == "Ada" && user.phoneNumber == "+15555550100")
        #expect(user.createdAt == Date(timeIntervalSince1970: 1_767_225_500) && user.lastLoginAt == Date(timeIntervalSince1970: 1_767_225_600))
        #expect(user.passwordUpdatedAt == Date(timeIntervalSince1970: 1_767_225_600) && user.validSince == Date(timeIntervalSince1970: 1_767_225_600))
        #expect(user.customAttributes == #"{"role":"admin"}"# && user.tenantID == "tenant-1" && user.disabled == false)
        #expect(user.mfaEnrollments.map(\.factor) == ["phone"] && user.providerIDs == ["password"])
        #expect(user.raw["passwordHash"] == nil && user.raw["somethingNew"] == 1)
        #expect(user.userInfo.id == "uid-1" && user.userInfo.email == "a@example.com" && user.userInfo.emailVerified == true)

        let minimal = try JSONDecoder().decode(FirebaseUser.self, from: Data(#"{"localId":"u"}"#.utf8))
        #expect(minimal.email == nil && !minimal.emailVerified && minimal.providers.isEmpty)
    }

    @Test func lookupWithoutUsersAndDelete() async throws {
        stub("lookup", ["kind": "identitytoolkit#GetAccountInfoResponse"])
        await #expect(throws: AuthError(.userNotFound)) { try await api().lookup(idToken: Secret("id-1")) }
        stub("delete", ["kind": "identitytoolkit#DeleteAccountResponse"])
        try await api().deleteAccount(idToken: Secret("id-1"))
        let request = try only("delete")
        expectJSONPost(request, url: Self.toolkit + "delete?key=AIza-test-key")
        #expect(request.jsonBody == ["idToken": "id-1"])
    }

    @Test func errorRepliesGoThroughTheMapper() async throws {
        transport.on(.post, "/v1/accounts:signUp") { _ in .json(400, FB.error("WEAK_PASSWORD : Password should be at least 6 characters")) }
        let error = await #expect(throws: AuthError(.weakPassword)) {
            try await api().signUp(email: "a@example.com", password: Secret("123"))
        }
        #expect(error?.message == "Password should be at least 6 characters" && error?.provider == "firebase")
        #expect(transport.requests.count == 1, "a 400 is not retried")
        transport.on(.post, "/v1/token") { _ in .json(400, ["error": ["code": 400, "message": "USER_DISABLED", "status": "INVALID_ARGUMENT"]]) }
        let refresh = await #expect(throws: AuthError(.refreshTokenInvalid)) { try await api().refresh(refreshToken: Secret("rt")) }
        #expect(refresh?.providerCode == "USER_DISABLED")
    }

    @Test func secretsStayOutOfLogsAndErrors() async throws {
        transport.on(.post, "/v1/accounts:signInWithPassword") { _ in .raw(200, "not json") }
        let error = await #expect(throws: AuthError(.invalidRequest)) {
            try await api().signInWithPassword(email: "a@example.com", password: Secret("hunter2"))
        }
        #expect(!(error?.description.contains("hunter2") ?? true))
    }
}
