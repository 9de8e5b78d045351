import AuthHub
import AuthHubEmulator
import AuthHubFactors
import AuthHubTesting
@_spi(Internals) import AuthHubTurnkey
import Crypto
import Foundation
import Testing

/// The Turnkey client (AuthHubTurnkey) against the emulator's independent reading of
/// spec/turnkey.md, over real HTTP on loopback: email lookup through the proxy → passkey-stamped
/// `stamp_login` → session-key-stamped requests, with both stamp kinds verified by the emulator.
@Suite struct TurnkeyIntegrationTests {
    static let parent = "00000000-0000-4000-8000-0000000000aa"

    struct Fixture {
        let emulator: RunningEmulator
        let provider: TurnkeyProvider
        let context: ProviderContext
        let authenticator: SoftwarePasskeyAuthenticator
        let wire = URLSessionTransport(defaultTimeout: .seconds(30))

        /// An emulator (on `emulatorClock`, the system clock by default) and a provider whose
        /// context has a software passkey authenticator and checks the emulator's notarizer signature.
        static func start(emulatorClock: (any AuthClock)? = nil, clientClock: any AuthClock = SystemClock(),
                          pollIntervalMilliseconds: Int = 1000) async throws -> Fixture {
            let emulator = try await Emulator.start(emulatorClock.map { EmulatorConfiguration(clock: $0) } ?? EmulatorConfiguration())
            let wire = URLSessionTransport(defaultTimeout: .seconds(30))
            let authenticator = try SoftwarePasskeyAuthenticator(store: InMemoryPasskeyCredentialStore())
            var configuration = TurnkeyConfiguration(baseURL: emulator.url("/turnkey"), organizationId: parent, rpId: "localhost",
                                                     proxyURL: emulator.url("/turnkey-proxy"))
            configuration.notarizerPublicKey = try await emulator.turnkeyNotarizerPublicKey(transport: wire)
            configuration.activityPollIntervalMilliseconds = pollIntervalMilliseconds
            let context = ProviderContext(transport: wire, clock: clientClock, passkeyAuthenticator: authenticator)
            let provider = TurnkeyProvider(id: "turnkey", configuration: configuration, context: context)
            return Fixture(emulator: emulator, provider: provider, context: context, authenticator: authenticator)
        }

        func register(_ email: String, with authenticator: (any PasskeyAuthenticator)? = nil) async throws -> TurnkeyEmulatorUser {
            try await emulator.registerTurnkeyUser(email: email, authenticator: authenticator ?? self.authenticator, transport: wire)
        }

        func patchConfig(_ body: JSONValue) async throws {
            let reply = try await wire.send(.patch, emulator.url("/turnkey/__emulator/config"), headerFields: [.contentType: "application/json"], body: try JSONEncoder().encode(body))
            #expect(reply.status == 200)
        }

        /// Posts `sent` with a stamp made over `stamped` (what a client that re-encodes after signing would do).
        func postMismatched(_ path: String, stamped: [UInt8], sent: [UInt8], stamper: any TurnkeyStamper) async throws -> HTTPReply {
            let signed = try await TurnkeySignedRequest.sign(path: path, bodyBytes: stamped, with: stamper)
            return try await wire.send(.post, emulator.url("/turnkey" + path), headerFields: [.contentType: "application/json", try #require(HTTPField.Name(signed.stamp.name)): signed.stamp.value], body: Data(sent))
        }
    }

    /// Sign-up through the emulator's proxy (`POST /turnkey-proxy/auth/createSubOrg`): the new
    /// passkey's registration is verified by the emulator, the lookup finds the new sub-organization,
    /// and the passkey signs in again; a second sign-up of the same email is refused.
    @Test func passkeySignUpThroughTheProxyThenSignIn() async throws {
        let f = try await Fixture.start()
        defer { Task { await f.emulator.stop() } }
        let created = try await f.provider.signUpWithPasskey(email: "sue@example.com", displayName: "Sue")
        let organization = try #require(created.extras["organizationId"]?.stringValue)
        #expect(try await f.provider.api.lookupSubOrganizations(email: "sue@example.com") == [organization])
        let again = try await f.provider.signIn(email: "sue@example.com", authenticator: f.authenticator)
        #expect(again.userID == created.userID && again.extras["organizationId"] == .string(organization))
        #expect(try await f.provider.whoami(again).organizationId == organization)
        await #expect(throws: AuthError(.emailAlreadyInUse)) { try await f.provider.signUpWithPasskey(email: "SUE@example.com", displayName: nil) }
    }

    /// Turnkey's own example backend serves `POST /auth/createSubOrg` and no lookup route: sign-up
    /// reads the lookup's 404 as "cannot check", creates the sub-organization and signs in; a second
    /// sign-up of the email is refused from createSubOrg's own answer, as emailAlreadyInUse.
    @Test func signUpWorksAgainstABackendServingOnlyCreateSubOrg() async throws {
        let f = try await Fixture.start()
        defer { Task { await f.emulator.stop() } }
        try await f.patchConfig(["proxyLookup": false])
        let lookup = await #expect(throws: AuthError.self) { try await f.provider.api.lookupSubOrganizations(email: "kim@example.com") }
        #expect(lookup?.statusCode == 404, "the emulator plays a backend without the route")

        let created = try await f.provider.signUpWithPasskey(email: "kim@example.com", displayName: "Kim")
        let organization = try #require(created.extras["organizationId"]?.stringValue)
        #expect(try await f.provider.whoami(created).organizationId == organization)
        let duplicate = await #expect(throws: AuthError(.emailAlreadyInUse)) {
            try await f.provider.signUpWithPasskey(email: "KIM@example.com", displayName: nil)
        }
        #expect(duplicate?.statusCode == 409 && duplicate?.providerCode == "6")
    }

    /// An authenticator reporting transports outside Turnkey's enum (`smart-card`, a made-up one)
    /// signs up: they are dropped before createSubOrg, which refuses unknown values.
    @Test func transportsOutsideTurnkeysEnumAreDroppedAtSignUp() async throws {
        let f = try await Fixture.start()
        defer { Task { await f.emulator.stop() } }
        let authenticator = try SoftwarePasskeyAuthenticator(
            store: InMemoryPasskeyCredentialStore(),
            configuration: .init(transports: ["internal", "smart-card", "USB", "hybrid", "cable", "ble", "nfc", "usb"]))
        let context = ProviderContext(transport: f.wire, passkeyAuthenticator: authenticator)
        let provider = TurnkeyProvider(id: "turnkey", configuration: f.provider.configuration, context: context)
        let created = try await provider.signUpWithPasskey(email: "tia@example.com", displayName: nil)
        #expect(created.extras["organizationId"]?.stringValue?.isEmpty == false)

        // The emulator's backend refuses what Turnkey refuses.
        let refused = try await f.wire.send(.post, f.emulator.url("/turnkey-proxy/auth/createSubOrg"), headerFields: [.contentType: "application/json"],
                                            body: Data(#"{"email":"x@example.com","passkey":{"challenge":"AA","attestation":{"credentialId":"AA","clientDataJson":"AA","attestationObject":"AA","transports":["AUTHENTICATOR_TRANSPORT_SMART-CARD"]}}}"#.utf8))
        #expect(refused.status == 400 && String(decoding: refused.body, as: UTF8.self).contains("transports[0]"))
    }

    @Test func lookupPasskeyLoginStampedWhoamiPersistRefreshAndLogout() async throws {
        let fixture = try await Fixture.start()
        defer { Task { await fixture.emulator.stop() } }
        let user = try await fixture.register("Ada+wallet@example.com")

        // Email lookup through the proxy (case-insensitive, '+' survives the query string).
        #expect(try await fixture.provider.api.lookupSubOrganizations(email: "ada+wallet@example.com") == [user.organizationId])
        let unknown = await #expect(throws: AuthError.self) { try await fixture.provider.api.lookupSubOrganizations(email: "nobody@example.com") }
        #expect(unknown?.code == .userNotFound)

        // Passkey login through a hub whose sessions live in a file store.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authhub-turnkey-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try FileSessionStore(directory: directory)
        let hub = try Self.hub(fixture, store: store)
        let session = try await hub.signIn(.passkey(identifier: "ada+wallet@example.com"), provider: "turnkey")
        #expect(session.userID == user.userId)
        #expect(session.extras["organizationId"] == .string(user.organizationId))
        #expect(session.tokenType == TurnkeyProvider.sessionTokenType)
        let sessionKey = try #require(session.secretExtras[TurnkeyProvider.sessionPrivateKeyExtra])
        #expect(!"\(session)".contains(sessionKey.revealed()), "the session key never prints")
        let expiresIn = try #require(session.expiresAt).timeIntervalSinceNow
        #expect(expiresIn > 800 && expiresIn <= 900, "the default 900 s session lifetime")

        // Every later request is X-Stamped with the session key; the emulator verifies the signature.
        let whoami = try await fixture.provider.whoami(session)
        #expect(whoami.userId == user.userId && whoami.organizationId == user.organizationId)
        #expect(whoami.username == "ada+wallet@example.com")

        // A second hub over the same file store (another process, say) finds the session and its key.
        let reopened = try Self.hub(fixture, store: try FileSessionStore(directory: directory))
        let stored = try await reopened.session(provider: "turnkey")
        #expect(stored.secretExtras[TurnkeyProvider.sessionPrivateKeyExtra] == sessionKey)
        #expect(try await reopened.userInfo(provider: "turnkey").id == user.userId)

        // Refresh: a new session key, registered by a stamp_login X-Stamped with the current one.
        let renewed = try await reopened.refresh(provider: "turnkey")
        #expect(renewed.extras["sessionPublicKey"] != session.extras["sessionPublicKey"])
        #expect(renewed.userID == user.userId)
        #expect(try await fixture.provider.whoami(renewed).userId == user.userId)

        // Logout removes the session (and with it the only copy of the private key).
        #expect(try await reopened.signOut(provider: "turnkey") == nil)
        await #expect(throws: AuthError.self) { try await reopened.session(provider: "turnkey") }
        #expect(try await store.load(SessionKey(provider: "turnkey")) == nil)
    }

    @Test func loginWithoutEmailResolvesTheSubOrganizationFromThePasskey() async throws {
        let fixture = try await Fixture.start()
        defer { Task { await fixture.emulator.stop() } }
        let user = try await fixture.register("grace@example.com")
        let session = try await fixture.provider.signIn(.passkey(identifier: nil))
        #expect(session.extras["organizationId"] == .string(user.organizationId))
        #expect(try await fixture.provider.whoami(session).userId == user.userId)
    }

    @Test func aStampOverModifiedBytesIsRejected() async throws {
        let fixture = try await Fixture.start()
        defer { Task { await fixture.emulator.stop() } }
        let user = try await fixture.register("linus@example.com")
        let session = try await fixture.provider.signIn(.passkey(identifier: "linus@example.com"))
        let stamper = try fixture.provider.sessionStamper(for: session)

        // X-Stamp (session key): the stamp covers one body, another is sent.
        let body = try TurnkeySignedRequest.serialise(["organizationId": .string(user.organizationId)])
        let spaced = Array(#"{"organizationId": "\#(user.organizationId)"}"#.utf8)
        let good = try await fixture.postMismatched("/public/v1/query/whoami", stamped: body, sent: body, stamper: stamper)
        #expect(good.status == 200, "the same bytes pass")
        let reply = try await fixture.postMismatched("/public/v1/query/whoami", stamped: body, sent: spaced, stamper: stamper)
        #expect(reply.status == 401)
        let error = TurnkeyErrorMapper(context: .session).map(reply, provider: "turnkey")
        #expect(error.code == .invalidToken, "a bad signature is not an expired session: \(error.message)")

        // X-Stamp-WebAuthn (passkey): the assertion's challenge is the hash of other bytes.
        let login = try TurnkeySignedRequest.serialise(fixture.provider.api.activityBody(
            type: "ACTIVITY_TYPE_STAMP_LOGIN", organizationId: user.organizationId,
            parameters: ["publicKey": .string(TurnkeyKeys.compressedHex(P256.Signing.PrivateKey().publicKey)), "expirationSeconds": "900"]))
        var tampered = login
        tampered.insert(UInt8(ascii: " "), at: 1)
        let passkey = TurnkeyPasskeyStamper(authenticator: fixture.authenticator, relyingPartyID: "localhost")
        let refused = try await fixture.postMismatched("/public/v1/submit/stamp_login", stamped: login, sent: tampered, stamper: passkey)
        #expect(refused.status == 401)
        #expect(TurnkeyErrorMapper(context: .passkeyLogin).map(refused, provider: "turnkey").code == .invalidToken)
    }

    @Test func anUnknownPasskeyIsRejected() async throws {
        let fixture = try await Fixture.start()
        defer { Task { await fixture.emulator.stop() } }
        _ = try await fixture.register("margaret@example.com")
        // Another device's passkey, registered for another account, cannot sign in as Margaret.
        let other = try SoftwarePasskeyAuthenticator(store: InMemoryPasskeyCredentialStore())
        _ = try await fixture.register("mallory@example.com", with: other)
        let error = await #expect(throws: AuthError.self) {
            try await fixture.provider.signIn(email: "margaret@example.com", authenticator: other)
        }
        #expect(error?.code == .invalidCredentials)
        #expect(error?.statusCode == 401)
        // An email nobody registered is userNotFound before any passkey is asked.
        let missing = await #expect(throws: AuthError.self) { try await fixture.provider.signIn(.passkey(identifier: "nobody@example.com")) }
        #expect(missing?.code == .userNotFound)
    }

    @Test func anExpiredSessionKeyIsRejected() async throws {
        let emulatorClock = FakeClock(now: Date(), mode: .manual)
        let fixture = try await Fixture.start(emulatorClock: emulatorClock)
        defer { Task { await fixture.emulator.stop() } }
        _ = try await fixture.register("barbara@example.com")
        let hub = try Self.hub(fixture, store: InMemorySessionStore())
        let session = try await hub.signIn(.passkey(identifier: "barbara@example.com"), provider: "turnkey")
        #expect(try await fixture.provider.whoami(session).username == "barbara@example.com")

        // The emulator's clock passes the key's expiry; the client's has not, so the server decides.
        emulatorClock.advance(by: 901)
        let expired = await #expect(throws: AuthError.self) { try await fixture.provider.whoami(session) }
        #expect(expired?.code == .sessionExpired)
        #expect(expired?.statusCode == 401)
        // Renewing with the expired key is refused as an invalid refresh credential, and the
        // session manager then drops the session.
        let refresh = await #expect(throws: AuthError.self) { try await hub.refresh(provider: "turnkey") }
        #expect(refresh?.code == .refreshTokenInvalid)
        await #expect(throws: AuthError.self) { try await hub.session(provider: "turnkey") }
        #expect(try await hub.manager(provider: "turnkey").current() == nil)

        // A client whose own clock is past the expiry refuses before sending anything.
        let late = FakeClock(now: Date().addingTimeInterval(901), mode: .manual)
        let lateProvider = TurnkeyProvider(id: "turnkey", configuration: fixture.provider.configuration,
                                           context: ProviderContext(transport: StubTransport(), clock: late))
        let local = await #expect(throws: AuthError.self) { try await lateProvider.whoami(session) }
        #expect(local?.code == .sessionExpired)
    }

    @Test func readWriteSessionBundleDecryptsToAWorkingKey() async throws {
        let fixture = try await Fixture.start()
        defer { Task { await fixture.emulator.stop() } }
        let user = try await fixture.register("katherine@example.com")
        let session = try await fixture.provider.signIn(.passkey(identifier: "katherine@example.com"))
        let readWrite = try await fixture.provider.createReadWriteSession(session, expirationSeconds: 600)
        #expect(readWrite.organizationId == user.organizationId && readWrite.userId == user.userId)
        // The decrypted API key stamps requests the emulator accepts.
        let whoami = try await fixture.provider.api.whoami(organizationId: user.organizationId, stamper: readWrite.stamper)
        #expect(whoami.userId == user.userId)
    }

    @Test func pendingActivitiesArePolledAndFailedOnesMapped() async throws {
        let fixture = try await Fixture.start(pollIntervalMilliseconds: 1)
        defer { Task { await fixture.emulator.stop() } }
        let user = try await fixture.register("hedy@example.com")

        // The login stays PENDING for two get_activity polls, then completes.
        try await fixture.patchConfig(["activityPendingPolls": 2])
        let session = try await fixture.provider.signIn(.passkey(identifier: "hedy@example.com"))
        #expect(session.userID == user.userId)

        // A FAILED activity arrives with HTTP 200; no session results.
        try await fixture.patchConfig(["activityPendingPolls": 0, "nextActivityOutcome": "ACTIVITY_STATUS_FAILED"])
        let failed = await #expect(throws: AuthError.self) { try await fixture.provider.signIn(.passkey(identifier: "hedy@example.com")) }
        #expect(failed?.code == .invalidRequest)
        #expect(failed?.providerCode == "9")

        try await fixture.patchConfig(["nextActivityOutcome": "ACTIVITY_STATUS_CONSENSUS_NEEDED"])
        let consensus = await #expect(throws: AuthError.self) { try await fixture.provider.signIn(.passkey(identifier: "hedy@example.com")) }
        #expect(consensus?.code == .accessDenied)

        // Still pending after the configured attempts: a timeout, not a hang.
        try await fixture.patchConfig(["activityPendingPolls": 10])
        let pending = await #expect(throws: AuthError.self) { try await fixture.provider.signIn(.passkey(identifier: "hedy@example.com")) }
        #expect(pending?.code == .timeout)
    }

    /// A hub whose one provider is built by the `turnkey` plugin from a providers.json entry with
    /// the fixture's settings, over `store`.
    static func hub(_ fixture: Fixture, store: any SessionStore) throws -> AuthHub {
        let configuration = fixture.provider.configuration
        let entry: JSONValue = [
            "id": "turnkey", "type": "turnkey", "baseURL": .string(configuration.baseURL.absoluteString),
            "organizationId": .string(configuration.organizationId), "rpId": .string(configuration.rpId),
            "proxyURL": .string(configuration.proxyURL.absoluteString),
            "notarizerPublicKey": .string(configuration.notarizerPublicKey ?? ""),
        ]
        let file: JSONValue = ["environments": ["test": ["defaultProvider": "turnkey", "providers": [entry]]]]
        let registry = ProviderRegistry([TurnkeyPlugin()])
        let environment = try ConfigLoader(registry: registry, environmentVariables: [:])
            .load(data: try JSONEncoder().encode(file), environment: "test", file: "<turnkey test>")
        return try AuthHub(environment: environment, registry: registry, context: fixture.context, store: store)
    }
}
