import AuthHub
import AuthHubEmulator
import AuthHubFactors
import AuthHubTesting
import Foundation
import Testing

/// API tokens and calls for the My Account and Management tests, built by hand from
/// spec/auth0.md §3.3, §6 and §7 (no client module).
extension Auth0Wire {
    static let myAccountScopes = "create:me:authentication_methods read:me:authentication_methods "
        + "update:me:authentication_methods delete:me:authentication_methods read:me:factors"
    static let managementScopes = "read:current_user update:current_user_metadata update:current_user_identities"

    /// `<issuer>me/`.
    var myAccountAudience: String { issuer + "me/" }
    /// `<issuer>api/v2/`.
    var managementAudience: String { issuer + "api/v2/" }

    /// A password-realm login for `clientId`.
    func login(_ email: String, clientId: String, password: String = "correct horse battery",
               scope: String = "openid profile email offline_access") async throws -> Reply {
        try await post("/auth0/oauth/token", json: [
            "client_id": .string(clientId), "grant_type": "http://auth0.com/oauth/grant-type/password-realm",
            "username": .string(email), "password": .string(password), "realm": "Username-Password-Authentication",
            "scope": .string(scope),
        ])
    }

    /// The refresh-token grant with an audience and a scope (spec §3.3, `openid` ensured).
    func refresh(_ token: String, audience: String, scope: String, clientId: String = Auth0Wire.clientId) async throws -> Reply {
        try await post("/auth0/oauth/token", json: [
            "client_id": .string(clientId), "grant_type": "refresh_token", "refresh_token": .string(token),
            "audience": .string(audience), "scope": .string("openid " + scope),
        ])
    }

    /// Logs `email` in with `offline_access` and trades the refresh token for an access token
    /// for `audience` with `scope`.
    func apiToken(_ email: String, audience: String, scope: String, clientId: String = Auth0Wire.clientId) async throws -> String {
        let login = try await login(email, clientId: clientId)
        let refreshToken = try #require(login.json?["refresh_token"]?.stringValue)
        let reply = try await refresh(refreshToken, audience: audience, scope: scope, clientId: clientId)
        #expect(reply.status == 200)
        return try #require(reply.json?["access_token"]?.stringValue)
    }

    /// A request with `Authorization: Bearer <token>` and an optional JSON body.
    func call(_ method: HTTPRequest.Method, _ path: String, token: String?, json: JSONValue? = nil) async throws -> Reply {
        var headers: HTTPFields = [:]
        if let token { headers["Authorization"] = "Bearer \(token)" }
        var body: Data?
        if let json {
            headers["Content-Type"] = "application/json"
            body = try JSONEncoder().encode(json)
        }
        return try await send(method, path, headerFields: headers, body: body)
    }

    /// An MFA token from a password login that must pass a second factor.
    func mfaToken(_ email: String, password: String = "correct horse battery") async throws -> String {
        let reply = try await login(email, clientId: Auth0Wire.clientId, password: password)
        #expect(reply.status == 403)
        return try #require(reply.json?["mfa_token"]?.stringValue)
    }
}

/// `|` percent-encoded, as a client puts a method or user id into a path.
func pathEncoded(_ id: String) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return id.addingPercentEncoding(withAllowedCharacters: allowed) ?? id
}

/// The last path component of a `Location` header, percent-decoded (spec §6.4).
func methodId(fromLocation location: String?) -> String? {
    guard let location, let last = location.split(separator: "/").last else { return nil }
    return String(last).removingPercentEncoding
}

@Suite struct Auth0MyAccountEmulatorTests {
    static let methods = "/auth0/me/v1/authentication-methods"

    @Test func apiTokensComeFromTheRefreshGrantWithAudienceAndScope() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        try await wire.seed("scopes@example.com")
        let login = try await wire.login("scopes@example.com", clientId: Auth0Wire.clientId)
        let loginAccess = try #require(login.json?["access_token"]?.stringValue)
        let refreshToken = try #require(login.json?["refresh_token"]?.stringValue)
        // My Account scopes plus a Management scope, which that audience does not grant.
        let granted = try await wire.refresh(refreshToken, audience: wire.myAccountAudience,
                                             scope: Auth0Wire.myAccountScopes + " read:current_user")
        let meToken = try #require(granted.json?["access_token"]?.stringValue)
        let factors = try await wire.call(.get, "/auth0/me/v1/factors", token: meToken)
        let withLoginToken = try await wire.call(.get, Self.methods, token: loginAccess)
        // Non-API scopes still must lie within the family.
        let next = try #require(granted.json?["refresh_token"]?.stringValue)
        let exceeding = try await wire.refresh(next, audience: wire.myAccountAudience, scope: "admin read:me:factors")

        // A client registered with api_scopes gets only those.
        let register = try await wire.post("/auth0/__emulator/clients", json: [
            "client_id": "restricted", "api_scopes": ["read:me:authentication_methods", "read:current_user"],
        ])
        let restrictedLogin = try await wire.login("scopes@example.com", clientId: "restricted")
        let restrictedRefresh = try #require(restrictedLogin.json?["refresh_token"]?.stringValue)
        let restricted = try await wire.refresh(restrictedRefresh, audience: wire.myAccountAudience,
                                                scope: Auth0Wire.myAccountScopes, clientId: "restricted")
        let restrictedToken = try #require(restricted.json?["access_token"]?.stringValue)
        let restrictedList = try await wire.call(.get, Self.methods, token: restrictedToken)
        let restrictedStart = try await wire.call(.post, Self.methods, token: restrictedToken, json: ["type": "totp"])
        let badRegistration = try await wire.post("/auth0/__emulator/clients", json: ["client_id": "typo", "api_scopes": ["read:me"]])
        // The password grant applies the same policy.
        let direct = try await wire.post("/auth0/oauth/token", json: [
            "client_id": .string(Auth0Wire.clientId), "grant_type": "password", "username": "scopes@example.com",
            "password": "correct horse battery", "audience": .string(wire.managementAudience),
            "scope": "openid read:current_user read:me:factors",
        ])
        await emulator.stop()

        #expect(granted.status == 200)
        let scopes = Set((granted.json?["scope"]?.stringValue ?? "").split(separator: " ").map(String.init))
        #expect(scopes == Set(("openid " + Auth0Wire.myAccountScopes).split(separator: " ").map(String.init)))
        #expect(granted.json?["id_token"] != nil)
        #expect(factors.status == 200)
        let factorTypes = Set(factors.json?["factors"]?.arrayValue?.compactMap { $0["type"]?.stringValue } ?? [])
        #expect(factorTypes == ["password", "passkey", "totp", "push-notification", "email", "phone", "recovery-code"])
        #expect(factors.json?["factors"]?.arrayValue?.first { $0["type"] == "totp" }?["usage"] == ["secondary"])
        #expect(withLoginToken.status == 401)
        #expect(withLoginToken.json?["title"] == "Unauthorized")
        #expect(withLoginToken.json?["status"] == 401)
        #expect(exceeding.status == 403)
        #expect(exceeding.json?["error"] == "invalid_scope")
        #expect(register.status == 201)
        #expect(restricted.status == 200)
        #expect(restricted.json?["scope"] == "openid read:me:authentication_methods")
        #expect(restrictedList.status == 200)
        #expect(restrictedList.json?["authentication_methods"]?.arrayValue?.map { $0["type"] } == ["password"])
        #expect(restrictedStart.status == 403)
        #expect(restrictedStart.json?["title"] == "Forbidden")
        #expect(restrictedStart.json?["detail"] == "Insufficient scope; expected create:me:authentication_methods.")
        #expect(badRegistration.status == 400)
        #expect(direct.status == 200)
        #expect(direct.json?["scope"] == "openid read:current_user")
    }

    @Test func errorBodiesAreProblemDetails() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        try await wire.seed("errors@example.com")
        let token = try await wire.apiToken("errors@example.com", audience: wire.myAccountAudience,
                                            scope: "create:me:authentication_methods read:me:authentication_methods")
        let missing = try await wire.call(.get, Self.methods, token: nil)
        let unknownToken = try await wire.call(.get, Self.methods, token: "not-a-token")
        let noDeleteScope = try await wire.call(.delete, Self.methods + "/totp%7Cdev_x", token: token)
        let noFactorsScope = try await wire.call(.get, "/auth0/me/v1/factors", token: token)
        let unknownType = try await wire.call(.post, Self.methods, token: token, json: ["type": "carrier-pigeon"])
        let noType = try await wire.call(.post, Self.methods, token: token, json: [:])
        let badEmail = try await wire.call(.post, Self.methods, token: token, json: ["type": "email", "email": "not-an-email"])
        let badPhone = try await wire.call(.post, Self.methods, token: token, json: ["type": "phone", "phone_number": "5550100"])
        let badChannel = try await wire.call(.post, Self.methods, token: token,
                                             json: ["type": "phone", "phone_number": "+14155550100", "preferred_authentication_method": "fax"])
        let badConnection = try await wire.call(.post, Self.methods, token: token,
                                                json: ["type": "password", "connection": "Username Password"])
        let unknownMethod = try await wire.call(.get, Self.methods + "/totp%7Cdev_nothing", token: token)
        let unknownSession = try await wire.call(.post, Self.methods + "/totp%7Cdev_nothing/verify", token: token,
                                                 json: ["auth_session": "nope", "otp_code": "123456"])
        await emulator.stop()

        #expect(missing.status == 401)
        #expect(missing.headerFields["Content-Type"]?.hasPrefix("application/problem+json") == true)
        #expect(missing.json?["type"]?.stringValue != nil)
        #expect(missing.json?["status"] == 401)
        #expect(missing.json?["title"] == "Unauthorized")
        #expect(missing.json?["detail"]?.stringValue?.isEmpty == false)
        #expect(unknownToken.status == 401)
        #expect(unknownToken.json?["title"] == "Unauthorized")
        #expect(noDeleteScope.status == 403)
        #expect(noDeleteScope.json?["status"] == 403)
        #expect(noDeleteScope.json?["title"] == "Forbidden")
        #expect(noDeleteScope.json?["detail"] == "Insufficient scope; expected delete:me:authentication_methods.")
        #expect(noFactorsScope.json?["detail"] == "Insufficient scope; expected read:me:factors.")
        for (reply, field) in [(unknownType, "type"), (noType, "type"), (badEmail, "email"), (badPhone, "phone_number"),
                               (badChannel, "preferred_authentication_method"), (badConnection, "connection")] {
            #expect(reply.status == 400)
            #expect(reply.json?["title"] == "Bad Request")
            #expect(reply.json?["status"] == 400)
            #expect(reply.json?["validation_errors"]?.arrayValue?.first?["field"]?.stringValue == field)
            #expect(reply.json?["validation_errors"]?.arrayValue?.first?["detail"]?.stringValue?.isEmpty == false)
        }
        #expect(unknownMethod.status == 404)
        #expect(unknownMethod.json?["title"] == "Not Found")
        #expect(unknownSession.status == 400)
        #expect(unknownSession.json?["detail"]?.stringValue?.contains("auth_session") == true)
    }

    @Test func totpEnrollmentIsTheAuthenticationAPIsTOTP() async throws {
        let clock = FakeClock()
        let emulator = try await Emulator.start(EmulatorConfiguration(clock: clock))
        let wire = Auth0Wire(emulator: emulator)
        try await wire.seed("totp@example.com")
        let token = try await wire.apiToken("totp@example.com", audience: wire.myAccountAudience, scope: Auth0Wire.myAccountScopes)

        let start = try await wire.call(.post, Self.methods, token: token, json: ["type": "totp"])
        let id = try #require(start.json?["id"]?.stringValue)
        let session = try #require(start.json?["auth_session"]?.stringValue)
        let secret = try #require(start.json?["manual_input_code"]?.stringValue)
        let totp = try TOTP(secret: Secret(try Base32.decode(secret)))
        let code = try totp.code(at: clock.now).revealed()
        let wrongCode = String(code.map { $0 == "0" ? "1" : "0" })
        let verifyPath = Self.methods + "/\(pathEncoded(id))/verify"
        let missingCode = try await wire.call(.post, verifyPath, token: token, json: ["auth_session": .string(session)])
        let wrong = try await wire.call(.post, verifyPath, token: token, json: ["auth_session": .string(session), "otp_code": .string(wrongCode)])
        let listedBefore = try await wire.call(.get, Self.methods, token: token)
        let verified = try await wire.call(.post, verifyPath, token: token, json: ["auth_session": .string(session), "otp_code": .string(code)])
        let again = try await wire.call(.post, verifyPath, token: token, json: ["auth_session": .string(session), "otp_code": .string(code)])
        let listed = try await wire.call(.get, Self.methods + "?type=totp", token: token)
        let fetched = try await wire.call(.get, Self.methods + "/\(pathEncoded(id))", token: token)
        let second = try await wire.call(.post, Self.methods, token: token, json: ["type": "totp"])

        // A recovery code too: 24 characters, confirmed with just the auth_session.
        let recoveryStart = try await wire.call(.post, Self.methods, token: token, json: ["type": "recovery-code"])
        let recoveryId = try #require(recoveryStart.json?["id"]?.stringValue)
        let recoveryCode = try #require(recoveryStart.json?["recovery_code"]?.stringValue)
        let recoveryVerified = try await wire.call(.post, Self.methods + "/\(pathEncoded(recoveryId))/verify", token: token,
                                                   json: ["auth_session": .string(try #require(recoveryStart.json?["auth_session"]?.stringValue))])

        // The Authentication API sees the same authenticator: the login now asks for it, the
        // code already used cannot be replayed, the next one signs in.
        let mfaToken = try await wire.mfaToken("totp@example.com")
        let authenticators = try await wire.get("/auth0/mfa/authenticators", headerFields: [.authorization: "Bearer \(mfaToken)"])
        let replay = try await mfaOTP(wire, token: mfaToken, otp: code)
        clock.advance(by: 30)
        let login = try await mfaOTP(wire, token: mfaToken, otp: try totp.code(at: clock.now).revealed())
        let recoveryToken = try await wire.mfaToken("totp@example.com")
        let recovered = try await wire.post("/auth0/oauth/token", json: [
            "client_id": .string(Auth0Wire.clientId), "grant_type": "http://auth0.com/oauth/grant-type/mfa-recovery-code",
            "mfa_token": .string(recoveryToken), "recovery_code": .string(recoveryCode),
        ])

        // Deleting it removes it from /mfa/authenticators and turns MFA off again.
        let deleted = try await wire.call(.delete, Self.methods + "/\(pathEncoded(id))", token: token)
        let gone = try await wire.call(.get, Self.methods + "/\(pathEncoded(id))", token: token)
        let deletedRecovery = try await wire.call(.delete, Self.methods + "/\(pathEncoded(recoveryId))", token: token)
        let plainLogin = try await wire.login("totp@example.com", clientId: Auth0Wire.clientId)
        await emulator.stop()

        #expect(start.status == 201)
        let location = try #require(start.headerFields["Location"])
        #expect(location.hasSuffix("/auth0/me/v1/authentication-methods/\(pathEncoded(id))"))
        #expect(location.contains("totp%7Cdev_"))
        #expect(methodId(fromLocation: location) == id)
        #expect(id.hasPrefix("totp|"))
        let barcode = try #require(start.json?["barcode_uri"]?.stringValue)
        #expect(barcode.hasPrefix("otpauth://totp/"))
        #expect(barcode.contains("totp%40example.com"))
        #expect(barcode.contains("secret=\(secret)"))
        #expect(barcode.contains("issuer="))
        #expect(missingCode.status == 400)
        #expect(missingCode.json?["validation_errors"]?.arrayValue?.first?["field"] == "otp_code")
        #expect(wrong.status == 400)
        #expect(wrong.json?["title"] == "Bad Request")
        #expect(wrong.json?["detail"] == "Invalid otp_code.")
        #expect(listedBefore.json?["authentication_methods"]?.arrayValue?.map { $0["type"] } == ["password"])
        #expect(verified.status == 200)
        #expect(verified.json?["id"]?.stringValue == id)
        #expect(verified.json?["type"] == "totp")
        #expect(verified.json?["confirmed"] == true)
        #expect(verified.json?["usage"] == ["secondary"])
        #expect(verified.json?["created_at"]?.stringValue?.isEmpty == false)
        #expect(again.status == 400)
        #expect(listed.json?["authentication_methods"]?.arrayValue?.map { $0["id"]?.stringValue } == [id])
        #expect(fetched.status == 200)
        #expect(fetched.json == verified.json)
        #expect(second.status == 409)
        #expect(recoveryStart.status == 201)
        #expect(recoveryCode.count == 24)
        #expect(recoveryStart.headerFields["Location"]?.contains("recovery-code%7Cdev_") == true)
        #expect(recoveryVerified.status == 200)
        #expect(recoveryVerified.json?["type"] == "recovery-code")
        let list = try #require(authenticators.json?.arrayValue)
        #expect(list.contains { $0["id"]?.stringValue == id && $0["authenticator_type"] == "otp" && $0["active"] == true })
        #expect(list.contains { $0["id"]?.stringValue == recoveryId && $0["authenticator_type"] == "recovery-code" })
        #expect(replay.status == 403)
        #expect(replay.json?["error_description"] == "Invalid otp_code.")
        #expect(login.status == 200)
        #expect(login.json?["access_token"] != nil)
        #expect(recovered.status == 200)
        #expect(deleted.status == 204)
        #expect(deleted.body.isEmpty)
        #expect(gone.status == 404)
        #expect(deletedRecovery.status == 204)
        #expect(plainLogin.status == 200)
    }

    func mfaOTP(_ wire: Auth0Wire, token: String, otp: String) async throws -> Auth0Wire.Reply {
        try await wire.post("/auth0/oauth/token", json: [
            "client_id": .string(Auth0Wire.clientId), "grant_type": "http://auth0.com/oauth/grant-type/mfa-otp",
            "mfa_token": .string(token), "otp": .string(otp),
        ])
    }

    @Test func emailAndPhoneCodesComeFromTheOutbox() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        try await wire.seed("oob@example.com")
        let token = try await wire.apiToken("oob@example.com", audience: wire.myAccountAudience, scope: Auth0Wire.myAccountScopes)

        let emailStart = try await wire.call(.post, Self.methods, token: token, json: ["type": "email", "email": "Inbox@Example.com"])
        let emailId = try #require(emailStart.json?["id"]?.stringValue)
        let emailSession = try #require(emailStart.json?["auth_session"]?.stringValue)
        let emailOutbox = try await wire.get("/auth0/__emulator/outbox?to=inbox%40example.com")
        let emailCode = try #require(emailOutbox.json?["messages"]?.arrayValue?.last?["code"]?.stringValue)
        let wrongEmail = try await wire.call(.post, Self.methods + "/\(pathEncoded(emailId))/verify", token: token,
                                             json: ["auth_session": .string(emailSession), "otp_code": "000000x"])
        let emailVerified = try await wire.call(.post, Self.methods + "/\(pathEncoded(emailId))/verify", token: token,
                                                json: ["auth_session": .string(emailSession), "otp_code": .string(emailCode)])

        let phoneStart = try await wire.call(.post, Self.methods, token: token,
                                             json: ["type": "phone", "phone_number": "+14155550100", "preferred_authentication_method": "voice"])
        let phoneId = try #require(phoneStart.json?["id"]?.stringValue)
        let phoneOutbox = try await wire.get("/auth0/__emulator/outbox?to=%2B14155550100")
        let phoneCode = try #require(phoneOutbox.json?["messages"]?.arrayValue?.last?["code"]?.stringValue)
        let phoneVerified = try await wire.call(.post, Self.methods + "/\(pathEncoded(phoneId))/verify", token: token, json: [
            "auth_session": .string(try #require(phoneStart.json?["auth_session"]?.stringValue)), "otp_code": .string(phoneCode),
        ])
        let patched = try await wire.call(.patch, Self.methods + "/\(pathEncoded(phoneId))", token: token,
                                          json: ["name": "Desk phone", "preferred_authentication_method": "sms"])
        let badPatch = try await wire.call(.patch, Self.methods + "/\(pathEncoded(phoneId))", token: token,
                                           json: ["preferred_authentication_method": "fax"])
        let phones = try await wire.call(.get, Self.methods + "?type=phone", token: token)
        let all = try await wire.call(.get, Self.methods, token: token)
        let emptyOutbox = try await wire.get("/auth0/__emulator/outbox?to=nobody%40example.com")
        let noRecipient = try await wire.get("/auth0/__emulator/outbox")

        // The Authentication API lists both and can challenge the email one.
        let mfaToken = try await wire.mfaToken("oob@example.com")
        let bearer: HTTPFields = [.authorization: "Bearer \(mfaToken)"]
        let authenticators = try await wire.get("/auth0/mfa/authenticators", headerFields: bearer)
        let challenge = try await wire.post("/auth0/mfa/challenge", json: [
            "client_id": .string(Auth0Wire.clientId), "mfa_token": .string(mfaToken), "challenge_type": "oob",
            "authenticator_id": .string(emailId),
        ])
        let deleted = try await wire.call(.delete, Self.methods + "/\(pathEncoded(emailId))", token: token)
        let afterDelete = try await wire.get("/auth0/mfa/authenticators", headerFields: bearer)
        await emulator.stop()

        #expect(emailStart.status == 201)
        #expect(emailStart.headerFields["Location"]?.contains("email%7Cdev_") == true)
        #expect(emailOutbox.status == 200)
        let emailMessage = try #require(emailOutbox.json?["messages"]?.arrayValue?.last)
        #expect(emailMessage["to"] == "inbox@example.com")
        #expect(emailMessage["channel"] == "email")
        #expect(emailMessage["purpose"] == "enrollment")
        #expect(emailMessage["sent_at"]?.stringValue != nil)
        #expect(emailCode.count == 6 && emailCode.allSatisfy(\.isNumber))
        #expect(wrongEmail.status == 400)
        #expect(wrongEmail.json?["detail"] == "Invalid otp_code.")
        #expect(emailVerified.status == 200)
        #expect(emailVerified.json?["type"] == "email")
        #expect(emailVerified.json?["email"] == "inbox@example.com")
        #expect(phoneStart.status == 201)
        #expect(phoneId.hasPrefix("phone|dev_"))
        #expect(phoneOutbox.json?["messages"]?.arrayValue?.last?["channel"] == "voice")
        #expect(phoneVerified.status == 200)
        #expect(phoneVerified.json?["phone_number"] == "+14155550100")
        #expect(phoneVerified.json?["preferred_authentication_method"] == "voice")
        #expect(patched.status == 200)
        #expect(patched.json?["name"] == "Desk phone")
        #expect(patched.json?["preferred_authentication_method"] == "sms")
        #expect(badPatch.status == 400)
        #expect(badPatch.json?["validation_errors"]?.arrayValue?.first?["field"] == "preferred_authentication_method")
        #expect(phones.json?["authentication_methods"]?.arrayValue?.count == 1)
        #expect(phones.json?["authentication_methods"]?.arrayValue?.first?["name"] == "Desk phone")
        let types = all.json?["authentication_methods"]?.arrayValue?.compactMap { $0["type"]?.stringValue }
        #expect(types == ["password", "email", "phone"])
        #expect(all.json?["authentication_methods"]?.arrayValue?.first?["usage"] == ["primary"])
        #expect(emptyOutbox.json == ["messages": []])
        #expect(noRecipient.status == 400)
        let list = try #require(authenticators.json?.arrayValue)
        #expect(list.contains { $0["id"]?.stringValue == emailId && $0["type"] == "email" && $0["active"] == true })
        #expect(list.contains { $0["id"]?.stringValue == phoneId && $0["type"] == "phone" && $0["oob_channel"] == "sms" })
        #expect(challenge.status == 200)
        #expect(challenge.json?["oob_code"] != nil)
        #expect(deleted.status == 204)
        let remaining = try #require(afterDelete.json?.arrayValue)
        #expect(!remaining.contains { $0["id"]?.stringValue == emailId })
        #expect(remaining.contains { $0["id"]?.stringValue == phoneId })
    }

    @Test func pushEnrollmentWaitsForTheDevice() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        try await wire.seed("push@example.com")
        let token = try await wire.apiToken("push@example.com", audience: wire.myAccountAudience, scope: Auth0Wire.myAccountScopes)
        let start = try await wire.call(.post, Self.methods, token: token, json: ["type": "push-notification"])
        let id = try #require(methodId(fromLocation: start.headerFields["Location"]))
        let session = try #require(start.json?["auth_session"]?.stringValue)
        let verifyPath = Self.methods + "/\(pathEncoded(id))/verify"
        let early = try await wire.call(.post, verifyPath, token: token, json: ["auth_session": .string(session)])
        let unknownAccept = try await wire.post("/auth0/__emulator/push/accept", json: ["id": "push|dev_unknown"])
        let accept = try await wire.post("/auth0/__emulator/push/accept", json: ["id": .string(id)])
        let verified = try await wire.call(.post, verifyPath, token: token, json: ["auth_session": .string(session)])
        let listed = try await wire.call(.get, Self.methods + "?type=push-notification", token: token)
        await emulator.stop()

        #expect(start.status == 201)
        #expect(start.json?["id"]?.stringValue == id)
        #expect(start.json?["barcode_uri"]?.stringValue?.isEmpty == false)
        #expect(early.status == 400)
        #expect(early.json?["detail"] == "The enrollment has not been accepted on the device yet.")
        #expect(unknownAccept.status == 404)
        #expect(accept.status == 200)
        #expect(accept.json == ["id": .string(id), "accepted": true])
        #expect(verified.status == 200)
        #expect(verified.json?["type"] == "push-notification")
        #expect(listed.json?["authentication_methods"]?.arrayValue?.count == 1)
    }

    @Test func passkeyEnrollmentSignsInAndPasswordlessUsersEnrollAPassword() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        let authenticator = try SoftwarePasskeyAuthenticator(store: InMemoryPasskeyCredentialStore())
        // A passwordless user: signed up with a passkey, holding only a refresh token.
        let register = try #require(try await wire.post("/auth0/passkey/register", json: [
            "client_id": .string(Auth0Wire.clientId), "user_profile": ["email": "keys@example.com"],
        ]).json)
        let first = try await authenticator.makeCredential(try PasskeyRegistrationOptions(
            json: try #require(register["authn_params_public_key"]), origin: "https://localhost"
        ))
        let signup = try await webAuthnGrant(wire, session: try #require(register["auth_session"]?.stringValue), response: first.json)
        let refreshToken = try #require(signup.json?["refresh_token"]?.stringValue)
        let tokenReply = try await wire.refresh(refreshToken, audience: wire.myAccountAudience, scope: Auth0Wire.myAccountScopes)
        let token = try #require(tokenReply.json?["access_token"]?.stringValue)

        // A second passkey through My Account.
        let start = try await wire.call(.post, Self.methods, token: token, json: ["type": "passkey"])
        let id = try #require(methodId(fromLocation: start.headerFields["Location"]))
        let options = try #require(start.json?["authn_params_public_key"])
        let second = try await authenticator.makeCredential(try PasskeyRegistrationOptions(json: options, origin: "https://localhost"))
        let session = try #require(start.json?["auth_session"]?.stringValue)
        let verifyPath = Self.methods + "/\(pathEncoded(id))/verify"
        let badAttestation = try await wire.call(.post, verifyPath, token: token,
                                                 json: ["auth_session": .string(session), "authn_response": first.json])
        let verified = try await wire.call(.post, verifyPath, token: token,
                                           json: ["auth_session": .string(session), "authn_response": second.json])

        // Both passkeys sign in through the webauthn grant.
        let challenge = try #require(try await wire.post("/auth0/passkey/challenge", json: ["client_id": .string(Auth0Wire.clientId)]).json)
        var request = try PasskeyAssertionOptions(json: try #require(challenge["authn_params_public_key"]), origin: "https://localhost")
        let keyId = try #require(verified.json?["key_id"]?.stringValue)
        request.allowCredentials = [Array(try #require(Base64URL.decode(keyId)))]
        let assertion = try await authenticator.getAssertion(request)
        let passkeyLogin = try await webAuthnGrant(wire, session: try #require(challenge["auth_session"]?.stringValue),
                                                   response: assertion.json)
        let passkeyClaims = try await wire.verifiedClaims(try #require(passkeyLogin.json?["id_token"]?.stringValue))

        // A password for the passwordless user.
        let passwordStart = try await wire.call(.post, Self.methods, token: token, json: ["type": "password"])
        let passwordId = try #require(passwordStart.json?["id"]?.stringValue)
        let passwordSession = try #require(passwordStart.json?["auth_session"]?.stringValue)
        let passwordPath = Self.methods + "/\(pathEncoded(passwordId))/verify"
        let weak = try await wire.call(.post, passwordPath, token: token,
                                       json: ["auth_session": .string(passwordSession), "new_password": "short"])
        let passwordSet = try await wire.call(.post, passwordPath, token: token,
                                              json: ["auth_session": .string(passwordSession), "new_password": "a long new password"])
        let passwordLogin = try await wire.login("keys@example.com", clientId: Auth0Wire.clientId, password: "a long new password")
        let listed = try await wire.call(.get, Self.methods, token: token)

        // Deleting the enrolled passkey stops it from signing in.
        let deleted = try await wire.call(.delete, Self.methods + "/\(pathEncoded(id))", token: token)
        let challengeAfter = try #require(try await wire.post("/auth0/passkey/challenge", json: ["client_id": .string(Auth0Wire.clientId)]).json)
        var requestAfter = try PasskeyAssertionOptions(json: try #require(challengeAfter["authn_params_public_key"]), origin: "https://localhost")
        requestAfter.allowCredentials = request.allowCredentials
        let assertionAfter = try await authenticator.getAssertion(requestAfter)
        let refused = try await webAuthnGrant(wire, session: try #require(challengeAfter["auth_session"]?.stringValue),
                                              response: assertionAfter.json)
        await emulator.stop()

        #expect(signup.status == 200)
        #expect(tokenReply.status == 200)
        #expect(start.status == 201)
        #expect(start.json?["id"] == nil)
        #expect(id.hasPrefix("passkey|dev_"))
        #expect(start.headerFields["Location"]?.contains("passkey%7Cdev_") == true)
        #expect(options["rp"]?["id"] == "localhost")
        #expect(options["user"]?["name"] == "keys@example.com")
        #expect(options["user"]?["id"] == register["authn_params_public_key"]?["user"]?["id"])
        let algorithms = options["pubKeyCredParams"]?.arrayValue?.compactMap { $0["alg"]?.intValue } ?? []
        #expect(algorithms.contains(-7) && algorithms.contains(-257))
        #expect(options["authenticatorSelection"] == ["residentKey": "required", "userVerification": "preferred"])
        #expect(options["challenge"]?.stringValue?.isEmpty == false)
        #expect(options["timeout"]?.intValue ?? 0 > 0)
        #expect(badAttestation.status == 400)
        #expect(verified.status == 200)
        let method = try #require(verified.json)
        #expect(method["id"]?.stringValue == id)
        #expect(method["type"] == "passkey")
        #expect(method["identity_user_id"]?.stringValue?.isEmpty == false)
        #expect(method["key_id"]?.stringValue.flatMap { Base64URL.decode($0) }.map { Array($0) } == second.credentialID)
        #expect(method["public_key"]?.stringValue.flatMap { Data(base64Encoded: $0) } != nil)
        #expect(method["user_handle"] == options["user"]?["id"])
        #expect(method["credential_device_type"]?.stringValue != nil)
        #expect(method["credential_backed_up"]?.boolValue != nil)
        #expect(method["aaguid"]?.stringValue != nil)
        #expect(method["relying_party_id"] == "localhost")
        let createdAt = try #require(method["created_at"]?.stringValue)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        #expect(formatter.date(from: createdAt) != nil)
        #expect(passkeyLogin.status == 200)
        #expect(passkeyClaims["email"] == "keys@example.com")
        #expect(passwordStart.status == 201)
        #expect(passwordStart.json?["policy"]?["complexity"]?["min_length"] == 8)
        #expect(weak.status == 400)
        #expect(weak.json?["validation_errors"]?.arrayValue?.first?["field"] == "new_password")
        #expect(passwordSet.status == 200)
        #expect(passwordSet.json?["type"] == "password")
        #expect(passwordSet.json?["usage"] == ["primary"])
        #expect(passwordLogin.status == 200)
        let types = listed.json?["authentication_methods"]?.arrayValue?.compactMap { $0["type"]?.stringValue }
        #expect(types == ["password", "passkey", "passkey"])
        #expect(deleted.status == 204)
        #expect(refused.status == 403)
    }

    func webAuthnGrant(_ wire: Auth0Wire, session: String, response: JSONValue) async throws -> Auth0Wire.Reply {
        try await wire.post("/auth0/oauth/token", json: [
            "client_id": .string(Auth0Wire.clientId), "grant_type": "urn:okta:params:oauth:grant-type:webauthn",
            "auth_session": .string(session), "authn_response": response, "scope": "openid email offline_access",
        ])
    }
}
