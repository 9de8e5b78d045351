import AuthHub
import AuthHubFactors
import AuthHubTesting
@_spi(Internals) @testable import AuthHubTurnkey
import Crypto
import Foundation
import Testing

@Suite struct TurnkeyProviderTests {
    struct Fixture {
        let transport = StubTransport()
        let clock = FakeClock()
        let provider: TurnkeyProvider
        let authenticator: SoftwarePasskeyAuthenticator

        init(notarizer: String? = TK.notarizerHex, withAuthenticator: Bool = true) async throws {
            authenticator = try await TK.passkey()
            provider = TurnkeyProvider(id: "tk", configuration: TK.configuration(notarizer: notarizer),
                                       context: ProviderContext(transport: transport, clock: clock,
                                                                passkeyAuthenticator: withAuthenticator ? authenticator : nil))
        }

        func stubLookup(_ ids: [String] = [TK.subOrg]) {
            transport.on(.get, "/api/proxy/sub-org-ids") { _ in .json(200, ["organizationIds": .array(ids.map(JSONValue.string))]) }
        }
    }

    @Test func capabilities() {
        #expect(TurnkeyProvider(id: "tk", configuration: TK.configuration()).capabilities == [.passkey, .passkeySignUp, .refresh, .userInfo])
        #expect(TurnkeyPlugin().capabilities == [.passkey, .passkeySignUp, .refresh, .userInfo])
    }

    /// §9: lookup → stamp_login (passkey-stamped, new session key) → JWT checks → session.
    @Test func passkeySignInWithEmail() async throws {
        let f = try await Fixture()
        f.stubLookup()
        TK.stubStampLogin(f.transport, clock: f.clock)
        let session = try await f.provider.signIn(.passkey(identifier: "ada@example.com"))

        let lookup = try #require(f.transport.requests.first)
        #expect(lookup.url.path == "/api/proxy/sub-org-ids")
        #expect(lookup.queryItems == ["filterType": "EMAIL", "filterValue": "ada@example.com"])
        let login = try #require(f.transport.requests(to: "/public/v1/submit/stamp_login").first)
        #expect(TK.stampHeaderNames(login) == ["X-Stamp-WebAuthn"])
        let body = try #require(login.jsonBody)
        #expect(body["type"] == "ACTIVITY_TYPE_STAMP_LOGIN")
        #expect(body["organizationId"] == .string(TK.subOrg))
        #expect(body["timestampMs"] == "1767225600000")
        #expect(body["parameters"]?["expirationSeconds"] == "900")
        let publicKey = try #require(body["parameters"]?["publicKey"]?.stringValue)
        #expect(publicKey.count == 66 && (publicKey.hasPrefix("02") || publicKey.hasPrefix("03")))
        // The WebAuthn stamp's challenge is over the exact body sent.
        let header = try #require(login.headerFields["X-Stamp-WebAuthn"])
        let stamp = try JSONValue.parse(Data(header.utf8))
        let clientDataB64 = try #require(stamp["clientDataJson"]?.stringValue)
        let clientData = try JSONValue.parse(try #require(Base64URL.decode(clientDataB64)))
        let sentBody = try #require(login.body)
        #expect(clientData["challenge"] == .string(Base64URL.encode(TurnkeyPasskeyStamper.challenge(for: Array(sentBody)))))

        #expect(session.providerID == "tk")
        #expect(session.tokenType == "TurnkeySession")
        #expect(session.userID == TK.userId)
        #expect(session.expiresAt == f.clock.now.addingTimeInterval(900))
        #expect(session.extras["organizationId"] == .string(TK.subOrg))
        #expect(session.extras["parentOrganizationId"] == .string(TK.parentOrg))
        #expect(session.extras["sessionPublicKey"] == .string(publicKey))
        #expect(session.extras["sessionType"] == "SESSION_TYPE_READ_WRITE")
        let privateKey = try #require(session.secretExtras["sessionPrivateKey"])
        #expect(session.refreshToken == privateKey)
        #expect(session.canRenew)
        let derived = try TurnkeyAPIKeyStamper(privateKeyHex: privateKey)
        #expect(derived.publicKey == publicKey)
        #expect(!"\(session)".contains(privateKey.revealed()), "the key never prints")
        #expect(try f.provider.sessionStamper(for: session).publicKey == publicKey)
    }

    /// Without an email: log in with the parent organization; the JWT's organization is the user's.
    @Test func passkeySignInWithoutEmailUsesTheParentOrganization() async throws {
        let f = try await Fixture()
        TK.stubStampLogin(f.transport, clock: f.clock)
        let session = try await f.provider.signIn(.passkey(identifier: nil))
        #expect(f.transport.requests(to: "/api/proxy/sub-org-ids").isEmpty)
        #expect(f.transport.requests.first?.jsonBody?["organizationId"] == .string(TK.parentOrg))
        #expect(session.extras["organizationId"] == .string(TK.subOrg))
    }

    @Test func directSignInTakesAnAuthenticator() async throws {
        let f = try await Fixture(withAuthenticator: false)
        f.stubLookup()
        TK.stubStampLogin(f.transport, clock: f.clock)
        let session = try await f.provider.signIn(email: "ada@example.com", authenticator: f.authenticator)
        #expect(session.userID == TK.userId)
    }

    @Test func noAuthenticatorIsAConfigurationError() async throws {
        let f = try await Fixture(withAuthenticator: false)
        let error = await #expect(throws: AuthError.self) { try await f.provider.signIn(.passkey(identifier: "ada@example.com")) }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.contains("passkey authenticator") == true)
        #expect(f.transport.requests.isEmpty)
        await #expect(throws: AuthError(.unsupported)) {
            try await f.provider.signIn(.password(identifier: "a@b.c", password: Secret("pw")))
        }
    }

    /// The email's format is checked before any request, for sign-in and sign-up alike.
    @Test func malformedEmailsAreRefusedBeforeAnyRequest() async throws {
        let f = try await Fixture()
        for bad in ["not-an-email", "a@b", "a b@example.com", "@example.com", "a@.com", "a@example.com.", "a@@example.com",
                    String(repeating: "a", count: 400) + "@example.com", "a\u{0}@example.com"] {
            await #expect(throws: AuthError(.invalidEmail), "\(bad)") { try await f.provider.signIn(.passkey(identifier: bad)) }
            await #expect(throws: AuthError(.invalidEmail), "\(bad)") { try await f.provider.signUpWithPasskey(email: bad, displayName: nil) }
        }
        #expect(f.transport.requests.isEmpty)
    }

    /// Sign-up: lookup (must be empty), the example backend's `POST /auth/createSubOrg` with the new
    /// passkey's attestation, then `stamp_login` into the new sub-organization.
    @Test func signUpCreatesTheSubOrganizationThroughTheProxyThenSignsIn() async throws {
        let f = try await Fixture()
        f.stubLookup([])
        f.transport.on(.post, "/api/auth/createSubOrg") { _ in .json(200, ["subOrganizationId": .string(TK.subOrg)]) }
        TK.stubStampLogin(f.transport, clock: f.clock)
        let session = try await f.provider.signUpWithPasskey(email: "new@example.com", displayName: "New")
        let create = try #require(f.transport.requests(to: "/api/auth/createSubOrg").first)
        #expect(create.method == .post && create.headerFields["X-Stamp"] == nil && create.headerFields["X-Stamp-WebAuthn"] == nil, "no stamp")
        let body = try #require(create.jsonBody)
        #expect(body["email"] == "new@example.com" && body["passkey"]?["name"] == "AuthHub passkey")
        #expect(body["passkey"]?["challenge"]?.stringValue.flatMap(Base64URL.decode)?.count == 32)
        let attestation = try #require(body["passkey"]?["attestation"])
        for field in ["credentialId", "clientDataJson", "attestationObject"] {
            #expect(attestation[field]?.stringValue.flatMap(Base64URL.decode)?.isEmpty == false, "\(field)")
        }
        let clientData = try JSONValue.parse(try #require(attestation["clientDataJson"]?.stringValue.flatMap(Base64URL.decode)))
        #expect(clientData["type"] == "webauthn.create" && clientData["challenge"] == body["passkey"]?["challenge"])
        #expect(f.transport.requests(to: "/public/v1/submit/stamp_login").first?.jsonBody?["organizationId"] == .string(TK.subOrg))
        #expect(session.extras["organizationId"] == .string(TK.subOrg))

        f.transport.on(.get, "/api/proxy/sub-org-ids", first: true) { _ in .json(200, ["organizationIds": [.string(TK.subOrg)]]) }
        await #expect(throws: AuthError(.emailAlreadyInUse)) { try await f.provider.signUpWithPasskey(email: "taken@example.com", displayName: nil) }
        #expect(f.transport.requests(to: "/api/auth/createSubOrg").count == 1, "a taken email creates nothing")
    }

    /// A backend serving only createSubOrg (Turnkey's example backend) answers the lookup 404 or
    /// 405: sign-up cannot check and goes on; createSubOrg then decides.
    @Test(arguments: [(404, "Cannot GET /api/proxy/sub-org-ids"), (405, ""), (404, #"{"code":5,"message":"Not Found","details":[]}"#)])
    func aBackendWithoutTheLookupRouteStillSignsUp(status: Int, body: String) async throws {
        let f = try await Fixture()
        f.transport.on(.get, "/api/proxy/sub-org-ids") { _ in .raw(status, body, headerFields: [.contentType: "text/html"]) }
        f.transport.on(.post, "/api/auth/createSubOrg") { _ in .json(200, ["subOrganizationId": .string(TK.subOrg)]) }
        TK.stubStampLogin(f.transport, clock: f.clock)
        let session = try await f.provider.signUpWithPasskey(email: "new@example.com", displayName: nil)
        #expect(session.extras["organizationId"] == .string(TK.subOrg))
        #expect(f.transport.requests.map(\.url.path).prefix(2) == ["/api/proxy/sub-org-ids", "/api/auth/createSubOrg"])
    }

    /// Other lookup failures stop the sign-up before a passkey is made (nothing would be checked).
    @Test(arguments: [500, 401, 400])
    func otherLookupFailuresStopTheSignUp(status: Int) async throws {
        let f = try await Fixture()
        f.transport.on(.get, "/api/proxy/sub-org-ids") { _ in .raw(status, "") }
        let before = try await f.authenticator.store.all().count
        await #expect(throws: AuthError.self) { try await f.provider.signUpWithPasskey(email: "new@example.com", displayName: nil) }
        #expect(f.transport.requests(to: "/api/auth/createSubOrg").isEmpty)
        #expect(try await f.authenticator.store.all().count == before, "no passkey made")
    }

    /// Without the lookup, a duplicate is reported from createSubOrg's own answer: a message saying
    /// the email exists is emailAlreadyInUse whatever its status; another ALREADY_EXISTS is conflict.
    @Test(arguments: [
        (409, #"{"code":6,"message":"a sub-organization with email new@example.com already exists","details":[]}"#, AuthErrorCode.emailAlreadyInUse),
        (500, #"{"message":"Turnkey error 6: user with email already exists"}"#, .emailAlreadyInUse),
        (400, #"{"error":"Duplicate email address"}"#, .emailAlreadyInUse),
        (409, #"{"code":6,"message":"this passkey is already registered","details":[]}"#, .conflict),
        (409, "", .conflict),
        (500, #"{"message":"internal error"}"#, .providerUnavailable),
    ])
    func createSubOrgRefusalsAreMapped(status: Int, body: String, expected: AuthErrorCode) async throws {
        let f = try await Fixture()
        f.transport.on(.get, "/api/proxy/sub-org-ids") { _ in .raw(404, "Not Found") }
        f.transport.on(.post, "/api/auth/createSubOrg") { _ in .raw(status, body) }
        let error = await #expect(throws: AuthError.self) { try await f.provider.signUpWithPasskey(email: "new@example.com", displayName: nil) }
        #expect(error?.code == expected, "\(body)")
        #expect(error?.statusCode == status)
    }

    /// WebAuthn transports outside Turnkey's enum are dropped before createSubOrg (Turnkey refuses
    /// the sub-organization over one); known ones become Turnkey's names, whatever their case, once.
    @Test func transportsOutsideTurnkeysEnumAreDropped() async throws {
        let transport = StubTransport()
        let clock = FakeClock()
        let authenticator = try SoftwarePasskeyAuthenticator(
            store: InMemoryPasskeyCredentialStore(),
            configuration: .init(transports: ["internal", "smart-card", "USB", "hybrid", "cable", "ble", "nfc", "usb",
                                              "AUTHENTICATOR_TRANSPORT_NFC", "AUTHENTICATOR_TRANSPORT_SMART-CARD", ""]))
        let provider = TurnkeyProvider(id: "tk", configuration: TK.configuration(),
                                       context: ProviderContext(transport: transport, clock: clock, passkeyAuthenticator: authenticator))
        transport.on(.get, "/api/proxy/sub-org-ids") { _ in .json(200, ["organizationIds": []]) }
        transport.on(.post, "/api/auth/createSubOrg") { _ in .json(200, ["subOrganizationId": .string(TK.subOrg)]) }
        TK.stubStampLogin(transport, clock: clock)
        _ = try await provider.signUpWithPasskey(email: "new@example.com", displayName: nil)
        let body = try #require(transport.requests(to: "/api/auth/createSubOrg").first?.jsonBody)
        #expect(body["passkey"]?["attestation"]?["transports"] == [
            "AUTHENTICATOR_TRANSPORT_INTERNAL", "AUTHENTICATOR_TRANSPORT_USB", "AUTHENTICATOR_TRANSPORT_HYBRID",
            "AUTHENTICATOR_TRANSPORT_BLE", "AUTHENTICATOR_TRANSPORT_NFC",
        ])
    }

    @Test func unknownEmailIsUserNotFound() async throws {
        let f = try await Fixture()
        f.stubLookup([])
        await #expect(throws: AuthError(.userNotFound)) { try await f.provider.signIn(.passkey(identifier: "nobody@example.com")) }
        #expect(f.transport.requests(to: "/public/v1/submit/stamp_login").isEmpty)
    }

    @Test func unregisteredPasskeyIsInvalidCredentials() async throws {
        let f = try await Fixture()
        f.stubLookup()
        f.transport.on(.post, "/public/v1/submit/stamp_login") { _ in .raw(401, TurnkeyErrorMapperTests.unknownKey) }
        let error = await #expect(throws: AuthError.self) { try await f.provider.signIn(.passkey(identifier: "ada@example.com")) }
        #expect(error?.code == .invalidCredentials)
        #expect(error?.providerCode == "16")
    }

    /// Each JWT check rejects the session with a message naming the claim.
    @Test(arguments: ["public_key", "organization_id", "exp", "notarizer", "user_id"])
    func badSessionJWTIsRejected(claim: String) async throws {
        let f = try await Fixture()
        f.stubLookup()
        TK.stubStampLogin(f.transport, clock: f.clock) { key, org, now in
            switch claim {
            case "public_key": try TK.jwt(TK.claims(publicKey: TK.fixturePublic, org: org, exp: now.addingTimeInterval(900)))
            case "organization_id": try TK.jwt(TK.claims(publicKey: key, org: TK.parentOrg, exp: now.addingTimeInterval(900)))
            case "exp": try TK.jwt(TK.claims(publicKey: key, org: org, exp: now.addingTimeInterval(-1)))
            case "user_id": try TK.jwt(TK.claims(publicKey: key, org: org, exp: now.addingTimeInterval(900), user: nil))
            default: try TK.jwt(TK.claims(publicKey: key, org: org, exp: now.addingTimeInterval(900)), signer: P256.Signing.PrivateKey())
            }
        }
        let error = await #expect(throws: AuthError.self) { try await f.provider.signIn(.passkey(identifier: "ada@example.com")) }
        #expect(error?.code == .invalidToken)
        #expect(error?.provider == "tk")
        #expect(error?.message.contains(claim) == true)
    }

    /// No notarizer configured and a non-production host: signatures are not checked (claims still are).
    @Test func noNotarizerSkipsTheSignatureCheck() async throws {
        let f = try await Fixture(notarizer: nil)
        f.stubLookup()
        TK.stubStampLogin(f.transport, clock: f.clock) { key, org, now in
            try TK.jwt(TK.claims(publicKey: key, org: org, exp: now.addingTimeInterval(900)), signer: P256.Signing.PrivateKey())
        }
        _ = try await f.provider.signIn(.passkey(identifier: "ada@example.com"))
        #expect(TK.configuration(notarizer: nil).effectiveNotarizerPublicKeyHex == nil)
        #expect(TK.configuration(notarizer: nil, base: "https://api.turnkey.com").effectiveNotarizerPublicKeyHex
            == TurnkeySessionJWT.productionNotarizerPublicKeyHex)
    }

    /// Refresh: stamp_login X-Stamped with the current session key, a new key pair, a new session.
    @Test func refreshUsesTheCurrentSessionKey() async throws {
        let f = try await Fixture()
        f.stubLookup()
        TK.stubStampLogin(f.transport, clock: f.clock)
        let session = try await f.provider.signIn(.passkey(identifier: "ada@example.com"))
        f.clock.advance(by: 600)
        let renewed = try await f.provider.refresh(session, scope: nil)
        let request = try #require(f.transport.requests(to: "/public/v1/submit/stamp_login").last)
        let stamp = try TurnkeyAPITests.verifyStamp(request)
        #expect(stamp.publicKey == session.extras["sessionPublicKey"]?.stringValue)
        #expect(request.jsonBody?["organizationId"] == .string(TK.subOrg))
        #expect(request.jsonBody?["timestampMs"] == "1767226200000")
        let newKey = try #require(renewed.extras["sessionPublicKey"]?.stringValue)
        #expect(newKey != stamp.publicKey)
        #expect(request.jsonBody?["parameters"]?["publicKey"] == .string(newKey))
        #expect(renewed.expiresAt == f.clock.now.addingTimeInterval(900))
        #expect(renewed.refreshToken != session.refreshToken)
        #expect(renewed.extras["parentOrganizationId"] == .string(TK.parentOrg))
    }

    @Test func refreshRejectedByTheServerIsRefreshTokenInvalid() async throws {
        let f = try await Fixture()
        f.stubLookup()
        TK.stubStampLogin(f.transport, clock: f.clock, times: 1)
        let session = try await f.provider.signIn(.passkey(identifier: "ada@example.com"))
        f.transport.on(.post, "/public/v1/submit/stamp_login") { _ in .raw(401, TurnkeyErrorMapperTests.expiredKey) }
        await #expect(throws: AuthError(.refreshTokenInvalid)) { try await f.provider.refresh(session, scope: nil) }
        // Locally expired or keyless sessions cannot be renewed either, without a request.
        let count = f.transport.requests.count
        f.clock.advance(by: 901)
        await #expect(throws: AuthError(.refreshTokenInvalid)) { try await f.provider.refresh(session, scope: nil) }
        var keyless = session
        keyless.secretExtras = [:]
        keyless.refreshToken = nil
        keyless.expiresAt = nil
        await #expect(throws: AuthError(.refreshTokenInvalid)) { try await f.provider.refresh(keyless, scope: nil) }
        #expect(f.transport.requests.count == count)
    }

    @Test func whoamiAndUserInfo() async throws {
        let f = try await Fixture()
        f.stubLookup()
        TK.stubStampLogin(f.transport, clock: f.clock)
        f.transport.on(.post, "/public/v1/query/whoami") { _ in
            .json(200, ["organizationId": .string(TK.subOrg), "organizationName": "Ada's org", "userId": .string(TK.userId), "username": "ada"])
        }
        let session = try await f.provider.signIn(.passkey(identifier: "ada@example.com"))
        let me = try await f.provider.whoami(session)
        #expect(me.userId == TK.userId && me.organizationName == "Ada's org")
        let request = try #require(f.transport.requests(to: "/public/v1/query/whoami").first)
        #expect(request.jsonBody == ["organizationId": .string(TK.subOrg)])
        #expect(try TurnkeyAPITests.verifyStamp(request).publicKey == session.extras["sessionPublicKey"]?.stringValue)
        let info = try await f.provider.userInfo(session)
        #expect(info.id == TK.userId)
        #expect(info.name == "ada")
        #expect(info.claims["organizationId"] == .string(TK.subOrg))
    }

    @Test func sessionRequestsFailWithSessionExpired() async throws {
        let f = try await Fixture()
        f.stubLookup()
        TK.stubStampLogin(f.transport, clock: f.clock)
        f.transport.on(.post, "/public/v1/query/whoami") { _ in .raw(401, TurnkeyErrorMapperTests.unknownKey) }
        let session = try await f.provider.signIn(.passkey(identifier: "ada@example.com"))
        await #expect(throws: AuthError(.sessionExpired)) { try await f.provider.whoami(session) }
        let sent = f.transport.requests.count
        f.clock.advance(by: 900)
        await #expect(throws: AuthError(.sessionExpired)) { try await f.provider.whoami(session) }
        #expect(f.transport.requests.count == sent, "an expired session fails before any request")
    }

    @Test func sessionStamperErrors() async throws {
        let f = try await Fixture()
        let empty = Session(providerID: "tk", accessToken: Secret("jwt"))
        #expect(throws: AuthError(.sessionExpired)) { try f.provider.sessionStamper(for: empty) }
        let corrupt = Session(providerID: "tk", accessToken: Secret("jwt"), secretExtras: ["sessionPrivateKey": Secret("nothex")])
        #expect(throws: AuthError(.invalidToken)) { try f.provider.sessionStamper(for: corrupt) }
        let mismatched = Session(providerID: "tk", accessToken: Secret("jwt"), extras: ["sessionPublicKey": "03bf162576eb8dfecf33d9275d09595284f6c4df0db6156c3c582777886a0ee0ac"],
                                 secretExtras: ["sessionPrivateKey": Secret(TK.fixturePrivate)])
        #expect(throws: AuthError(.invalidToken)) { try f.provider.sessionStamper(for: mismatched) }
        let good = Session(providerID: "tk", accessToken: Secret("jwt"), secretExtras: ["sessionPrivateKey": Secret(TK.fixturePrivate)])
        #expect(try f.provider.sessionStamper(for: good).publicKey == TK.fixturePublic)
    }

    @Test func createReadWriteSessionIsStampedWithTheSessionKey() async throws {
        let f = try await Fixture()
        f.stubLookup()
        TK.stubStampLogin(f.transport, clock: f.clock)
        let apiKey = P256.Signing.PrivateKey()
        f.transport.on(.post, "/public/v1/submit/create_read_write_session") { request in
            let target = try #require(request.jsonBody?["parameters"]?["targetPublicKey"]?.stringValue)
            return .json(200, TK.activity("ACTIVITY_STATUS_COMPLETED", result: [
                "createReadWriteSessionResultV2": ["organizationId": .string(TK.subOrg), "userId": .string(TK.userId), "apiKeyId": "k",
                                                   "credentialBundle": .string(try TurnkeyAPITests.encryptBundle(apiKey.rawRepresentation, to: target))],
            ]))
        }
        let session = try await f.provider.signIn(.passkey(identifier: "ada@example.com"))
        let readWrite = try await f.provider.createReadWriteSession(session, expirationSeconds: 300)
        #expect(readWrite.stamper.publicKey == TurnkeyKeys.compressedHex(apiKey.publicKey))
        #expect(readWrite.organizationId == TK.subOrg)
        let request = try #require(f.transport.requests(to: "/public/v1/submit/create_read_write_session").first)
        #expect(try TurnkeyAPITests.verifyStamp(request).publicKey == session.extras["sessionPublicKey"]?.stringValue)
        #expect(request.jsonBody?["organizationId"] == .string(TK.subOrg))
    }

    /// The core SessionManager renews a Turnkey session (it has a refresh token: the session key)
    /// with a stamp_login stamped by the current key, and stores the new session.
    @Test func sessionManagerRenewsWithTheSessionKey() async throws {
        let f = try await Fixture()
        f.stubLookup()
        TK.stubStampLogin(f.transport, clock: f.clock)
        let session = try await f.provider.signIn(.passkey(identifier: "ada@example.com"))
        let manager = SessionManager(key: session.key, provider: f.provider, store: InMemorySessionStore(), clock: f.clock)
        _ = try await manager.store(session)
        #expect(try await manager.session(minTTL: 60).accessToken == session.accessToken, "still valid: no renewal")
        f.clock.advance(by: 850)
        let renewed = try await manager.session(minTTL: 60)
        #expect(renewed.accessToken != session.accessToken)
        #expect(renewed.extras["sessionPublicKey"] != session.extras["sessionPublicKey"])
        let refresh = try #require(f.transport.requests(to: "/public/v1/submit/stamp_login").last)
        #expect(try TurnkeyAPITests.verifyStamp(refresh).publicKey == session.extras["sessionPublicKey"]?.stringValue)
    }

    /// Callers can send stamped requests of their own through the provider's API.
    @Test func customStampedRequest() async throws {
        let f = try await Fixture()
        f.transport.on(.post, "/public/v1/query/get_wallets") { _ in .json(200, ["wallets": []]) }
        let stamper = try TurnkeyAPIKeyStamper(privateKeyHex: Secret(TK.fixturePrivate))
        let reply = try await f.provider.api.post(path: "public/v1/query/get_wallets", body: ["organizationId": .string(TK.subOrg)], stamper: stamper)
        #expect(reply["wallets"] == [])
        try TurnkeyAPITests.verifyStamp(try #require(f.transport.requests.first))
    }
}
