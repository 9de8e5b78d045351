import AuthHub
import AuthHubEmulator
import AuthHubTesting
import Foundation
import Testing

@Suite struct FirebaseTokenAndAPITests {
    @Test func refreshWithAFormBodyAnswersSnakeCase() async throws {
        let clock = FakeClock()
        let emulator = try await Emulator.start(EmulatorConfiguration(clock: clock))
        let wire = FirebaseWire(emulator: emulator)
        let (localId, _, refreshToken) = try await wire.signUp("refresh@example.com")
        let signUpAt = Int(clock.now.timeIntervalSince1970)
        clock.advance(by: 600)
        let reply = try await wire.refresh(refreshToken)
        let lookup = try await wire.lookup(try #require(reply.string("id_token")))
        await emulator.stop()

        #expect(reply.status == 200)
        let body = try #require(reply.json?.objectValue)
        #expect(Set(body.keys) == ["access_token", "expires_in", "token_type", "refresh_token", "id_token", "user_id", "project_id"])
        #expect(body["id_token"] == body["access_token"])
        #expect(body["expires_in"] == "3600")
        #expect(body["token_type"] == "Bearer")
        #expect(body["refresh_token"] == .string(refreshToken))
        #expect(body["user_id"] == .string(localId))
        let projectNumber = try #require(body["project_id"]?.stringValue)
        #expect(!projectNumber.isEmpty && projectNumber.allSatisfy(\.isNumber))
        let claims = try DecodedJWT(try #require(reply.string("id_token"))).payload
        #expect(claims["iat"] == .number(Double(signUpAt + 600)))
        #expect(claims["exp"] == .number(Double(signUpAt + 4200)))
        #expect(claims["auth_time"] == .number(Double(signUpAt)), "auth_time is stable across refreshes")
        #expect(claims["sub"] == .string(localId))
        #expect(lookup.json?["users"]?.arrayValue?.first?["lastRefreshAt"] != nil)
    }

    @Test func refreshAcceptsJSONInCamelCaseAndSnakeCase() async throws {
        let emulator = try await Emulator.start()
        let wire = FirebaseWire(emulator: emulator)
        let (localId, _, refreshToken) = try await wire.signUp("json@example.com")
        let path = "/securetoken.googleapis.com/v1/token?key=\(FirebaseWire.key)"
        let camel = try await wire.postJSON(path, ["grantType": "refresh_token", "refreshToken": .string(refreshToken)])
        let snake = try await wire.postJSON(path, ["grant_type": "refresh_token", "refresh_token": .string(refreshToken)])
        let mislabelled = try await wire.send(
            .post, path, headerFields: [.contentType: "application/x-www-form-urlencoded"],
            body: try JSONEncoder().encode(["grantType": "refresh_token", "refreshToken": refreshToken])
        )
        await emulator.stop()

        #expect(camel.status == 200)
        #expect(camel["user_id"] == .string(localId))
        #expect(snake.status == 200)
        #expect(snake["user_id"] == .string(localId))
        #expect(mislabelled["user_id"] == .string(localId), "a JSON body labelled as a form is still JSON")
    }

    @Test func refreshErrors() async throws {
        let emulator = try await Emulator.start()
        let wire = FirebaseWire(emulator: emulator)
        let (_, _, refreshToken) = try await wire.signUp("errors@example.com")
        let foreign = Data(#"{"_AuthEmulatorRefreshToken":"DO NOT MODIFY","localId":"x","projectId":"other","issuedAt":1}"#.utf8)
            .base64EncodedString()
        let cases: [([(String, String)], String)] = [
            ([("refresh_token", refreshToken)], "MISSING_GRANT_TYPE"),
            ([("grant_type", "password"), ("refresh_token", refreshToken)], "INVALID_GRANT_TYPE"),
            ([("grant_type", "refresh_token")], "MISSING_REFRESH_TOKEN"),
            ([("grant_type", "refresh_token"), ("refresh_token", "garbage")], "INVALID_REFRESH_TOKEN"),
            ([("grant_type", "refresh_token"), ("refresh_token", foreign)], "INVALID_REFRESH_TOKEN"),
        ]
        var replies: [FirebaseWire.Reply] = []
        for (fields, _) in cases { replies.append(try await wire.refreshForm(fields)) }
        await emulator.stop()

        for (index, (fields, message)) in cases.enumerated() {
            #expect(replies[index].json == FirebaseWire.envelope(message), "\(fields.map(\.0))")
        }
    }

    @Test func theAPIKeyIsRequiredInTheQueryOrHeader() async throws {
        let emulator = try await Emulator.start()
        let wire = FirebaseWire(emulator: emulator)
        let body: JSONValue = ["email": "key@example.com", "password": "secret-123"]
        let missing = try await wire.accounts("signUp", body, key: nil)
        let empty = try await wire.accounts("signUp", body, key: "")
        let tokenMissing = try await wire.postJSON("/securetoken.googleapis.com/v1/token", ["grantType": "refresh_token"])
        let header = try await wire.accounts("signUp", body, key: nil, headerFields: [HTTPField.Name.constant("x-goog-api-key"): "header-key"])
        await emulator.stop()

        let denied: JSONValue = [
            "error": [
                "code": 403, "message": "The request is missing a valid API key.", "status": "PERMISSION_DENIED",
                "errors": [["message": "The request is missing a valid API key.", "reason": "forbidden", "domain": "global"]],
            ]
        ]
        #expect(missing.status == 403)
        #expect(missing.json == denied)
        #expect(empty.json == denied)
        #expect(tokenMissing.json == denied)
        #expect(header.status == 200)
    }

    @Test func unreadableBodiesAreParseErrors() async throws {
        let emulator = try await Emulator.start()
        let wire = FirebaseWire(emulator: emulator)
        let path = "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=\(FirebaseWire.key)"
        let broken = try await wire.send(.post, path, headerFields: [.contentType: "application/json"], body: Data("{not json".utf8))
        let array = try await wire.send(.post, path, headerFields: [.contentType: "application/json"], body: Data("[1]".utf8))
        let wrongType = try await wire.accounts("signUp", ["email": 42, "password": "secret-123"])
        await emulator.stop()

        #expect(broken.status == 400)
        #expect(broken.json?["error"]?["status"] == "INVALID_ARGUMENT")
        #expect(broken.json?["error"]?["code"] == 400)
        #expect(broken.json?["error"]?["errors"]?.arrayValue?.first?["reason"] == "parseError")
        #expect(array.json?["error"]?["errors"]?.arrayValue?.first?["reason"] == "parseError")
        #expect(wrongType.status == 400)
        #expect(wrongType.json?["error"]?["status"] == "INVALID_ARGUMENT")
    }

    @Test func legacyV3NamesReachTheSameHandlers() async throws {
        let emulator = try await Emulator.start()
        let wire = FirebaseWire(emulator: emulator)
        let v3 = "/www.googleapis.com/identitytoolkit/v3/relyingparty/"
        let query = "?key=\(FirebaseWire.key)"
        let signUp = try await wire.postJSON(v3 + "signupNewUser" + query, ["email": "legacy@example.com", "password": "secret-123"])
        let signIn = try await wire.postJSON(v3 + "verifyPassword" + query, ["email": "legacy@example.com", "password": "secret-123"])
        let idToken = try #require(signIn.string("idToken"))
        let info = try await wire.postJSON(v3 + "getAccountInfo" + query, ["idToken": .string(idToken)])
        let set = try await wire.postJSON(v3 + "setAccountInfo" + query, ["idToken": .string(idToken), "displayName": "Old API"])
        let oob = try await wire.postJSON(v3 + "getOobConfirmationCode" + query, ["requestType": "PASSWORD_RESET", "email": "legacy@example.com"])
        let wrong = try await wire.postJSON(v3 + "verifyPassword" + query, ["email": "legacy@example.com", "password": "nope-nope"])
        let assertion = try await wire.postJSON(v3 + "verifyAssertion" + query, [:])
        let delete = try await wire.postJSON(v3 + "deleteAccount" + query, ["idToken": .string(idToken)])
        await emulator.stop()

        #expect(signUp["kind"] == "identitytoolkit#SignupNewUserResponse")
        #expect(signIn["kind"] == "identitytoolkit#VerifyPasswordResponse")
        #expect(info.json?["users"]?.arrayValue?.first?["email"] == "legacy@example.com")
        #expect(set["displayName"] == "Old API")
        #expect(oob["kind"] == "identitytoolkit#GetOobConfirmationCodeResponse")
        #expect(wrong.json == FirebaseWire.envelope("INVALID_PASSWORD"))
        #expect(assertion.status == 501)
        #expect(assertion.json?["error"]?["status"] == "NOT_IMPLEMENTED")
        #expect(delete["kind"] == "identitytoolkit#DeleteAccountResponse")
    }

    @Test func knownButUnservedOpsAre501AndUnknownOps404() async throws {
        let emulator = try await Emulator.start()
        let wire = FirebaseWire(emulator: emulator)
        let idp = try await wire.accounts("signInWithIdp", [:])
        let unknown = try await wire.accounts("noSuchOp", [:])
        await emulator.stop()

        #expect(idp.status == 501)
        #expect(idp.json?["error"]?["code"] == 501)
        #expect(idp.json?["error"]?["status"] == "NOT_IMPLEMENTED")
        #expect(unknown.status == 404)
        #expect(unknown.json?["error"]?["status"] == "NOT_FOUND")
    }

    @Test func helpersWipeAccountsAndServeOnlyTheirProject() async throws {
        let emulator = try await Emulator.start()
        let wire = FirebaseWire(emulator: emulator)
        let (_, idToken, _) = try await wire.signUp("wiped@example.com")
        _ = try await wire.accounts("sendOobCode", ["requestType": "PASSWORD_RESET", "email": "wiped@example.com"])
        let wipe = try await wire.helper(.delete, "accounts")
        let codes = try await wire.oobCodes()
        let signIn = try await wire.signIn("wiped@example.com")
        let lookup = try await wire.lookup(idToken)
        let again = try await wire.accounts("signUp", ["email": "wiped@example.com", "password": "secret-123"])
        let other = try await wire.send(.get, "/emulator/v1/projects/someone-else/oobCodes")
        let badConfig = try await wire.helper(.patch, "config", json: ["signIn": ["allowDuplicateEmails": "yes"]])
        let duplicates = try await wire.helper(.patch, "config", json: ["signIn": ["allowDuplicateEmails": true]])
        let duplicate = try await wire.accounts("signUp", ["email": "wiped@example.com", "password": "secret-123"])
        await emulator.stop()

        #expect(wipe.status == 200)
        #expect(wipe.json == [:])
        #expect(codes.isEmpty)
        #expect(signIn.json == FirebaseWire.envelope("EMAIL_NOT_FOUND"))
        #expect(lookup.json == FirebaseWire.envelope("USER_NOT_FOUND"))
        #expect(again.status == 200)
        #expect(other.status == 404)
        #expect(other.json?["error"]?["status"] == "NOT_FOUND")
        #expect(badConfig.status == 400)
        #expect(duplicates.json?["signIn"] == ["allowDuplicateEmails": true])
        #expect(duplicate.status == 200, "duplicates allowed by the config")
    }

    @Test func idTokensOfAnotherProjectAreInvalid() async throws {
        let emulator = try await Emulator(modules: [FirebaseEmulatorModule(projectId: "other-project")]).start()
        let wire = FirebaseWire(emulator: emulator)
        let reply = try await wire.accounts("signUp", ["email": "p@example.com", "password": "secret-123"])
        let idToken = try #require(reply.string("idToken"))
        let claims = try DecodedJWT(idToken).payload
        var forged = claims.objectValue ?? [:]
        forged["aud"] = "authhub-dev"
        let forgedToken = Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8)) + "."
            + Base64URL.encode(try JSONEncoder().encode(JSONValue.object(forged))) + "."
        let forgedLookup = try await wire.lookup(forgedToken)
        let helper = try await wire.send(.get, "/emulator/v1/projects/other-project/config")
        await emulator.stop()

        #expect(claims["aud"] == "other-project")
        #expect(claims["iss"] == "https://securetoken.google.com/other-project")
        #expect(forgedLookup.json == FirebaseWire.envelope("INVALID_ID_TOKEN"))
        #expect(helper.status == 200)
    }
}
