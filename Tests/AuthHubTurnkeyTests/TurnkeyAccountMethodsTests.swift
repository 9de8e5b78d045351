import AuthHub
import AuthHubFactors
import AuthHubTesting
@_spi(Internals) @testable import AuthHubTurnkey
import Crypto
import Foundation
import Testing

/// The account API over Turnkey's authenticators (TurnkeyProtocol: “Authenticators”): exact
/// requests (method, path, stamp, body fields), the methods made of the replies, the two halves of
/// a passkey enrollment, removal, and hostile replies refused as ``AuthError``s.
@Suite struct TurnkeyAccountMethodsTests {
    struct Fixture {
        let transport = StubTransport()
        let clock = FakeClock()
        let provider: TurnkeyProvider
        let manager: SessionManager
        /// The session key's compressed public key: every request must be X-Stamped with it.
        let sessionPublicKey: String

        init() async throws {
            provider = TurnkeyProvider(id: "tk", configuration: TK.configuration(),
                                       context: ProviderContext(transport: transport, clock: clock))
            let key = P256.Signing.PrivateKey()
            sessionPublicKey = TurnkeyKeys.compressedHex(key.publicKey)
            let jwt = try TurnkeySessionJWT(Secret(TK.jwt(TK.claims(publicKey: sessionPublicKey, exp: clock.now.addingTimeInterval(900)))))
            manager = SessionManager(key: SessionKey(provider: "tk"), provider: provider, store: InMemorySessionStore(), clock: clock)
            try await manager.store(provider.session(jwt, key: key))
        }

        /// Answers get_authenticators with `list` (once, before other stubs, when `once`).
        func stubAuthenticators(_ list: JSONValue, once: Bool = false) {
            transport.on(.post, "/public/v1/query/get_authenticators", times: once ? 1 : nil, first: once) { _ in
                .json(200, ["authenticators": list])
            }
        }

        /// Checks the request is X-Stamped (only) with the session key, over its exact body.
        func expectSessionStamp(_ request: StubTransport.Request) throws {
            let stamp = try TurnkeyAPITests.verifyStamp(request)
            #expect(stamp.publicKey == sessionPublicKey)
        }
    }

    static func authenticator(_ id: String, name: String = "Phone", seconds: JSONValue = "1767225600", nanos: JSONValue = "500000000",
                              model: String = "", transports: [String] = ["AUTHENTICATOR_TRANSPORT_INTERNAL", "AUTHENTICATOR_TRANSPORT_HYBRID"],
                              credentialId: String = Base64URL.encode([1, 2, 3, 4])) -> JSONValue {
        [
            "authenticatorId": .string(id), "authenticatorName": .string(name), "credentialId": .string(credentialId),
            "aaguid": "00000000-0000-0000-0000-000000000000", "model": .string(model), "attestationType": "none",
            "transports": .array(transports.map(JSONValue.string)),
            "credential": ["publicKey": "02aa", "type": "CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR"],
            "createdAt": ["seconds": seconds, "nanos": nanos], "updatedAt": ["seconds": "1767225600", "nanos": "0"],
        ]
    }

    @Test func capabilities() {
        #expect(TurnkeyProvider(id: "tk", configuration: TK.configuration()).accountCapabilities == [.listMethods, .enrollPasskey, .deleteMethod])
    }

    /// `POST /public/v1/query/get_authenticators {organizationId, userId}`, X-Stamped with the
    /// session key; each authenticator is a primary passkey, removable while it is not the last.
    @Test func listsThePasskeysOfTheSessionsUser() async throws {
        let f = try await Fixture()
        f.stubAuthenticators([Self.authenticator("a-1"), Self.authenticator("a-2", name: "YubiKey", model: "YubiKey 5 NFC", transports: ["AUTHENTICATOR_TRANSPORT_USB"])])
        let methods = try await f.provider.accountMethods(f.manager)

        let request = try #require(f.transport.requests.first)
        #expect(f.transport.requests.count == 1)
        #expect(request.method == .post && request.url.absoluteString == TK.base + "/public/v1/query/get_authenticators")
        #expect(request.jsonBody == ["organizationId": .string(TK.subOrg), "userId": .string(TK.userId)])
        try f.expectSessionStamp(request)

        #expect(methods.map(\.id) == ["a-1", "a-2"])
        #expect(methods.allSatisfy { $0.kind == .passkey && $0.usage == [.primary] && $0.isDeletable && $0.isConfirmed && $0.source == .provider })
        #expect(methods[0].name == "Phone" && methods[0].detail == "internal, hybrid")
        #expect(methods[0].createdAt == Date(timeIntervalSince1970: 1_767_225_600.5))
        #expect(methods[1].name == "YubiKey" && methods[1].detail == "YubiKey 5 NFC", "the model when Turnkey names one")

        // The last one is not removable: the user would be locked out.
        f.stubAuthenticators([Self.authenticator("a-1", seconds: 1_767_225_600, nanos: .null)], once: true)
        let single = try await f.provider.accountMethods(f.manager)
        #expect(single.count == 1 && single[0].isDeletable == false)
        #expect(single[0].createdAt == Date(timeIntervalSince1970: 1_767_225_600), "a numeric seconds and no nanos are read too")

        // protobuf's JSON leaves an empty list out.
        f.transport.on(.post, "/public/v1/query/get_authenticators", times: 1, first: true) { _ in .json(200, [:]) }
        #expect(try await f.provider.accountMethods(f.manager).isEmpty)
    }

    /// Outside input: every number and size is checked; a hostile reply is an AuthError, not a trap.
    @Test func hostileAuthenticatorRepliesAreRefused() async throws {
        let f = try await Fixture()
        var replies: [(String, JSONValue)] = [
            ("negative seconds", [Self.authenticator("a", seconds: "-1")]),
            ("seconds past year 9999", [Self.authenticator("a", seconds: "253402300800")]),
            ("seconds beyond Int64", [Self.authenticator("a", seconds: "99999999999999999999999")]),
            ("seconds not decimal", [Self.authenticator("a", seconds: "1e9")]),
            ("seconds a huge number", [Self.authenticator("a", seconds: .number(1e300))]),
            ("seconds a fraction", [Self.authenticator("a", seconds: .number(1.5))]),
            ("nanos out of range", [Self.authenticator("a", nanos: "1000000000")]),
            ("nanos negative", [Self.authenticator("a", nanos: .number(-1))]),
            ("seconds an object", [Self.authenticator("a", seconds: ["x": 1])]),
            ("empty id", [Self.authenticator("")]),
            ("id too long", [Self.authenticator(String(repeating: "i", count: 257))]),
            ("name too long", [Self.authenticator("a", name: String(repeating: "n", count: 1025))]),
            ("too many transports", [Self.authenticator("a", transports: Array(repeating: "AUTHENTICATOR_TRANSPORT_USB", count: 17))]),
            ("list not an array", ["authenticatorId": "a"]),
            ("entry not an object", ["a"]),
        ]
        replies.append(("id a number", [["authenticatorId": 5]]))
        for (what, list) in replies {
            f.stubAuthenticators(list, once: true)
            let error = await #expect(throws: AuthError.self, "\(what)") { try await f.provider.accountMethods(f.manager) }
            #expect(error?.code == .invalidRequest, "\(what): \(String(describing: error))")
            #expect(error?.provider == "tk")
        }
        for body in ["", "not json", "[]", #"{"authenticators": "#] {
            f.transport.on(.post, "/public/v1/query/get_authenticators", times: 1, first: true) { _ in .raw(200, body) }
            await #expect(throws: AuthError.self, "\(body)") { try await f.provider.accountMethods(f.manager) }
        }
    }

    /// Turnkey no longer knowing the session key ends the session; other refusals map as everywhere.
    @Test func errorsGoThroughTheTurnkeyErrorMapper() async throws {
        let f = try await Fixture()
        f.transport.on(.post, "/public/v1/query/get_authenticators", times: 1) { _ in
            .json(401, ["code": 16, "message": "could not find public key in organization or its parent organization", "details": []])
        }
        await #expect(throws: AuthError(.sessionExpired)) { try await f.provider.accountMethods(f.manager) }
        f.transport.on(.post, "/public/v1/query/get_authenticators", times: 1) { _ in
            .json(403, ["code": 7, "message": "policy engine denied request explicitly", "details": []])
        }
        let denied = await #expect(throws: AuthError(.accessDenied)) { try await f.provider.accountMethods(f.manager) }
        #expect(denied?.providerCode == "7")
        // Signed out: no request.
        let sent = f.transport.requests.count
        try await f.manager.clear()
        await #expect(throws: AuthError(.noSession)) { try await f.provider.accountMethods(f.manager) }
        #expect(f.transport.requests.count == sent)
    }

    /// Start: the user's passkeys (excluded) and whoami (the account name), WebAuthn options for the
    /// configured RP; confirm: `ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2` with the registration.
    @Test func enrollsAPasskeyInTwoHalves() async throws {
        let f = try await Fixture()
        let existing: [UInt8] = [9, 8, 7, 6, 5]
        f.stubAuthenticators([Self.authenticator("a-1", credentialId: Base64URL.encode(existing))])
        f.transport.on(.post, "/public/v1/query/whoami") { _ in
            .json(200, ["organizationId": .string(TK.subOrg), "organizationName": "Ada's", "userId": .string(TK.userId), "username": "ada@example.com"])
        }
        let challenge = try await f.provider.startMethodEnrollment(.passkey, options: MethodEnrollmentOptions(name: "  Laptop  "), manager: f.manager)
        #expect(challenge.kind == .passkey)
        guard case .passkey(let options) = challenge.prompt else { Issue.record("no passkey prompt: \(challenge.prompt)"); return }
        #expect(options.relyingParty.id == TK.rpId && options.origin == "https://\(TK.rpId)")
        #expect(options.challenge.count == 32 && options.user.id.count == 16)
        #expect(options.user.name == "ada@example.com" && options.algorithms == [.es256] && options.residentKey == .required)
        #expect(options.excludeCredentials == [existing])
        #expect(!challenge.continuation.revealed().isEmpty && !"\(challenge.continuation)".contains("Laptop"), "the continuation is a Secret")
        let whoami = try #require(f.transport.requests(to: "/public/v1/query/whoami").first)
        #expect(whoami.jsonBody == ["organizationId": .string(TK.subOrg)])
        try f.expectSessionStamp(whoami)

        // The software authenticator makes the passkey; confirming submits it.
        let passkeys = try SoftwarePasskeyAuthenticator(store: InMemoryPasskeyCredentialStore(), configuration: .init(transports: ["internal", "smart-card"]))
        let registration = try await passkeys.makeCredential(options)
        f.transport.on(.post, "/public/v1/submit/create_authenticators") { _ in
            .json(200, TK.activity("ACTIVITY_STATUS_COMPLETED", type: "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2",
                                   result: ["createAuthenticatorsResult": ["authenticatorIds": ["a-2"]]]))
        }
        let added = try #require(try await f.provider.confirmMethodEnrollment(challenge, response: .passkey(registration), manager: f.manager))
        #expect(added.id == "a-2" && added.kind == .passkey && added.name == "Laptop" && added.detail == "internal" && added.usage == [.primary])

        let submit = try #require(f.transport.requests(to: "/public/v1/submit/create_authenticators").first)
        #expect(submit.method == .post)
        try f.expectSessionStamp(submit)
        let body = try #require(submit.jsonBody)
        #expect(body["type"] == "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2")
        #expect(body["organizationId"] == .string(TK.subOrg))
        #expect(body["timestampMs"] == "1767225600000")
        #expect(body["parameters"]?["userId"] == .string(TK.userId))
        let entries = try #require(body["parameters"]?["authenticators"]?.arrayValue)
        #expect(entries.count == 1)
        #expect(entries[0]["authenticatorName"] == "Laptop")
        #expect(entries[0]["challenge"] == .string(Base64URL.encode(options.challenge)))
        let attestation = try #require(entries[0]["attestation"])
        #expect(attestation["credentialId"] == .string(Base64URL.encode(registration.credentialID)))
        #expect(attestation["clientDataJson"] == .string(Base64URL.encode(registration.clientDataJSON)))
        #expect(attestation["attestationObject"] == .string(Base64URL.encode(registration.attestationObject)))
        #expect(attestation["transports"] == ["AUTHENTICATOR_TRANSPORT_INTERNAL"], "only Turnkey's enum names")
        #expect(Set(body.objectValue?.keys.map { $0 } ?? []) == ["type", "timestampMs", "organizationId", "parameters"])
    }

    /// whoami's username is outside input: one that is long or has control characters is not the
    /// passkey's account name (the user id is).
    @Test func aHostileUsernameIsNotTheAccountName() async throws {
        for username in [String(repeating: "u", count: 257), "ada\u{1B}[2J", ""] {
            let f = try await Fixture()
            f.stubAuthenticators([])
            f.transport.on(.post, "/public/v1/query/whoami") { _ in
                .json(200, ["organizationId": .string(TK.subOrg), "userId": .string(TK.userId), "username": .string(username)])
            }
            let challenge = try await f.provider.startMethodEnrollment(.passkey, options: MethodEnrollmentOptions(), manager: f.manager)
            guard case .passkey(let options) = challenge.prompt else { Issue.record("no passkey prompt"); return }
            #expect(options.user.name == TK.userId, "\(username.debugDescription)")
        }
    }

    /// What cannot be right is refused before any request.
    @Test func enrollmentRefusalsBeforeAnyRequest() async throws {
        let f = try await Fixture()
        await #expect(throws: AuthError(.unsupported)) {
            try await f.provider.startMethodEnrollment(.totp, options: MethodEnrollmentOptions(), manager: f.manager)
        }
        for name in [String(repeating: "x", count: 257), "bad\u{0}name", "right\u{202E}left"] {
            await #expect(throws: AuthError(.invalidRequest), "\(name.debugDescription)") {
                try await f.provider.startMethodEnrollment(.passkey, options: MethodEnrollmentOptions(name: name), manager: f.manager)
            }
        }
        #expect(f.transport.requests.isEmpty)

        // A challenge of this provider, answered with a passkey made over another challenge, a code,
        // or a challenge made by someone else.
        f.stubAuthenticators([])
        let challenge = try await f.provider.startMethodEnrollment(.passkey, options: MethodEnrollmentOptions(accountName: "ada"), manager: f.manager)
        #expect(f.transport.requests(to: "/public/v1/query/whoami").isEmpty, "the account name was given")
        guard case .passkey(var options) = challenge.prompt else { Issue.record("no passkey prompt"); return }
        options.challenge = [UInt8](repeating: 1, count: 32)
        let other = try await SoftwarePasskeyAuthenticator(store: InMemoryPasskeyCredentialStore()).makeCredential(options)
        await #expect(throws: AuthError(.invalidRequest)) {
            try await f.provider.confirmMethodEnrollment(challenge, response: .passkey(other), manager: f.manager)
        }
        await #expect(throws: AuthError(.invalidRequest)) {
            try await f.provider.confirmMethodEnrollment(challenge, response: .code(Secret("123456")), manager: f.manager)
        }
        let foreign = try MethodEnrollmentChallenge(kind: .passkey, prompt: challenge.prompt, state: ["sessionInfo": "firebase's"])
        await #expect(throws: AuthError(.invalidRequest)) {
            try await f.provider.confirmMethodEnrollment(foreign, response: .passkey(other), manager: f.manager)
        }
        #expect(f.transport.requests(to: "/public/v1/submit/create_authenticators").isEmpty)
    }

    /// A failed activity and a hostile result are AuthErrors.
    @Test func enrollmentFailuresAreMapped() async throws {
        let f = try await Fixture()
        f.stubAuthenticators([])
        let challenge = try await f.provider.startMethodEnrollment(.passkey, options: MethodEnrollmentOptions(accountName: "ada"), manager: f.manager)
        guard case .passkey(let options) = challenge.prompt else { Issue.record("no passkey prompt"); return }
        let registration = try await SoftwarePasskeyAuthenticator(store: InMemoryPasskeyCredentialStore()).makeCredential(options)
        f.transport.on(.post, "/public/v1/submit/create_authenticators", times: 1) { _ in
            .json(200, TK.activity("ACTIVITY_STATUS_FAILED", type: "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2",
                                   failure: ["code": 3, "message": "invalid attestation", "details": []]))
        }
        let failed = await #expect(throws: AuthError(.invalidRequest)) {
            try await f.provider.confirmMethodEnrollment(challenge, response: .passkey(registration), manager: f.manager)
        }
        #expect(failed?.message.contains("invalid attestation") == true)
        for ids: JSONValue in [[""], .array(Array(repeating: "x", count: 101)), "a-2", [.string(String(repeating: "i", count: 257))]] {
            f.transport.on(.post, "/public/v1/submit/create_authenticators", times: 1) { _ in
                .json(200, TK.activity("ACTIVITY_STATUS_COMPLETED", type: "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2",
                                       result: ["createAuthenticatorsResult": ["authenticatorIds": ids]]))
            }
            await #expect(throws: AuthError(.invalidRequest), "\(ids)") {
                try await f.provider.confirmMethodEnrollment(challenge, response: .passkey(registration), manager: f.manager)
            }
        }
    }

    /// `ACTIVITY_TYPE_DELETE_AUTHENTICATORS {userId, authenticatorIds}`; the last passkey, another
    /// kind of method or a made-up id are refused before any request.
    @Test func removesAPasskeyButNeverTheLast() async throws {
        let f = try await Fixture()
        f.transport.on(.post, "/public/v1/submit/delete_authenticators") { _ in
            .json(200, TK.activity("ACTIVITY_STATUS_COMPLETED", type: "ACTIVITY_TYPE_DELETE_AUTHENTICATORS",
                                   result: ["deleteAuthenticatorsResult": ["authenticatorIds": ["a-2"]]]))
        }
        try await f.provider.deleteMethod(AccountMethod(id: "a-2", kind: .passkey, usage: [.primary]), manager: f.manager)
        let request = try #require(f.transport.requests.first)
        #expect(f.transport.requests.count == 1)
        #expect(request.method == .post && request.url.path == "/public/v1/submit/delete_authenticators")
        try f.expectSessionStamp(request)
        let body = try #require(request.jsonBody)
        #expect(body["type"] == "ACTIVITY_TYPE_DELETE_AUTHENTICATORS" && body["organizationId"] == .string(TK.subOrg))
        #expect(body["parameters"] == ["userId": .string(TK.userId), "authenticatorIds": ["a-2"]])

        await #expect(throws: AuthError(.invalidRequest)) {
            try await f.provider.deleteMethod(AccountMethod(id: "a-1", kind: .passkey, isDeletable: false), manager: f.manager)
        }
        await #expect(throws: AuthError(.unsupported)) {
            try await f.provider.deleteMethod(AccountMethod(id: "a-1", kind: .totp), manager: f.manager)
        }
        for id in ["", String(repeating: "i", count: 257)] {
            await #expect(throws: AuthError(.invalidRequest)) {
                try await f.provider.deleteMethod(AccountMethod(id: id, kind: .passkey), manager: f.manager)
            }
        }
        #expect(f.transport.requests.count == 1, "no request for any of those")

        // Turnkey's refusal (the emulator refuses the last passkey with code 9) comes back mapped.
        f.transport.on(.post, "/public/v1/submit/delete_authenticators", times: 1, first: true) { _ in
            .json(400, ["code": 9, "message": "cannot remove the user's last authenticator", "details": []])
        }
        let refused = await #expect(throws: AuthError(.invalidRequest)) {
            try await f.provider.deleteMethod(AccountMethod(id: "a-1", kind: .passkey), manager: f.manager)
        }
        #expect(refused?.providerCode == "9" && refused?.statusCode == 400)
    }
}
