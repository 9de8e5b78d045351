import AuthHub
import AuthHubEmulator
import Foundation
import Testing

/// The token-exchange grant of spec/auth0.md §3.5 over real HTTP, with the emulator's
/// conventions for Apple and Facebook (`emulator:<email>`) and its hook for custom types.
@Suite struct Auth0TokenExchangeTests {
    static let grant = "urn:ietf:params:oauth:grant-type:token-exchange"
    static let apple = "http://auth0.com/oauth/token-type/apple-authz-code"
    static let facebook = "http://auth0.com/oauth/token-type/facebook-info-session-access-token"
    static let custom = "urn:acme:legacy-token"

    /// A token-exchange request with the common body of §3.5 plus `extra`.
    func exchange(_ wire: Auth0Wire, type: String, token: String, scope: String = "openid profile email offline_access",
                  extra: [String: JSONValue] = [:]) async throws -> Auth0Wire.Reply {
        var body: [String: JSONValue] = [
            "client_id": .string(Auth0Wire.clientId), "grant_type": .string(Self.grant), "subject_token": .string(token),
            "subject_token_type": .string(type), "scope": .string(scope),
        ]
        body.merge(extra) { _, new in new }
        return try await wire.post("/auth0/oauth/token", json: .object(body))
    }

    /// `user_profile` as the SDK sends it: a JSON-encoded string.
    func profileString(_ profile: JSONValue) throws -> JSONValue {
        .string(String(decoding: try JSONEncoder().encode(profile), as: UTF8.self))
    }

    @Test func appleExchangeCreatesTheUserWithTheProfileName() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        let profile = try profileString(["name": ["firstName": "Ada", "lastName": "Lovelace"]])
        let first = try await exchange(wire, type: Self.apple, token: "emulator:Ada@Example.com",
                                       extra: ["user_profile": profile, "audience": "https://api.example.com"])
        // Apple sends the name only the first time; the second exchange signs the same user in.
        let second = try await exchange(wire, type: Self.apple, token: "emulator:ada@example.com")
        let wrong = try await exchange(wire, type: Self.apple, token: "c0ffee.real-apple-code")
        let firstClaims = try await wire.verifiedClaims(try #require(first.json?["id_token"]?.stringValue))
        let secondClaims = try await wire.verifiedClaims(try #require(second.json?["id_token"]?.stringValue))
        let accessToken = try #require(first.json?["access_token"]?.stringValue)
        let userinfo = try await wire.get("/auth0/userinfo", headerFields: [.authorization: "Bearer \(accessToken)"])
        let users = try await wire.get("/auth0/__emulator/users")
        await emulator.stop()

        #expect(first.status == 200)
        #expect(first.json?["token_type"] == "Bearer")
        #expect(first.json?["expires_in"] == 86_400)
        #expect(first.json?["scope"] == "openid profile email offline_access")
        #expect(first.json?["refresh_token"]?.stringValue?.isEmpty == false)
        #expect(firstClaims["iss"] == .string(wire.issuer))
        #expect(firstClaims["aud"] == .string(Auth0Wire.clientId))
        #expect(firstClaims["sub"]?.stringValue?.hasPrefix("apple|") == true)
        #expect(firstClaims["email"] == "ada@example.com")
        #expect(firstClaims["email_verified"] == true)
        #expect(firstClaims["name"] == "Ada Lovelace")
        #expect(firstClaims["given_name"] == "Ada")
        #expect(firstClaims["family_name"] == "Lovelace")
        #expect(second.status == 200)
        #expect(secondClaims["sub"] == firstClaims["sub"])
        #expect(secondClaims["name"] == "Ada Lovelace", "the profile given once is kept")
        #expect(wrong.status == 403)
        #expect(wrong.json == ["error": "invalid_grant", "error_description": "Invalid subject_token."])
        #expect(userinfo.json?["sub"] == firstClaims["sub"])
        let stored = try #require(users.json?["users"]?.arrayValue)
        #expect(stored.count == 1)
        #expect(stored.first?["connection"] == "apple")
    }

    @Test func facebookExchangeUsesTheGraphProfile() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        let profile = try profileString([
            "id": "10228", "name": "Grace Hopper", "email": "grace@example.com", "first_name": "Grace", "last_name": "Hopper",
        ])
        let reply = try await exchange(wire, type: Self.facebook, token: "emulator:grace@example.com", scope: "openid profile email",
                                       extra: ["user_profile": profile])
        let noPrefix = try await exchange(wire, type: Self.facebook, token: "grace@example.com")
        let notAnEmail = try await exchange(wire, type: Self.facebook, token: "emulator:grace")
        let claims = try await wire.verifiedClaims(try #require(reply.json?["id_token"]?.stringValue))
        await emulator.stop()

        #expect(reply.status == 200)
        #expect(reply.json?["refresh_token"] == nil, "no offline_access, no refresh token")
        #expect(reply.json?["scope"] == "openid profile email")
        #expect(claims["sub"]?.stringValue?.hasPrefix("facebook|") == true)
        #expect(claims["email"] == "grace@example.com")
        #expect(claims["name"] == "Grace Hopper")
        #expect(claims["given_name"] == "Grace")
        #expect(claims["family_name"] == "Hopper")
        #expect(noPrefix.status == 403)
        #expect(noPrefix.json?["error"] == "invalid_grant")
        #expect(notAnEmail.status == 403)
        #expect(notAnEmail.json?["error"] == "invalid_grant")
    }

    @Test func malformedUserProfileIsAnInvalidRequest() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        let asObject = try await exchange(wire, type: Self.apple, token: "emulator:obj@example.com",
                                          extra: ["user_profile": ["name": ["firstName": "Ada"]]])
        let notJSON = try await exchange(wire, type: Self.apple, token: "emulator:obj@example.com", extra: ["user_profile": "{name:"])
        let jsonArray = try await exchange(wire, type: Self.facebook, token: "emulator:obj@example.com", extra: ["user_profile": "[1,2]"])
        let users = try await wire.get("/auth0/__emulator/users")
        await emulator.stop()

        let expected: JSONValue = ["error": "invalid_request", "error_description": "user_profile must be a JSON-encoded string of an object."]
        for reply in [asObject, notJSON, jsonArray] {
            #expect(reply.status == 400)
            #expect(reply.json == expected)
        }
        #expect(users.json == ["users": []], "a refused exchange creates no user")
    }

    @Test func customTokenTypesNeedARegisteredSubjectToken() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        try await wire.seed("legacy@example.com")
        let unknownType = try await exchange(wire, type: Self.custom, token: "legacy-1")
        let register = try await wire.post("/auth0/__emulator/token-exchange", json: [
            "subject_token_type": .string(Self.custom), "subject_token": "legacy-1", "email": "Legacy@example.com",
        ])
        let registered = try await exchange(wire, type: Self.custom, token: "legacy-1", extra: ["organization": "org_123"])
        let unregistered = try await exchange(wire, type: Self.custom, token: "legacy-2")
        let otherType = try await exchange(wire, type: "urn:acme:other", token: "legacy-1")
        let missing = try await wire.post("/auth0/oauth/token", json: [
            "client_id": .string(Auth0Wire.clientId), "grant_type": .string(Self.grant), "subject_token_type": .string(Self.custom),
        ])
        let badHook = try await wire.post("/auth0/__emulator/token-exchange", json: [
            "subject_token_type": .string(Self.custom), "subject_token": "x", "email": "not-an-email",
        ])
        let seededSub = try #require(try await wire.get("/auth0/__emulator/users").json?["users"]?.arrayValue?.first?["user_id"])
        let claims = try await wire.verifiedClaims(try #require(registered.json?["id_token"]?.stringValue))
        await emulator.stop()

        #expect(unknownType.status == 400)
        #expect(unknownType.json?["error"] == "invalid_request")
        #expect(register.status == 201)
        #expect(register.json == [
            "subject_token_type": .string(Self.custom), "email": "legacy@example.com", "connection": "Username-Password-Authentication",
        ])
        #expect(registered.status == 200)
        #expect(registered.json?["refresh_token"]?.stringValue?.isEmpty == false)
        #expect(claims["sub"] == seededSub, "the registered email names the seeded database user")
        #expect(claims["act"] == nil)
        #expect(unregistered.status == 403)
        #expect(unregistered.json == ["error": "invalid_grant", "error_description": "Invalid subject_token."])
        #expect(otherType.status == 400)
        #expect(otherType.json?["error"] == "invalid_request")
        #expect(missing.status == 400)
        #expect(missing.json == ["error": "invalid_request", "error_description": "Missing required parameter: subject_token"])
        #expect(badHook.status == 400)
    }

    @Test func actorTokensComeInPairsAndGetNoRefreshToken() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        for (token, email) in [("subject-1", "subject@example.com"), ("agent-1", "agent@example.com")] {
            let hook = try await wire.post("/auth0/__emulator/token-exchange", json: [
                "subject_token_type": .string(Self.custom), "subject_token": .string(token), "email": .string(email),
            ])
            #expect(hook.status == 201)
        }
        // The actor signs in once so that it exists as a user.
        let actorLogin = try await exchange(wire, type: Self.custom, token: "agent-1")
        let actorClaims = try await wire.verifiedClaims(try #require(actorLogin.json?["id_token"]?.stringValue))
        let tokenOnly = try await exchange(wire, type: Self.custom, token: "subject-1", extra: ["actor_token": "agent-1"])
        let typeOnly = try await exchange(wire, type: Self.custom, token: "subject-1", extra: ["actor_token_type": .string(Self.custom)])
        let both = try await exchange(wire, type: Self.custom, token: "subject-1",
                                      extra: ["actor_token": "agent-1", "actor_token_type": .string(Self.custom)])
        let unknownActor = try await exchange(wire, type: Self.custom, token: "subject-1",
                                              extra: ["actor_token": "someone", "actor_token_type": "urn:acme:agent"])
        let claims = try await wire.verifiedClaims(try #require(both.json?["id_token"]?.stringValue))
        let unknownActorClaims = try await wire.verifiedClaims(try #require(unknownActor.json?["id_token"]?.stringValue))
        await emulator.stop()

        let pairError: JSONValue = ["error": "invalid_request", "error_description": "actor_token and actor_token_type must be sent together."]
        #expect(tokenOnly.status == 400)
        #expect(tokenOnly.json == pairError)
        #expect(typeOnly.status == 400)
        #expect(typeOnly.json == pairError)
        #expect(both.status == 200)
        #expect(both.json?["access_token"]?.stringValue?.isEmpty == false)
        #expect(both.json?["scope"] == "openid profile email offline_access")
        #expect(both.json?["refresh_token"] == nil, "a delegated exchange gets no refresh token even with offline_access")
        #expect(claims["email"] == "subject@example.com")
        #expect(claims["act"] == ["sub": try #require(actorClaims["sub"])])
        #expect(unknownActor.status == 200)
        #expect(unknownActor.json?["refresh_token"] == nil)
        #expect(unknownActorClaims["act"] == nil)
    }

    @Test func exchangedUsersWhoNeedMFAGetMFARequiredAndNewUsersAreCreated() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        try await wire.seed("guarded@example.com", extra: ["mfa_required": true])
        for (token, email) in [("guarded-1", "guarded@example.com"), ("newcomer-1", "newcomer@example.com")] {
            let hook = try await wire.post("/auth0/__emulator/token-exchange", json: [
                "subject_token_type": .string(Self.custom), "subject_token": .string(token), "email": .string(email),
            ])
            #expect(hook.status == 201)
        }
        let guarded = try await exchange(wire, type: Self.custom, token: "guarded-1")
        let newcomer = try await exchange(wire, type: Self.custom, token: "newcomer-1")
        let claims = try await wire.verifiedClaims(try #require(newcomer.json?["id_token"]?.stringValue))
        let users = try #require(try await wire.get("/auth0/__emulator/users").json?["users"]?.arrayValue)
        await emulator.stop()

        #expect(guarded.status == 403)
        #expect(guarded.json?["error"] == "mfa_required")
        #expect(guarded.json?["mfa_token"]?.stringValue?.isEmpty == false)
        #expect(newcomer.status == 200)
        #expect(claims["sub"]?.stringValue?.hasPrefix("auth0|") == true)
        #expect(claims["email"] == "newcomer@example.com")
        #expect(users.count == 2)
        #expect(users.contains { $0["email"] == "newcomer@example.com" && $0["connection"] == "Username-Password-Authentication" })
    }
}
