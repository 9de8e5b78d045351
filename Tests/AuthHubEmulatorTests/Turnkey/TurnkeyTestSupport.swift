import AuthHub
import AuthHubEmulator
import AuthHubFactors
import AuthHubTesting
import Crypto
import Foundation
import Testing

/// Talks to the emulator's Turnkey routes over real HTTP, building every request, stamp and
/// passkey ceremony from spec/turnkey.md by hand (no client module).
struct TurnkeyWire {
    let emulator: RunningEmulator
    let clock: FakeClock
    let transport = URLSessionTransport(defaultTimeout: .seconds(30))
    static let parent = "00000000-0000-4000-8000-0000000000aa"
    static let rpId = "localhost"

    struct Reply {
        let status: Int
        let body: Data
        var json: JSONValue? { try? JSONValue.parse(body) }
        var code: Int? { json?["code"]?.intValue }
        var message: String? { json?["message"]?.stringValue }
        subscript(name: String) -> JSONValue? { json?[name] }
        var activity: JSONValue? { json?["activity"] }
    }

    /// A registered end user: the passkey authenticator holding the credential, and the ids.
    struct User {
        let email: String
        let passkey: SoftwarePasskeyAuthenticator
        let organizationId: String
        let userId: String
    }

    static func start() async throws -> TurnkeyWire {
        let clock = FakeClock(now: Date(), mode: .manual)
        return TurnkeyWire(emulator: try await Emulator.start(EmulatorConfiguration(clock: clock)), clock: clock)
    }

    // MARK: - Transport

    func send(_ method: HTTPRequest.Method, _ path: String, body: Data? = nil, headerFields headers: HTTPFields = [:]) async throws -> Reply {
        var headers = headers
        if body != nil { headers["Content-Type"] = "application/json" }
        let response = try await transport.send(method, emulator.url(path), headerFields: headers, body: body)
        return Reply(status: response.status, body: response.body)
    }

    /// Serialises `json` once (the bytes that get stamped and sent).
    static func bytes(_ json: JSONValue) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(json)
    }

    func hook(_ method: HTTPRequest.Method, _ name: String, _ json: JSONValue? = nil) async throws -> Reply {
        try await send(method, "/turnkey/__emulator/" + name, body: try json.map(Self.bytes))
    }

    /// POSTs `body` to `/turnkey/public/v1/<path>` with one stamp header.
    func post(_ path: String, body: Data, stamp: (name: String, value: String)?) async throws -> Reply {
        var headers: HTTPFields = [:]
        if let stamp { headers[stamp.name] = stamp.value }
        return try await send(.post, "/turnkey/public/v1/" + path, body: body, headerFields: headers)
    }

    // MARK: - Stamps

    /// `X-Stamp` over `body` with `key` (spec §3.1).
    static func apiStamp(_ body: Data, key: P256.Signing.PrivateKey) throws -> (name: String, value: String) {
        let signature = try key.signature(for: SHA256.hash(data: body))
        let stamp: JSONValue = [
            "publicKey": .string(hex(key.publicKey.compressedRepresentation)), "scheme": "SIGNATURE_SCHEME_TK_API_P256",
            "signature": .string(hex(signature.derRepresentation)),
        ]
        return ("X-Stamp", Base64URL.encode(try bytes(stamp)))
    }

    /// `X-Stamp-WebAuthn` over `body` with the user's passkey (spec §3.2).
    static func passkeyStamp(_ body: Data, passkey: SoftwarePasskeyAuthenticator) async throws -> (name: String, value: String) {
        let challenge = Array(hex(SHA256.hash(data: body)).utf8)
        let assertion = try await passkey.getAssertion(PasskeyAssertionOptions(relyingPartyID: rpId, challenge: challenge))
        let stamp: JSONValue = [
            "authenticatorData": .string(Base64URL.encode(assertion.authenticatorData)),
            "clientDataJson": .string(Base64URL.encode(assertion.clientDataJSON)),
            "credentialId": .string(Base64URL.encode(assertion.credentialID)),
            "signature": .string(Base64URL.encode(assertion.signature)),
        ]
        return ("X-Stamp-Webauthn", String(decoding: try bytes(stamp), as: UTF8.self))
    }

    static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    static func fromHex(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex, let next = text.index(index, offsetBy: 2, limitedBy: text.endIndex) {
            out.append(UInt8(text[index..<next], radix: 16) ?? 0)
            index = next
        }
        return out
    }

    // MARK: - Flows

    /// A fresh software passkey authenticator.
    static func authenticator() throws -> SoftwarePasskeyAuthenticator {
        try SoftwarePasskeyAuthenticator(store: InMemoryPasskeyCredentialStore())
    }

    /// The body of `POST /turnkey/__emulator/users` for a new passkey made with `challenge`;
    /// `signedChallenge` lets a test sign another challenge than the one it declares.
    static func registrationBody(
        email: String, passkey: SoftwarePasskeyAuthenticator, challenge: [UInt8] = Array(repeating: 7, count: 32),
        signedChallenge: [UInt8]? = nil, parent: String? = nil
    ) async throws -> JSONValue {
        let options = PasskeyRegistrationOptions(
            relyingParty: PasskeyRelyingParty(id: rpId, name: "AuthHub"),
            user: PasskeyUser(id: Array(email.utf8.prefix(64)), name: email, displayName: email),
            challenge: signedChallenge ?? challenge
        )
        let registration = try await passkey.makeCredential(options)
        var body: [String: JSONValue] = [
            "email": .string(email),
            "authenticator": [
                "authenticatorName": "Software passkey", "challenge": .string(Base64URL.encode(challenge)),
                "attestation": [
                    "credentialId": .string(Base64URL.encode(registration.credentialID)),
                    "clientDataJson": .string(Base64URL.encode(registration.clientDataJSON)),
                    "attestationObject": .string(Base64URL.encode(registration.attestationObject)),
                    "transports": ["internal"],
                ],
            ],
        ]
        if let parent { body["parentOrganizationId"] = .string(parent) }
        return .object(body)
    }

    /// Registers `email` with a new passkey.
    func register(_ email: String, parent: String? = nil) async throws -> User {
        let passkey = try Self.authenticator()
        let reply = try await hook(.post, "users", try await Self.registrationBody(email: email, passkey: passkey, parent: parent))
        #expect(reply.status == 200, "\(reply.json as Any)")
        return User(
            email: email, passkey: passkey, organizationId: try #require(reply["organizationId"]?.stringValue),
            userId: try #require(reply["userId"]?.stringValue)
        )
    }

    /// The milliseconds of the emulator clock, as a string.
    var timestampMs: String { String(Int64(clock.now.timeIntervalSince1970 * 1_000)) }

    /// A stamp_login body (spec §4.1).
    func stampLoginBody(
        organizationId: String, publicKey: String, expirationSeconds: String? = "900", invalidateExisting: Bool? = nil
    ) throws -> Data {
        var parameters: [String: JSONValue] = ["publicKey": .string(publicKey)]
        if let expirationSeconds { parameters["expirationSeconds"] = .string(expirationSeconds) }
        if let invalidateExisting { parameters["invalidateExisting"] = .bool(invalidateExisting) }
        return try Self.bytes([
            "type": "ACTIVITY_TYPE_STAMP_LOGIN", "timestampMs": .string(timestampMs),
            "organizationId": .string(organizationId), "parameters": .object(parameters),
        ])
    }

    /// Passkey stamp_login for a new session key; returns the reply and the key.
    func passkeyLogin(_ user: User, organizationId: String? = nil, expirationSeconds: String? = "900")
        async throws -> (reply: Reply, key: P256.Signing.PrivateKey) {
        let key = P256.Signing.PrivateKey()
        let body = try stampLoginBody(
            organizationId: organizationId ?? user.organizationId, publicKey: Self.hex(key.publicKey.compressedRepresentation),
            expirationSeconds: expirationSeconds
        )
        let reply = try await post("submit/stamp_login", body: body, stamp: try await Self.passkeyStamp(body, passkey: user.passkey))
        return (reply, key)
    }

    /// whoami stamped with `key`.
    func whoami(_ organizationId: String, key: P256.Signing.PrivateKey) async throws -> Reply {
        let body = try Self.bytes(["organizationId": .string(organizationId)])
        return try await post("query/whoami", body: body, stamp: try Self.apiStamp(body, key: key))
    }

    /// The decoded JWT payload of a session.
    static func claims(_ jwt: String) throws -> JSONValue {
        let parts = jwt.split(separator: ".")
        #expect(parts.count == 3)
        return try JSONValue.parse(try #require(Base64URL.decode(String(parts[1]))))
    }
}
