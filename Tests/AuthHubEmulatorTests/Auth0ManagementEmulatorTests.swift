import AuthHub
import AuthHubEmulator
import AuthHubTesting
import Foundation
import Testing

@Suite struct Auth0ManagementEmulatorTests {
    /// `/auth0/api/v2/users/<percent-encoded id>`.
    func userPath(_ userId: String) -> String { "/auth0/api/v2/users/\(pathEncoded(userId))" }

    @Test func getWithFieldsAndPatchMergesMetadata() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        let seeded = try await wire.seed("meta@example.com", extra: ["user_metadata": ["theme": "dark", "lang": "en"], "name": "Meta User"])
        let userId = try #require(seeded["user_id"]?.stringValue)
        let token = try await wire.apiToken("meta@example.com", audience: wire.managementAudience, scope: Auth0Wire.managementScopes)

        let full = try await wire.call(.get, userPath(userId), token: token)
        let only = try await wire.call(.get, userPath(userId) + "?fields=email%2Cuser_id&include_fields=true", token: token)
        let without = try await wire.call(.get, userPath(userId) + "?fields=email,identities&include_fields=false", token: token)
        let includeAlone = try await wire.call(.get, userPath(userId) + "?include_fields=false", token: token)
        let patched = try await wire.call(.patch, userPath(userId), token: token,
                                          json: ["user_metadata": ["theme": .null, "color": "blue", "lang": "fr"]])
        let refetched = try await wire.call(.get, userPath(userId), token: token)
        let forbiddenAttribute = try await wire.call(.patch, userPath(userId), token: token, json: ["email": "new@example.com"])
        let notAnObject = try await wire.call(.patch, userPath(userId), token: token, json: ["user_metadata": "flat"])
        await emulator.stop()

        #expect(full.status == 200)
        let user = try #require(full.json)
        #expect(user["user_id"]?.stringValue == userId)
        #expect(user["email"] == "meta@example.com")
        #expect(user["email_verified"] == true)
        #expect(user["name"] == "Meta User")
        #expect(user["nickname"] == "meta")
        #expect(user["picture"]?.stringValue?.hasPrefix("https://") == true)
        #expect(user["user_metadata"] == ["theme": "dark", "lang": "en"])
        #expect(user["app_metadata"] == [:])
        #expect(user["created_at"]?.stringValue != nil)
        #expect(user["updated_at"]?.stringValue != nil)
        let shortId = String(userId.dropFirst("auth0|".count))
        #expect(user["identities"] == [[
            "provider": "auth0", "user_id": .string(shortId), "connection": "Username-Password-Authentication", "isSocial": false,
        ]])
        #expect(only.json?.objectValue.map { Set($0.keys) } == ["email", "user_id"])
        #expect(without.json?["email"] == nil)
        #expect(without.json?["identities"] == nil)
        #expect(without.json?["user_id"]?.stringValue == userId)
        #expect(includeAlone.json == full.json)
        #expect(patched.status == 200)
        #expect(patched.json?["user_metadata"] == ["color": "blue", "lang": "fr"])
        #expect(refetched.json?["user_metadata"] == ["color": "blue", "lang": "fr"])
        #expect(forbiddenAttribute.status == 400)
        #expect(forbiddenAttribute.json?["statusCode"] == 400)
        #expect(forbiddenAttribute.json?["error"] == "Bad Request")
        #expect(forbiddenAttribute.json?["errorCode"] == "invalid_body")
        #expect(forbiddenAttribute.json?["message"]?.stringValue?.contains("email") == true)
        #expect(notAnObject.status == 400)
        #expect(notAnObject.json?["errorCode"] == "invalid_body")
    }

    @Test func linkWithAnIDTokenAndUnlink() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        let primaryId = try #require(try await wire.seed("primary@example.com")["user_id"]?.stringValue)
        let secondaryId = try #require(try await wire.seed("secondary@example.com")["user_id"]?.stringValue)
        let token = try await wire.apiToken("primary@example.com", audience: wire.managementAudience, scope: Auth0Wire.managementScopes)
        let secondaryLogin = try await wire.login("secondary@example.com", clientId: Auth0Wire.clientId)
        let idToken = try #require(secondaryLogin.json?["id_token"]?.stringValue)
        let otherClientLogin = try await wire.login("secondary@example.com", clientId: "another-app")
        let otherClientToken = try #require(otherClientLogin.json?["id_token"]?.stringValue)
        let identities = userPath(primaryId) + "/identities"

        // A tampered token and one issued to another application are refused.
        var parts = idToken.split(separator: ".").map(String.init)
        parts[2] = String(parts[2].reversed())
        let tampered = try await wire.call(.post, identities, token: token, json: ["link_with": .string(parts.joined(separator: "."))])
        let foreign = try await wire.call(.post, identities, token: token, json: ["link_with": .string(otherClientToken)])
        let linked = try await wire.call(.post, identities, token: token, json: ["link_with": .string(idToken)])
        let usersAfterLink = try #require(try await wire.get("/auth0/__emulator/users").json?["users"]?.arrayValue)
        let primaryAfterLink = try await wire.call(.get, userPath(primaryId), token: token)
        let secondaryShort = String(secondaryId.dropFirst("auth0|".count))
        let unlinked = try await wire.call(.delete, identities + "/auth0/\(secondaryShort)", token: token)
        let unlinkAgain = try await wire.call(.delete, identities + "/auth0/\(secondaryShort)", token: token)
        let usersAfterUnlink = try #require(try await wire.get("/auth0/__emulator/users").json?["users"]?.arrayValue)
        // The server-side body links by provider and user id.
        let serverSide = try await wire.call(.post, identities, token: token, json: ["provider": "auth0", "user_id": .string(secondaryShort)])
        await emulator.stop()

        #expect(tampered.status == 400)
        #expect(tampered.json?["errorCode"] == "invalid_body")
        #expect(foreign.status == 400)
        #expect(linked.status == 201)
        let list = try #require(linked.json?.arrayValue)
        #expect(list.count == 2)
        #expect(list.last?["provider"] == "auth0")
        #expect(list.last?["user_id"]?.stringValue == secondaryShort)
        #expect(list.last?["connection"] == "Username-Password-Authentication")
        #expect(list.last?["isSocial"] == false)
        #expect(!usersAfterLink.contains { $0["user_id"]?.stringValue == secondaryId })
        #expect(primaryAfterLink.json?["identities"]?.arrayValue?.count == 2)
        #expect(unlinked.status == 200)
        #expect(unlinked.json?.arrayValue?.count == 1)
        #expect(unlinked.json?.arrayValue?.first?["user_id"]?.stringValue == String(primaryId.dropFirst("auth0|".count)))
        #expect(unlinkAgain.status == 404)
        #expect(usersAfterUnlink.contains { $0["user_id"]?.stringValue == secondaryId })
        #expect(serverSide.status == 201)
        #expect(serverSide.json?.arrayValue?.count == 2)
    }

    @Test func authenticationScopesAndOwnershipErrors() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        let userId = try #require(try await wire.seed("owner@example.com")["user_id"]?.stringValue)
        let otherId = try #require(try await wire.seed("other@example.com")["user_id"]?.stringValue)
        let readOnly = try await wire.apiToken("owner@example.com", audience: wire.managementAudience, scope: "read:current_user")
        let myAccount = try await wire.apiToken("owner@example.com", audience: wire.myAccountAudience, scope: "read:me:factors")

        let missing = try await wire.call(.get, userPath(userId), token: nil)
        let wrongAudience = try await wire.call(.get, userPath(userId), token: myAccount)
        let otherUser = try await wire.call(.get, userPath(otherId), token: readOnly)
        let noPatchScope = try await wire.call(.patch, userPath(userId), token: readOnly, json: ["user_metadata": ["a": "b"]])
        let noLinkScope = try await wire.call(.post, userPath(userId) + "/identities", token: readOnly, json: ["link_with": "x"])
        let ownUser = try await wire.call(.get, userPath(userId), token: readOnly)
        await emulator.stop()

        #expect(missing.status == 401)
        #expect(missing.json?["statusCode"] == 401)
        #expect(missing.json?["error"] == "Unauthorized")
        #expect(missing.json?["message"] == "Missing authentication")
        #expect(missing.json?["errorCode"]?.stringValue?.isEmpty == false)
        #expect(wrongAudience.status == 401)
        #expect(wrongAudience.json?["error"] == "Unauthorized")
        #expect(otherUser.status == 403)
        #expect(otherUser.json?["statusCode"] == 403)
        #expect(otherUser.json?["error"] == "Forbidden")
        #expect(noPatchScope.status == 403)
        #expect(noPatchScope.json == [
            "statusCode": 403, "error": "Forbidden", "message": "Insufficient scope, expected any of: update:current_user_metadata",
            "errorCode": "insufficient_scope",
        ])
        #expect(noLinkScope.json?["message"] == "Insufficient scope, expected any of: update:current_user_identities")
        #expect(ownUser.status == 200)
    }

    @Test func expiredSessionsLinkTokensAndAccessTokensAreRefused() async throws {
        let clock = FakeClock()
        let emulator = try await Emulator.start(EmulatorConfiguration(clock: clock))
        let wire = Auth0Wire(emulator: emulator)
        let primaryId = try #require(try await wire.seed("late@example.com")["user_id"]?.stringValue)
        try await wire.seed("later@example.com")
        let meToken = try await wire.apiToken("late@example.com", audience: wire.myAccountAudience, scope: Auth0Wire.myAccountScopes)
        let token = try await wire.apiToken("late@example.com", audience: wire.managementAudience, scope: Auth0Wire.managementScopes)
        let idToken = try #require(try await wire.login("later@example.com", clientId: Auth0Wire.clientId).json?["id_token"]?.stringValue)
        let start = try await wire.call(.post, "/auth0/me/v1/authentication-methods", token: meToken, json: ["type": "recovery-code"])
        let id = try #require(start.json?["id"]?.stringValue)

        clock.advance(by: 301)  // the enrollment (5 minutes) is over
        let lateVerify = try await wire.call(.post, "/auth0/me/v1/authentication-methods/\(pathEncoded(id))/verify", token: meToken,
                                             json: ["auth_session": .string(try #require(start.json?["auth_session"]?.stringValue))])
        clock.advance(by: 36_000)  // the ID token (10 hours) has expired, the access token (24 hours) has not
        let lateLink = try await wire.call(.post, userPath(primaryId) + "/identities", token: token, json: ["link_with": .string(idToken)])
        clock.advance(by: 60_000)  // the access tokens (issued 96 301 s ago) have expired
        let lateMe = try await wire.call(.get, "/auth0/me/v1/factors", token: meToken)
        let lateManagement = try await wire.call(.get, userPath(primaryId), token: token)
        await emulator.stop()

        #expect(start.status == 201)
        #expect(lateVerify.status == 400)
        #expect(lateVerify.json?["detail"]?.stringValue?.contains("auth_session") == true)
        #expect(lateLink.status == 400)
        #expect(lateLink.json?["errorCode"] == "invalid_body")
        #expect(lateMe.status == 401)
        #expect(lateMe.json?["title"] == "Unauthorized")
        #expect(lateManagement.status == 401)
        #expect(lateManagement.json?["message"] == "Invalid token")
        #expect(lateManagement.json?["errorCode"] == "invalid_token")
    }
}
