import AuthHub
import AuthHubEmulator
import AuthHubTesting
import Foundation
import Testing

@Suite struct Auth0LoginTests {
    @Test func discoveryAndJWKSDescribeTheTenant() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        let discovery = try await wire.get("/auth0/.well-known/openid-configuration")
        let jwks = try await wire.get("/auth0/.well-known/jwks.json")
        let again = try await wire.get("/auth0/.well-known/jwks.json")
        await emulator.stop()

        #expect(discovery.status == 200)
        let document = try #require(discovery.json)
        #expect(document["issuer"]?.stringValue == "http://127.0.0.1:\(emulator.port)/auth0/")
        #expect(document["jwks_uri"]?.stringValue == wire.issuer + ".well-known/jwks.json")
        #expect(document["token_endpoint"]?.stringValue == wire.issuer + "oauth/token")
        #expect(document["authorization_endpoint"]?.stringValue == wire.issuer + "authorize")
        #expect(document["userinfo_endpoint"]?.stringValue == wire.issuer + "userinfo")
        #expect(document["id_token_signing_alg_values_supported"] == ["RS256"])
        #expect(document["code_challenge_methods_supported"] == ["S256"])

        #expect(jwks.status == 200)
        let keys = try #require(jwks.json?["keys"]?.arrayValue)
        #expect(keys.count == 1)
        let key = try #require(keys.first)
        #expect(key["kty"] == "RSA")
        #expect(key["alg"] == "RS256")
        #expect(key["use"] == "sig")
        #expect((key["kid"]?.stringValue?.isEmpty) == false)
        #expect(key["e"] == "AQAB")
        // 2048-bit modulus: 256 bytes → 342 base64url characters.
        #expect(key["n"]?.stringValue?.count == 342)
        #expect(jwks.json == again.json)
    }

    @Test func eachEmulatorHasItsOwnSigningKey() async throws {
        let a = try await Emulator.start()
        let b = try await Emulator.start()
        let kidA = try await Auth0Wire(emulator: a).get("/auth0/.well-known/jwks.json").json?["keys"]?.arrayValue?.first
        let kidB = try await Auth0Wire(emulator: b).get("/auth0/.well-known/jwks.json").json?["keys"]?.arrayValue?.first
        await a.stop()
        await b.stop()
        #expect(kidA != nil)
        #expect(kidA != kidB)
    }

    @Test func signupStoresTheUserAndRefusesDuplicatesAndWeakPasswords() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        let signup: JSONValue = [
            "client_id": "authhub-test", "email": "Ada@Example.com", "password": "correct horse battery",
            "connection": "Username-Password-Authentication", "given_name": "Ada", "user_metadata": ["team": "engines"],
        ]
        let created = try await wire.post("/auth0/dbconnections/signup", json: signup)
        let duplicate = try await wire.post("/auth0/dbconnections/signup", json: signup)
        let weak = try await wire.post("/auth0/dbconnections/signup", json: [
            "client_id": "authhub-test", "email": "weak@example.com", "password": "short", "connection": "Username-Password-Authentication",
        ])
        let noEmail = try await wire.post("/auth0/dbconnections/signup", json: ["client_id": "authhub-test", "password": "long enough"])
        let login = try await wire.login("ada@example.com")
        await emulator.stop()

        #expect(created.status == 200)
        let user = try #require(created.json)
        #expect(user["email"] == "ada@example.com")
        #expect(user["email_verified"] == false)
        #expect(user["given_name"] == "Ada")
        #expect(user["user_metadata"] == ["team": "engines"])
        #expect(user["_id"]?.stringValue?.count == 24)

        #expect(duplicate.status == 409)
        #expect(duplicate.json?["code"] == "user_exists")
        #expect(duplicate.json?["name"] == "BadRequestError")
        #expect(duplicate.json?["statusCode"] == 409)

        #expect(weak.status == 400)
        #expect(weak.json?["name"] == "PasswordStrengthError")
        #expect(weak.json?["code"] == "invalid_password")
        #expect(weak.json?["description"]?.objectValue != nil)

        #expect(noEmail.status == 400)
        #expect(noEmail.json?["name"] == "BadRequestError")

        #expect(login.status == 200)
        #expect(login.json?["access_token"]?.stringValue?.isEmpty == false)
    }

    @Test func passwordRealmLoginIssuesAVerifiableIDTokenAndARefreshToken() async throws {
        let clock = FakeClock()
        let emulator = try await Emulator.start(EmulatorConfiguration(clock: clock))
        let wire = Auth0Wire(emulator: emulator)
        let user = try await wire.seed("grace@example.com", extra: ["name": "Grace Hopper"])
        let reply = try await wire.login("grace@example.com")
        let body = try #require(reply.json)
        let claims = try await wire.verifiedClaims(try #require(body["id_token"]?.stringValue))
        let withoutOffline = try await wire.login("grace@example.com", scope: "openid email")
        await emulator.stop()

        #expect(reply.status == 200)
        #expect(reply.headerFields["Cache-Control"] == "no-store")
        #expect(body["token_type"] == "Bearer")
        #expect(body["expires_in"] == 86_400)
        #expect(body["scope"] == "openid profile email offline_access")
        #expect(body["refresh_token"]?.stringValue?.isEmpty == false)

        let now = clock.now.timeIntervalSince1970
        #expect(claims["iss"]?.stringValue == wire.issuer)
        #expect(claims["sub"] == user["user_id"])
        #expect(claims["sub"]?.stringValue?.hasPrefix("auth0|") == true)
        #expect(claims["aud"]?.stringValue == Auth0Wire.clientId)
        #expect(claims["iat"]?.doubleValue == now)
        #expect(claims["exp"]?.doubleValue == now + 36_000)
        #expect(claims["email"] == "grace@example.com")
        #expect(claims["email_verified"] == true)
        #expect(claims["name"] == "Grace Hopper")
        #expect(claims["nonce"] == nil)

        #expect(withoutOffline.status == 200)
        #expect(withoutOffline.json?["refresh_token"] == nil)
        #expect(withoutOffline.json?["id_token"] != nil)
    }

    @Test func defaultDirectoryPasswordGrantWorksWithFormBodies() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        try await wire.seed("form@example.com")
        let reply = try await wire.postForm("/auth0/oauth/token", [
            ("client_id", Auth0Wire.clientId), ("grant_type", "password"), ("username", "form@example.com"),
            ("password", "correct horse battery"), ("scope", "openid"),
        ])
        await emulator.stop()
        #expect(reply.status == 200)
        #expect(reply.json?["scope"] == "openid")
    }

    @Test func wrongCredentialsAndBadRequestsGetAuth0ErrorBodies() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        try await wire.seed("linus@example.com")
        let wrongPassword = try await wire.login("linus@example.com", password: "not the password")
        let unknownUser = try await wire.login("nobody@example.com")
        let missing = try await wire.post("/auth0/oauth/token", json: ["client_id": "authhub-test", "grant_type": "password"])
        let unsupported = try await wire.post("/auth0/oauth/token", json: ["client_id": "authhub-test", "grant_type": "client_credentials"])
        let notJSON = try await wire.send(.post, "/auth0/oauth/token", headerFields: [.contentType: "application/json"], body: Data("[1,".utf8))
        await emulator.stop()

        let wrong: JSONValue = ["error": "invalid_grant", "error_description": "Wrong email or password."]
        #expect(wrongPassword.status == 403)
        #expect(wrongPassword.json == wrong)
        #expect(unknownUser.status == 403)
        #expect(unknownUser.json == wrong)
        #expect(missing.status == 400)
        #expect(missing.json == ["error": "invalid_request", "error_description": "Missing required parameter: username"])
        #expect(unsupported.status == 400)
        #expect(unsupported.json?["error"] == "unsupported_grant_type")
        #expect(notJSON.status == 400)
        #expect(notJSON.json?["error"] == "invalid_request")
    }

    @Test func userinfoAnswersForAValidAccessTokenOnly() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        let user = try await wire.seed("info@example.com", extra: ["given_name": "Info"])
        let access = try #require(try await wire.login("info@example.com").json?["access_token"]?.stringValue)
        let info = try await wire.get("/auth0/userinfo", headerFields: [.authorization: "Bearer \(access)"])
        let none = try await wire.get("/auth0/userinfo")
        let bogus = try await wire.get("/auth0/userinfo", headerFields: [.authorization: "Bearer not-a-token"])
        await emulator.stop()

        #expect(info.status == 200)
        #expect(info.json?["sub"] == user["user_id"])
        #expect(info.json?["email"] == "info@example.com")
        #expect(info.json?["given_name"] == "Info")
        #expect(none.status == 401)
        #expect(none.json?["error"] == "invalid_token")
        #expect(bogus.status == 401)
        #expect(bogus.headerFields["WWW-Authenticate"]?.hasPrefix("Bearer") == true)
    }

    @Test func databaseOTPChallengeSignsInAnExistingUserOnly() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        let user = try await wire.seed("dbotp@example.com")
        func challenge(_ email: String) async throws -> String {
            let reply = try await wire.post("/auth0/otp/challenge", json: [
                "client_id": "authhub-test", "connection": "Username-Password-Authentication", "allow_signup": false,
                "email": .string(email),
            ])
            return try #require(reply.json?["auth_session"]?.stringValue)
        }
        func code(_ email: String) async throws -> String {
            try #require(try await wire.get(
                "/auth0/__emulator/passwordless?email=\(email)&connection=Username-Password-Authentication"
            ).json?["code"]?.stringValue)
        }
        func grant(_ session: String, _ otp: String) async throws -> Auth0Wire.Reply {
            try await wire.post("/auth0/oauth/token", json: [
                "client_id": "authhub-test", "grant_type": "http://auth0.com/oauth/grant-type/passwordless/otp",
                "auth_session": .string(session), "otp": .string(otp), "scope": "openid email",
            ])
        }
        let session = try await challenge("dbotp@example.com")
        let ok = try await grant(session, try await code("dbotp@example.com"))
        let claims = try await wire.verifiedClaims(try #require(ok.json?["id_token"]?.stringValue))
        let strangerSession = try await challenge("stranger@example.com")
        let stranger = try await grant(strangerSession, try await code("stranger@example.com"))
        await emulator.stop()

        #expect(ok.status == 200)
        #expect(claims["sub"] == user["user_id"])
        #expect(stranger.status == 403)
        #expect(stranger.json == ["error": "invalid_grant", "error_description": "Wrong email or verification code."])
    }

    @Test func passwordlessCodeReadThroughTheHookSignsIn() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        let start = try await wire.post("/auth0/passwordless/start", json: [
            "client_id": "authhub-test", "connection": "email", "send": "code", "email": "otp@example.com",
        ])
        let code = try #require(try await wire.get("/auth0/__emulator/passwordless?email=otp%40example.com").json?["code"]?.stringValue)
        let grant: (String) -> JSONValue = { otp in
            [
                "client_id": "authhub-test", "grant_type": "http://auth0.com/oauth/grant-type/passwordless/otp",
                "username": "otp@example.com", "otp": .string(otp), "realm": "email", "scope": "openid email",
            ]
        }
        let wrong = try await wire.post("/auth0/oauth/token", json: grant(code == "000000" ? "111111" : "000000"))
        let right = try await wire.post("/auth0/oauth/token", json: grant(code))
        let replay = try await wire.post("/auth0/oauth/token", json: grant(code))
        let claims = try await wire.verifiedClaims(try #require(right.json?["id_token"]?.stringValue))
        await emulator.stop()

        #expect(start.status == 200)
        #expect(code.count == 6 && code.allSatisfy(\.isNumber))
        #expect(wrong.status == 403)
        #expect(wrong.json == ["error": "invalid_grant", "error_description": "Wrong email or verification code."])
        #expect(right.status == 200)
        #expect(claims["email"] == "otp@example.com")
        #expect(claims["email_verified"] == true)
        #expect(replay.status == 403)
    }
}
