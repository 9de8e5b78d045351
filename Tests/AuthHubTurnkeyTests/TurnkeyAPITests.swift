import AuthHub
import AuthHubTesting
@_spi(Internals) @testable import AuthHubTurnkey
import Crypto
import Foundation
import Testing

@Suite struct TurnkeyAPITests {
    struct Fixture {
        let transport = StubTransport()
        let clock = FakeClock()
        let api: TurnkeyAPI
        let stamper: TurnkeyAPIKeyStamper

        init(pollInterval: Int = 1000, pollAttempts: Int = 3) throws {
            api = TurnkeyAPI(providerID: "tk", configuration: TK.configuration(pollInterval: pollInterval, pollAttempts: pollAttempts),
                             context: ProviderContext(transport: transport, clock: clock))
            stamper = try TurnkeyAPIKeyStamper(privateKeyHex: Secret(TK.fixturePrivate), publicKeyHex: TK.fixturePublic)
        }
    }

    /// Verifies the request's X-Stamp over its exact body bytes, returning the stamp.
    @discardableResult
    static func verifyStamp(_ request: StubTransport.Request) throws -> TurnkeyAPIStamp {
        #expect(TK.stampHeaderNames(request) == ["X-Stamp"], "exactly one stamp header")
        let stamp = try TurnkeyAPIStamp(headerValue: try #require(request.headerFields["X-Stamp"]))
        let key = try TurnkeyKeys.signingPublicKey(hex: stamp.publicKey)
        let signature = try P256.Signing.ECDSASignature(derRepresentation: try #require(TurnkeyHex.decode(stamp.signature)))
        #expect(key.isValidSignature(signature, for: SHA256.hash(data: try #require(request.body))))
        return stamp
    }

    /// The bytes sent are the bytes stamped; the stamp does not verify over a re-encoded body.
    @Test func sentBytesAreTheStampedBytes() async throws {
        let f = try Fixture()
        f.transport.on(.post, "/public/v1/query/whoami") { _ in
            .json(200, ["organizationId": .string(TK.subOrg), "organizationName": "Ada", "userId": .string(TK.userId), "username": "ada"])
        }
        let signed = try await TurnkeySignedRequest.sign(path: "public/v1/query/whoami",
                                                         body: ["organizationId": .string(TK.subOrg), "b": ["z": 1, "a": "x/y"]], with: f.stamper)
        _ = try await f.api.send(signed)
        let request = try #require(f.transport.requests.first)
        #expect(request.body.map(Array.init) == signed.body)
        #expect(request.headerFields["X-Stamp"] == signed.stamp.value)
        #expect(request.headerFields["Content-Type"] == "application/json")
        let stamp = try Self.verifyStamp(request)
        // A re-encoding (other key order, pretty printed) is different bytes: the stamp does not verify over it.
        let reencoder = JSONEncoder()
        reencoder.outputFormatting = [.prettyPrinted]
        let reencoded = try reencoder.encode(try #require(request.jsonBody))
        #expect(Array(reencoded) != signed.body)
        let key = try TurnkeyKeys.signingPublicKey(hex: stamp.publicKey)
        let signature = try P256.Signing.ECDSASignature(derRepresentation: try #require(TurnkeyHex.decode(stamp.signature)))
        #expect(!key.isValidSignature(signature, for: SHA256.hash(data: reencoded)))
        // Raw bytes are sent untouched, whatever their formatting.
        let raw = Array(#"{ "organizationId" : "x" }"#.utf8)
        _ = try await f.api.send(try await TurnkeySignedRequest.sign(path: "public/v1/query/whoami", bodyBytes: raw, with: f.stamper))
        #expect(f.transport.requests.last?.body.map(Array.init) == raw)
        try Self.verifyStamp(try #require(f.transport.requests.last))
    }

    @Test func whoamiEndpoint() async throws {
        let f = try Fixture()
        f.transport.on(.post, "/public/v1/query/whoami") { _ in
            .json(200, ["organizationId": .string(TK.subOrg), "organizationName": "Ada", "userId": .string(TK.userId), "username": "ada"])
        }
        let me = try await f.api.whoami(organizationId: TK.subOrg, stamper: f.stamper)
        #expect(me == TurnkeyWhoami(organizationId: TK.subOrg, organizationName: "Ada", userId: TK.userId, username: "ada"))
        let request = try #require(f.transport.requests.first)
        #expect(request.method == .post)
        #expect(request.url.absoluteString == "https://api.turnkey.test/public/v1/query/whoami")
        #expect(request.jsonBody == ["organizationId": .string(TK.subOrg)])
        try Self.verifyStamp(request)
    }

    @Test func listSubOrganizationsEndpoint() async throws {
        let f = try Fixture()
        f.transport.on(.post, "/public/v1/query/list_suborgs", times: 1) { _ in .json(200, ["organizationIds": [.string(TK.subOrg)]]) }
        f.transport.on(.post, "/public/v1/query/list_suborgs", times: 1) { _ in .json(200, ["organizationIds": []]) }
        #expect(try await f.api.listSubOrganizations(filterType: "EMAIL", filterValue: "user@example.com", stamper: f.stamper) == [TK.subOrg])
        #expect(try await f.api.listSubOrganizations(filterType: "EMAIL", filterValue: "none@example.com", stamper: f.stamper) == [])
        let request = try #require(f.transport.requests.first)
        #expect(request.jsonBody == ["organizationId": .string(TK.parentOrg), "filterType": "EMAIL", "filterValue": "user@example.com"])
        #expect(request.jsonBody?["type"] == nil && request.jsonBody?["timestampMs"] == nil, "queries have no envelope")
        try Self.verifyStamp(request)
    }

    @Test func emailLookupEncodesTheEmail() async throws {
        let f = try Fixture()
        f.transport.on(.get, "/api/proxy/sub-org-ids") { _ in .json(200, ["organizationIds": [.string(TK.subOrg), "other"]]) }
        #expect(try await f.api.lookupSubOrganizations(email: "ada+wallet&co@example.com") == [TK.subOrg, "other"])
        let request = try #require(f.transport.requests.first)
        #expect(request.method == .get)
        #expect(request.url.query == "filterType=EMAIL&filterValue=ada%2Bwallet%26co%40example.com")
        #expect(request.url.host == "app.example.com")
        #expect(TK.stampHeaderNames(request).isEmpty, "the proxy call is not stamped")
        #expect(request.body == nil)
    }

    @Test func emptyLookupIsUserNotFound() async throws {
        let f = try Fixture()
        f.transport.on(.get, "/api/proxy/sub-org-ids", times: 1) { _ in .json(200, ["organizationIds": []]) }
        f.transport.on(.get, "/api/proxy/sub-org-ids", times: 1) { _ in .json(200, [:]) }
        await #expect(throws: AuthError(.userNotFound)) { try await f.api.lookupSubOrganizations(email: "nobody@example.com") }
        await #expect(throws: AuthError(.userNotFound)) { try await f.api.lookupSubOrganizations(email: "nobody@example.com") }
    }

    /// Activity envelope: type, timestampMs (string, clock ms), organizationId, parameters; expirationSeconds a string.
    @Test func stampLoginEnvelope() async throws {
        let f = try Fixture()
        f.transport.on(.post, "/public/v1/submit/stamp_login") { _ in
            .json(200, TK.activity("ACTIVITY_STATUS_COMPLETED", result: ["stampLoginResult": ["session": "jwt-here"]]))
        }
        let session = try await f.api.stampLogin(organizationId: TK.subOrg, publicKey: TK.fixturePublic, expirationSeconds: 900,
                                                 stamper: f.stamper)
        #expect(session.revealed() == "jwt-here")
        let request = try #require(f.transport.requests.first)
        #expect(request.url.absoluteString == "https://api.turnkey.test/public/v1/submit/stamp_login")
        #expect(request.jsonBody == [
            "type": "ACTIVITY_TYPE_STAMP_LOGIN", "timestampMs": "1767225600000", "organizationId": .string(TK.subOrg),
            "parameters": ["publicKey": .string(TK.fixturePublic), "expirationSeconds": "900"],
        ])
        try Self.verifyStamp(request)
    }

    /// Pending → get_activity polls (sleeping on the fake clock) → completed.
    @Test func pollsUntilCompleted() async throws {
        let f = try Fixture(pollInterval: 250, pollAttempts: 5)
        f.transport.on(.post, "/public/v1/submit/stamp_login") { _ in .json(200, TK.activity("ACTIVITY_STATUS_CREATED", id: "act-9")) }
        f.transport.on(.post, "/public/v1/query/get_activity", times: 1) { _ in .json(200, TK.activity("ACTIVITY_STATUS_PENDING", id: "act-9")) }
        f.transport.on(.post, "/public/v1/query/get_activity", times: 1) { _ in
            .json(200, TK.activity("ACTIVITY_STATUS_COMPLETED", id: "act-9", result: ["stampLoginResult": ["session": "s"]]))
        }
        #expect(try await f.api.stampLogin(organizationId: TK.subOrg, publicKey: TK.fixturePublic, expirationSeconds: 60, stamper: f.stamper).revealed() == "s")
        let polls = f.transport.requests(to: "/public/v1/query/get_activity")
        #expect(polls.count == 2)
        #expect(polls.first?.jsonBody == ["organizationId": .string(TK.subOrg), "activityId": "act-9"])
        for poll in polls { try Self.verifyStamp(poll) }
        #expect(f.clock.sleeps == [.milliseconds(250), .milliseconds(250)])
    }

    @Test func failedActivityWithHTTP200() async throws {
        let f = try Fixture()
        f.transport.on(.post, "/public/v1/submit/stamp_login") { _ in
            .json(200, TK.activity("ACTIVITY_STATUS_FAILED", failure: ["code": 3, "message": "invalid public key", "details": []]))
        }
        let error = await #expect(throws: AuthError.self) {
            try await f.api.stampLogin(organizationId: TK.subOrg, publicKey: "bad", expirationSeconds: 60, stamper: f.stamper)
        }
        #expect(error?.code == .invalidRequest)
        #expect(error?.providerCode == "3")
        #expect(error?.message.contains("invalid public key") == true)
        #expect(error?.details["activityId"] == "act-1")
    }

    @Test(arguments: ["ACTIVITY_STATUS_REJECTED", "ACTIVITY_STATUS_CONSENSUS_NEEDED"])
    func rejectedOrConsensusHasNoResult(status: String) async throws {
        let f = try Fixture()
        f.transport.on(.post, "/public/v1/submit/stamp_login") { _ in .json(200, TK.activity(status)) }
        let error = await #expect(throws: AuthError.self) {
            try await f.api.stampLogin(organizationId: TK.subOrg, publicKey: TK.fixturePublic, expirationSeconds: 60, stamper: f.stamper)
        }
        #expect(error?.code == .accessDenied)
        #expect(error?.providerCode == status)
    }

    @Test func stillPendingAfterTheAttempts() async throws {
        let f = try Fixture(pollInterval: 1000, pollAttempts: 3)
        f.transport.on(.post, "/public/v1/submit/stamp_login") { _ in .json(200, TK.activity("ACTIVITY_STATUS_PENDING")) }
        f.transport.on(.post, "/public/v1/query/get_activity") { _ in .json(200, TK.activity("ACTIVITY_STATUS_PENDING")) }
        let error = await #expect(throws: AuthError.self) {
            try await f.api.stampLogin(organizationId: TK.subOrg, publicKey: TK.fixturePublic, expirationSeconds: 60, stamper: f.stamper)
        }
        #expect(error?.code == .timeout)
        #expect(error?.message.contains("still ACTIVITY_STATUS_PENDING after 3 polls") == true)
        #expect(f.transport.requests(to: "/public/v1/query/get_activity").count == 3)
        #expect(f.clock.sleeps == [.seconds(1), .seconds(1), .seconds(1)])
    }

    @Test func createReadWriteSessionDecryptsTheBundle() async throws {
        let f = try Fixture()
        // The server side: encrypt a new API key to the target public key, as Turnkey does.
        let apiKey = P256.Signing.PrivateKey()
        f.transport.on(.post, "/public/v1/submit/create_read_write_session") { request in
            let body = try #require(request.jsonBody)
            let target = try #require(body["parameters"]?["targetPublicKey"]?.stringValue)
            let bundle = try Self.encryptBundle(apiKey.rawRepresentation, to: target)
            return .json(200, TK.activity("ACTIVITY_STATUS_COMPLETED", type: "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2", result: [
                "createReadWriteSessionResultV2": ["organizationId": .string(TK.subOrg), "organizationName": "Ada", "userId": .string(TK.userId),
                                                   "username": "ada", "apiKeyId": "key-1", "credentialBundle": .string(bundle)],
            ]))
        }
        let result = try await f.api.createReadWriteSession(organizationId: TK.subOrg, targetPrivateKey: P256.KeyAgreement.PrivateKey(),
                                                            userId: TK.userId, expirationSeconds: 600, stamper: f.stamper)
        #expect(result.apiKeyId == "key-1")
        #expect(result.stamper.publicKey == TurnkeyKeys.compressedHex(apiKey.publicKey))
        let request = try #require(f.transport.requests.first)
        let body = try #require(request.jsonBody)
        #expect(body["type"] == "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2")
        #expect(body["parameters"]?["expirationSeconds"] == "600")
        #expect(body["parameters"]?["userId"] == .string(TK.userId))
        #expect(body["parameters"]?["targetPublicKey"]?.stringValue?.count == 130)
        #expect(body["parameters"]?["targetPublicKey"]?.stringValue?.hasPrefix("04") == true)
        try Self.verifyStamp(request)
    }

    /// HPKE-encrypts to an uncompressed hex key and base58check-encodes `enc(compressed) || ct`.
    static func encryptBundle(_ plaintext: Data, to targetHex: String) throws -> String {
        let target = try P256.KeyAgreement.PublicKey(x963Representation: try #require(TurnkeyHex.decode(targetHex)))
        var sender = try HPKE.Sender(recipientKey: target, ciphersuite: TurnkeyCredentialBundle.ciphersuite, info: TurnkeyCredentialBundle.hpkeInfo)
        let enc = sender.encapsulatedKey
        let ciphertext = try sender.seal(plaintext, authenticating: enc + target.x963Representation)
        let compressed = try P256.KeyAgreement.PublicKey(x963Representation: enc).compressedRepresentation
        return Base58Check.encode(Array(compressed) + Array(ciphertext))
    }

    /// A submit refused with 503 is resent with the same bytes and stamp; a 500 is not resent.
    @Test func submitRetriesOnlyWhatWasRefused() async throws {
        let f = try Fixture()
        f.transport.on(.post, "/public/v1/submit/stamp_login", times: 1) { _ in .raw(503, #"{"code":14,"message":"unavailable"}"#) }
        f.transport.on(.post, "/public/v1/submit/stamp_login", times: 1) { _ in
            .json(200, TK.activity("ACTIVITY_STATUS_COMPLETED", result: ["stampLoginResult": ["session": "s"]]))
        }
        _ = try await f.api.stampLogin(organizationId: TK.subOrg, publicKey: TK.fixturePublic, expirationSeconds: 60, stamper: f.stamper)
        let sent = f.transport.requests
        #expect(sent.count == 2)
        #expect(sent[0].body == sent[1].body)
        #expect(sent[0].headerFields["X-Stamp"] == sent[1].headerFields["X-Stamp"])

        let g = try Fixture()
        g.transport.on(.post, "/public/v1/submit/stamp_login") { _ in .raw(500, #"{"code":13,"message":"internal"}"#) }
        let error = await #expect(throws: AuthError.self) {
            try await g.api.stampLogin(organizationId: TK.subOrg, publicKey: TK.fixturePublic, expirationSeconds: 60, stamper: g.stamper)
        }
        #expect(error?.code == .providerUnavailable)
        #expect(error?.isRetryable == true)
        #expect(g.transport.requests.count == 1)
    }

    @Test func httpErrorsUseTheCallsContext() async throws {
        let f = try Fixture()
        f.transport.on(.post, "/public/v1/query/whoami") { _ in .raw(401, TurnkeyErrorMapperTests.unknownKey) }
        await #expect(throws: AuthError(.sessionExpired)) {
            try await f.api.whoami(organizationId: TK.subOrg, stamper: f.stamper, errorContext: .session)
        }
        await #expect(throws: AuthError(.invalidToken)) { try await f.api.whoami(organizationId: TK.subOrg, stamper: f.stamper) }
    }
}
