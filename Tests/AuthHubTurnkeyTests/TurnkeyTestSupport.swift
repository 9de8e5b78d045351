import AuthHub
import AuthHubFactors
import AuthHubTesting
@_spi(Internals) @testable import AuthHubTurnkey
import Crypto
import Foundation
import Testing

/// Shared fixtures: a configuration on a test host, a test notarizer that mints session JWTs the
/// way Turnkey's notarizer signs them, and a stub Turnkey + proxy.
enum TK {
    static let parentOrg = "00000000-0000-4000-8000-000000000001"
    static let subOrg = "c75ecb07-c84a-4dd5-932c-539dfafc6864"
    static let userId = "6912b819-f4df-40f4-a192-20ee43090974"
    static let rpId = "wallet.example.com"
    static let base = "https://api.turnkey.test"
    static let proxy = "https://app.example.com/api"

    /// The spec §8.1 API key fixture.
    static let fixturePrivate = "487f361ddfd73440e707f4daa6775b376859e8a3c9f29b3bb694a12927c0213c"
    static let fixturePublic = "02f739f8c77b32f4d5f13265861febd76e7a9c61a1140d296b8c16302508870316"

    /// A notarizer key generated for the tests (deterministic scalar).
    static let notarizer: P256.Signing.PrivateKey = {
        // swiftlint:disable:next force_try
        try! P256.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 0x11, count: 32))
    }()
    static var notarizerHex: String { TurnkeyHex.encode(notarizer.publicKey.x963Representation) }

    static func configuration(notarizer: String? = TK.notarizerHex, pollInterval: Int = 1000, pollAttempts: Int = 3,
                              base: String = TK.base) -> TurnkeyConfiguration {
        TurnkeyConfiguration(baseURL: URL(string: base)!, organizationId: parentOrg, rpId: rpId, proxyURL: URL(string: proxy)!,
                             sessionLifetimeSeconds: 900, activityPollIntervalMilliseconds: pollInterval,
                             activityPollAttempts: pollAttempts, notarizerPublicKey: notarizer)
    }

    /// A session JWT signed like Turnkey's notarizer: ECDSA P-256 over SHA256(SHA256(header.payload)), raw r||s.
    static func jwt(_ claims: [String: JSONValue], signer: P256.Signing.PrivateKey = TK.notarizer) throws -> String {
        let header = Base64URL.encode(Array(#"{"alg":"ES256","typ":"JWT"}"#.utf8))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let payload = Base64URL.encode(try encoder.encode(JSONValue.object(claims)))
        let input = Array("\(header).\(payload)".utf8)
        let digest = SHA256.hash(data: Array(SHA256.hash(data: input)))
        let signature = try signer.signature(for: digest)
        return "\(header).\(payload).\(Base64URL.encode(signature.rawRepresentation))"
    }

    static func claims(publicKey: String, org: String = TK.subOrg, exp: Date, user: String? = TK.userId) -> [String: JSONValue] {
        var c: [String: JSONValue] = [
            "exp": .number(exp.timeIntervalSince1970.rounded()), "public_key": .string(publicKey),
            "session_type": "SESSION_TYPE_READ_WRITE", "organization_id": .string(org),
        ]
        if let user { c["user_id"] = .string(user) }
        return c
    }

    static func activity(_ status: String, id: String = "act-1", org: String = TK.subOrg, type: String = "ACTIVITY_TYPE_STAMP_LOGIN",
                         result: JSONValue? = nil, failure: JSONValue? = nil) -> JSONValue {
        var a: [String: JSONValue] = ["id": .string(id), "organizationId": .string(org), "status": .string(status), "type": .string(type),
                                      "votes": [], "fingerprint": "fp", "canApprove": false, "canReject": false]
        if let result { a["result"] = result }
        if let failure { a["failure"] = failure }
        return ["activity": .object(a)]
    }

    /// A software passkey registered for the RP.
    static func passkey() async throws -> SoftwarePasskeyAuthenticator {
        let authenticator = try SoftwarePasskeyAuthenticator(store: InMemoryPasskeyCredentialStore())
        _ = try await authenticator.makeCredential(PasskeyRegistrationOptions(
            relyingParty: PasskeyRelyingParty(id: rpId, name: "Wallet"),
            user: PasskeyUser(id: [1, 2, 3], name: "ada@example.com", displayName: "Ada"), challenge: [UInt8](repeating: 7, count: 32)))
        return authenticator
    }

    /// Exactly one stamp header, returning its name.
    static func stampHeaderNames(_ request: StubTransport.Request) -> [String] {
        request.headerFields.map { $0.name.rawName }.filter { $0.lowercased().hasPrefix("x-stamp") }
    }

    /// Stubs stamp_login: answers with a session JWT for the request's public key (via `mint`).
    static func stubStampLogin(_ transport: StubTransport, clock: FakeClock, times: Int? = nil,
                               mint: @escaping @Sendable (_ publicKey: String, _ org: String, _ now: Date) throws -> String = { key, org, now in
                                   try TK.jwt(TK.claims(publicKey: key, org: org, exp: now.addingTimeInterval(900)))
                               }) {
        transport.on(.post, "/public/v1/submit/stamp_login", times: times) { request in
            let body = try #require(request.jsonBody)
            let key = try #require(body["parameters"]?["publicKey"]?.stringValue)
            let org = try #require(body["organizationId"]?.stringValue)
            let jwt = try mint(key, org == TK.parentOrg ? TK.subOrg : org, clock.now)
            return .json(200, activity("ACTIVITY_STATUS_COMPLETED", org: org, result: ["stampLoginResult": ["session": .string(jwt)]]))
        }
    }
}
