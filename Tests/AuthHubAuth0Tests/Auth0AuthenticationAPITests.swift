import AuthHub
@_spi(Internals) @testable import AuthHubAuth0
import AuthHubFactors
import AuthHubTesting
import Foundation
import Testing

/// Every request of spec/auth0.md §3 as it goes on the wire: method, path, headers, body fields.
@Suite struct Auth0AuthenticationAPITests {
    let transport = StubTransport()
    let clock = FakeClock()
    let base = URL(string: "https://tenant.eu.auth0.com/")!

    var api: Auth0AuthenticationAPI {
        Auth0AuthenticationAPI(providerID: "auth0", clientID: "client-123", baseURL: base,
                               context: ProviderContext(transport: transport, clock: clock))
    }

    static let tokens: JSONValue = ["access_token": "at", "token_type": "Bearer", "id_token": "idt", "refresh_token": "rt",
                                    "expires_in": 86400, "scope": "openid profile"]

    private func stubToken(_ reply: JSONValue = tokens) {
        transport.on(.post, "/oauth/token") { _ in .json(200, reply) }
    }

    private func lastBody(_ path: String) throws -> [String: JSONValue] {
        let request = try #require(transport.requests(to: path).last)
        #expect(request.headerFields["Content-Type"]?.hasPrefix("application/json") == true)
        return try #require(request.jsonBody?.objectValue)
    }

    @Test func passwordRealmLogin() async throws {
        stubToken()
        let credentials = try await api.login(usernameOrEmail: "ada@example.com", password: Secret("pw"),
                                              realm: "Username-Password-Authentication", audience: "https://api", scope: "profile")
        #expect(try lastBody("/oauth/token") == [
            "client_id": "client-123", "grant_type": "http://auth0.com/oauth/grant-type/password-realm",
            "username": "ada@example.com", "password": "pw", "realm": "Username-Password-Authentication",
            "audience": "https://api", "scope": "openid profile",
        ])
        #expect(credentials.accessToken.revealed() == "at" && credentials.refreshToken?.revealed() == "rt")
        #expect(credentials.expiresAt == clock.now.addingTimeInterval(86400))
        let request = try #require(transport.requests.last)
        #expect(request.method == .post && request.url.absoluteString == "https://tenant.eu.auth0.com/oauth/token")
        let telemetry = try #require(request.headerFields["Auth0-Client"])
        let decoded = try JSONValue.parse(try #require(Base64URL.decode(telemetry)))
        #expect(decoded["name"] == "AuthHub" && decoded["env"]?["swift"] != nil)
        #expect(!telemetry.contains("="))
    }

    @Test func defaultDirectoryLoginHasNoRealmAndTheDefaultScope() async throws {
        stubToken()
        _ = try await api.login(usernameOrEmail: "ada", password: Secret("pw"))
        #expect(try lastBody("/oauth/token") == [
            "client_id": "client-123", "grant_type": "password", "username": "ada", "password": "pw",
            "scope": "openid profile email offline_access",
        ])
    }

    @Test func callerParametersAndHeadersWinThenOpenIDIsEnsured() async throws {
        stubToken()
        _ = try await api.login(usernameOrEmail: "ada", password: Secret("pw"), options: .init(
            parameters: ["scope": "read:things", "device": "cli", "client_id": "override"], headerFields: [HTTPField.Name.constant("X-Tenant"): "t1", HTTPField.Name.constant("Auth0-Client"): "mine"]))
        let body = try lastBody("/oauth/token")
        #expect(body["scope"] == "openid read:things" && body["device"] == "cli" && body["client_id"] == "override")
        let request = try #require(transport.requests.last)
        #expect(request.headerFields["X-Tenant"] == "t1" && request.headerFields["Auth0-Client"] == "mine")
    }

    @Test func telemetryCanBeDisabledOrWrapped() async throws {
        stubToken()
        let quiet = Auth0AuthenticationAPI(providerID: "auth0", clientID: "c", baseURL: base,
                                           context: ProviderContext(transport: transport, clock: clock), telemetry: nil)
        _ = try await quiet.login(usernameOrEmail: "a", password: Secret("p"))
        #expect(transport.requests.last?.headerFields["Auth0-Client"] == nil)
        let wrapped = Auth0Telemetry(wrappingLibrary: "MyKit", version: "2.0")
        let json = try JSONValue.parse(try #require(Base64URL.decode(wrapped.value)))
        #expect(json["name"] == "MyKit" && json["version"] == "2.0" && json["env"]?["core"] == .string(Auth0Telemetry.library.version))
    }

    @Test func codeExchange() async throws {
        stubToken()
        _ = try await api.exchange(code: Secret("the-code"), codeVerifier: Secret("verifier"), redirectURI: "http://127.0.0.1:5000/callback")
        #expect(try lastBody("/oauth/token") == [
            "client_id": "client-123", "grant_type": "authorization_code", "code": "the-code", "code_verifier": "verifier",
            "redirect_uri": "http://127.0.0.1:5000/callback",
        ])
    }

    @Test func renewSendsTheScopeAsGivenWithoutAudience() async throws {
        stubToken(["access_token": "at2", "token_type": "Bearer", "expires_in": "3600"])
        let renewed = try await api.renew(refreshToken: Secret("rt"))
        #expect(try lastBody("/oauth/token") == ["client_id": "client-123", "grant_type": "refresh_token", "refresh_token": "rt"])
        #expect(renewed.refreshToken == nil && renewed.expiresAt == clock.now.addingTimeInterval(3600))
        _ = try await api.renew(refreshToken: Secret("rt"), scope: "read:x")
        #expect(try lastBody("/oauth/token")["scope"] == "read:x")
        _ = try await api.renew(refreshToken: Secret("rt"), scope: "read:x", audience: "https://api")
        let withAudience = try lastBody("/oauth/token")
        #expect(withAudience["scope"] == "openid read:x" && withAudience["audience"] == "https://api")
    }

    @Test func revokeAcceptsAnEmptyReply() async throws {
        transport.on(.post, "/oauth/revoke") { _ in .raw(200, "") }
        try await api.revoke(refreshToken: Secret("rt"))
        #expect(try lastBody("/oauth/revoke") == ["client_id": "client-123", "token": "rt"])
    }

    @Test func ssoExchangeUsesTheSessionTransferAudience() async throws {
        stubToken(["access_token": "stt", "issued_token_type": "urn:auth0:params:oauth:token-type:session_transfer_token",
                   "expires_in": 60, "id_token": "idt"])
        let sso = try await api.ssoExchange(refreshToken: Secret("rt"))
        #expect(try lastBody("/oauth/token") == [
            "client_id": "client-123", "grant_type": "refresh_token", "refresh_token": "rt",
            "audience": "urn:tenant.eu.auth0.com:session_transfer",
        ])
        #expect(sso.issuedTokenType == "urn:auth0:params:oauth:token-type:session_transfer_token")
    }

    @Test func userInfoSendsTheTokenTypeAndNeedsSub() async throws {
        transport.on(.get, "/userinfo", times: 1) { _ in .json(200, ["sub": "auth0|1", "email": "ada@example.com", "email_verified": true]) }
        let info = try await api.userInfo(accessToken: Secret("at"), tokenType: "DPoP")
        #expect(info.id == "auth0|1" && info.email == "ada@example.com" && info.emailVerified == true)
        #expect(transport.requests.last?.headerFields["Authorization"] == "DPoP at")
        transport.on(.get, "/userinfo") { _ in .json(200, ["email": "x"]) }
        await #expect(throws: AuthError(.invalidRequest)) { try await api.userInfo(accessToken: Secret("at")) }
    }

    @Test func signupCopiesRootAttributesOnlyWhereUnset() async throws {
        transport.on(.post, "/dbconnections/signup") { _ in .json(200, ["_id": "abc", "email": "ada@example.com", "email_verified": false]) }
        let user = try await api.signup(email: "ada@example.com", password: Secret("pw"), username: "ada",
                                        userMetadata: ["plan": "free"], rootAttributes: ["given_name": "Ada", "email": "other@example.com"])
        #expect(try lastBody("/dbconnections/signup") == [
            "client_id": "client-123", "email": "ada@example.com", "password": "pw",
            "connection": "Username-Password-Authentication", "username": "ada", "user_metadata": ["plan": "free"],
            "given_name": "Ada",
        ])
        #expect(user == Auth0DatabaseUser(email: "ada@example.com", username: nil, verified: false, id: "abc"))
    }

    @Test func resetPasswordAcceptsATextReply() async throws {
        transport.on(.post, "/dbconnections/change_password") { _ in .raw(200, "We've just sent you an email to reset your password.") }
        try await api.resetPassword(email: "ada@example.com", organization: "org_1")
        #expect(try lastBody("/dbconnections/change_password") == [
            "client_id": "client-123", "email": "ada@example.com", "connection": "Username-Password-Authentication", "organization": "org_1",
        ])
    }

    @Test func passwordlessStartAndLogin() async throws {
        transport.on(.post, "/passwordless/start") { _ in .json(200, [:]) }
        stubToken()
        try await api.startPasswordless(email: "ada@example.com")
        #expect(try lastBody("/passwordless/start") == ["client_id": "client-123", "connection": "email", "send": "code", "email": "ada@example.com"])
        try await api.startPasswordless(phoneNumber: "+15555550100", send: .linkIOS)
        #expect(try lastBody("/passwordless/start") == ["client_id": "client-123", "connection": "sms", "send": "link_ios", "phone_number": "+15555550100"])
        _ = try await api.loginPasswordless(email: "ada@example.com", code: Secret("123456"), audience: "https://api")
        #expect(try lastBody("/oauth/token") == [
            "client_id": "client-123", "grant_type": "http://auth0.com/oauth/grant-type/passwordless/otp", "username": "ada@example.com",
            "otp": "123456", "realm": "email", "audience": "https://api", "scope": "openid profile email offline_access",
        ])
        _ = try await api.loginPasswordless(phoneNumber: "+15555550100", code: Secret("654321"))
        #expect(try lastBody("/oauth/token")["realm"] == "sms")
    }

    @Test func databaseOTPChallengeThenLogin() async throws {
        transport.on(.post, "/otp/challenge") { _ in .json(200, ["auth_session": "sess-1"]) }
        stubToken()
        let session = try await api.startDatabaseOTP(email: "ada@example.com")
        #expect(try lastBody("/otp/challenge") == ["client_id": "client-123", "connection": "Username-Password-Authentication",
                                                   "allow_signup": false, "email": "ada@example.com"])
        _ = try await api.startDatabaseOTP(phoneNumber: "+15555550100", deliveryMethod: "voice", allowSignup: true)
        #expect(try lastBody("/otp/challenge")["delivery_method"] == "voice")
        _ = try await api.loginDatabaseOTP(authSession: session, code: Secret("111222"))
        #expect(try lastBody("/oauth/token") == [
            "client_id": "client-123", "grant_type": "http://auth0.com/oauth/grant-type/passwordless/otp", "auth_session": "sess-1",
            "otp": "111222", "scope": "openid profile email offline_access",
        ])
    }

    @Test func tokenExchanges() async throws {
        stubToken()
        _ = try await api.loginWithApple(authorizationCode: Secret("apple-code"), givenName: "Ada", familyName: "",
                                         profile: ["email": "ada@example.com"])
        let apple = try lastBody("/oauth/token")
        #expect(apple["grant_type"] == "urn:ietf:params:oauth:grant-type:token-exchange")
        #expect(apple["subject_token"] == "apple-code" && apple["subject_token_type"] == "http://auth0.com/oauth/token-type/apple-authz-code")
        let profile = try JSONValue.parse(Data(try #require(apple["user_profile"]?.stringValue).utf8))
        #expect(profile == ["email": "ada@example.com", "name": ["firstName": "Ada"]])

        _ = try await api.loginWithFacebook(sessionAccessToken: Secret("fb"), profile: ["id": "1", "name": "Ada"])
        let facebook = try lastBody("/oauth/token")
        #expect(facebook["subject_token_type"] == "http://auth0.com/oauth/token-type/facebook-info-session-access-token")
        #expect(facebook["user_profile"]?.stringValue == #"{"id":"1","name":"Ada"}"#)

        _ = try await api.exchange(subjectToken: Secret("st"), subjectTokenType: "urn:acme:legacy", organization: "org_1",
                                   actorToken: Secret("act"), actorTokenType: "urn:acme:actor")
        let custom = try lastBody("/oauth/token")
        #expect(custom["actor_token"] == "act" && custom["actor_token_type"] == "urn:acme:actor" && custom["organization"] == "org_1")
        await #expect(throws: AuthError(.invalidRequest)) {
            try await api.exchange(subjectToken: Secret("st"), subjectTokenType: "t", actorToken: Secret("a"))
        }
    }

    @Test func mfaEndpoints() async throws {
        transport.on(.get, "/mfa/authenticators") { _ in
            .json(200, [["id": "totp|1", "authenticator_type": "otp", "active": true, "type": "otp"],
                        ["id": "sms|1", "authenticator_type": "oob", "oob_channel": "sms", "active": true, "type": "sms"]])
        }
        let list = try await api.listAuthenticators(mfaToken: Secret("mfa"), factorsAllowed: ["otp"])
        #expect(list.map(\.id) == ["totp|1"])
        #expect(transport.requests.last?.headerFields["Authorization"] == "Bearer mfa")
        await #expect(throws: AuthError(.invalidRequest)) { try await api.listAuthenticators(mfaToken: Secret("mfa"), factorsAllowed: []) }
        #expect(transport.requests(to: "/mfa/authenticators").count == 1)

        transport.on(.post, "/mfa/challenge") { _ in .json(200, ["challenge_type": "oob", "oob_code": "oob-1", "binding_method": "prompt"]) }
        let challenge = try await api.challenge(mfaToken: Secret("mfa"), authenticatorID: "sms|1")
        #expect(try lastBody("/mfa/challenge") == ["client_id": "client-123", "mfa_token": "mfa", "challenge_type": "oob",
                                                   "authenticator_id": "sms|1"])
        #expect(challenge.oobCode?.revealed() == "oob-1" && challenge.bindingMethod == "prompt")

        transport.on(.post, "/mfa/associate") { _ in
            .json(200, ["authenticator_type": "otp", "secret": "JBSWY3DPEHPK3PXP",
                        "barcode_uri": "otpauth://totp/t:ada?secret=JBSWY3DPEHPK3PXP", "recovery_codes": ["RC1"]])
        }
        let enrollment = try await api.enroll(mfaToken: Secret("mfa"), .otp)
        #expect(try lastBody("/mfa/associate") == ["authenticator_types": ["otp"]])
        #expect(transport.requests.last?.headerFields["Authorization"] == "Bearer mfa")
        #expect(enrollment.secret?.revealed() == "JBSWY3DPEHPK3PXP" && enrollment.recoveryCodes.count == 1)
        for (factor, expected) in [(Auth0MFAEnrollmentRequest.sms(phoneNumber: "+1555"), ["authenticator_types": ["oob"], "oob_channels": ["sms"], "phone_number": "+1555"] as JSONValue),
                                   (.email("a@b.c"), ["authenticator_types": ["oob"], "oob_channels": ["email"], "email": "a@b.c"]),
                                   (.push, ["authenticator_types": ["oob"], "oob_channels": ["auth0"]])] {
            _ = try await api.enroll(mfaToken: Secret("mfa"), factor)
            #expect(try lastBody("/mfa/associate") == expected.objectValue)
        }

        stubToken()
        _ = try await api.verify(mfaToken: Secret("mfa"), otp: Secret("123456"))
        #expect(try lastBody("/oauth/token") == ["client_id": "client-123", "grant_type": "http://auth0.com/oauth/grant-type/mfa-otp",
                                                 "mfa_token": "mfa", "otp": "123456"])
        _ = try await api.verify(mfaToken: Secret("mfa"), oobCode: Secret("oob-1"), bindingCode: Secret("42"))
        #expect(try lastBody("/oauth/token") == ["client_id": "client-123", "grant_type": "http://auth0.com/oauth/grant-type/mfa-oob",
                                                 "mfa_token": "mfa", "oob_code": "oob-1", "binding_code": "42"])
        transport.on(.post, "/oauth/token", first: true) { _ in
            .json(200, ["access_token": "at", "expires_in": 60, "recovery_code": "NEWCODE"])
        }
        let recovered = try await api.verify(mfaToken: Secret("mfa"), recoveryCode: Secret("OLDCODE"))
        #expect(try lastBody("/oauth/token")["grant_type"] == "http://auth0.com/oauth/grant-type/mfa-recovery-code")
        #expect(recovered.recoveryCode?.revealed() == "NEWCODE")
    }

    @Test func mfaRequiredLoginSurfacesTheMFAToken() async throws {
        transport.on(.post, "/oauth/token") { _ in
            .json(403, ["error": "mfa_required", "error_description": "Multifactor authentication required", "mfa_token": "mfa-xyz"])
        }
        let error = await #expect(throws: AuthError.self) { try await api.login(usernameOrEmail: "a", password: Secret("p")) }
        #expect(error?.code == .mfaRequired && error?.mfa?.token.revealed() == "mfa-xyz" && error?.provider == "auth0")
    }

    @Test func passkeySignupThenLoginWithTheSoftwareAuthenticator() async throws {
        let authenticator = try SoftwarePasskeyAuthenticator(store: InMemoryPasskeyCredentialStore())
        transport.on(.post, "/passkey/register") { _ in
            .json(200, ["auth_session": "reg-session", "authn_params_public_key": [
                "challenge": "AAECAwQFBgcICQoLDA0ODw", "rp": ["id": "tenant.eu.auth0.com", "name": "Tenant"],
                "user": ["id": "dXNlcg", "name": "ada@example.com", "displayName": "Ada"],
                "pubKeyCredParams": [["type": "public-key", "alg": -8], ["type": "public-key", "alg": -7]],
                "authenticatorSelection": ["residentKey": "required", "userVerification": "required"], "timeout": 60000,
            ]])
        }
        transport.on(.post, "/passkey/challenge") { _ in
            .json(200, ["auth_session": "login-session", "authn_params_public_key": [
                "challenge": "EBESExQVFhcYGRobHB0eHw", "rpId": "tenant.eu.auth0.com", "timeout": 60000, "userVerification": "preferred",
            ]])
        }
        stubToken()

        let signup = try await api.passkeySignupChallenge(userProfile: ["email": "ada@example.com"], connection: "Username-Password-Authentication")
        #expect(try lastBody("/passkey/register") == ["client_id": "client-123", "user_profile": ["email": "ada@example.com"],
                                                      "realm": "Username-Password-Authentication"])
        #expect(signup.options.relyingParty.id == "tenant.eu.auth0.com" && signup.options.user.id == Array("user".utf8))
        let registration = try await authenticator.makeCredential(signup.options)
        _ = try await api.signup(passkey: registration, challenge: signup)
        let signupBody = try lastBody("/oauth/token")
        #expect(signupBody["grant_type"] == "urn:okta:params:oauth:grant-type:webauthn" && signupBody["auth_session"] == "reg-session")
        #expect(signupBody["authn_response"] == registration.json)

        let login = try await api.passkeyLoginChallenge()
        #expect(try lastBody("/passkey/challenge") == ["client_id": "client-123"])
        let assertion = try await authenticator.getAssertion(login.options)
        _ = try await api.login(passkey: assertion, challenge: login, audience: "https://api")
        let loginBody = try lastBody("/oauth/token")
        #expect(loginBody["auth_session"] == "login-session" && loginBody["authn_response"] == assertion.json)
        #expect(loginBody["audience"] == "https://api" && loginBody["scope"] == "openid profile email offline_access")

        // The relying party can check what was sent: the login assertion signs the challenge Auth0 issued.
        let rp = WebAuthnRelyingParty(id: "tenant.eu.auth0.com")
        let record = try rp.verifyRegistration(try PasskeyRegistration(json: try #require(signupBody["authn_response"])),
                                               challenge: Array(0..<16))
        _ = try rp.verifyAssertion(try PasskeyAssertion(json: try #require(loginBody["authn_response"])),
                                   challenge: Array(16..<32), credential: record)
    }

    @Test func malformedRepliesAreClearErrors() async throws {
        transport.on(.post, "/oauth/token") { _ in .json(200, ["access_token": "at", "expires_in": "soon"]) }
        await #expect(throws: AuthError(.invalidRequest)) { try await api.login(usernameOrEmail: "a", password: Secret("p")) }
        transport.on(.post, "/passkey/challenge") { _ in .json(200, ["auth_session": "s"]) }
        await #expect(throws: AuthError(.invalidRequest)) { try await api.passkeyLoginChallenge() }
        transport.on(.post, "/otp/challenge") { _ in .raw(200, "not json") }
        await #expect(throws: AuthError(.invalidRequest)) { try await api.startDatabaseOTP(email: "a@b.c") }
    }
}
