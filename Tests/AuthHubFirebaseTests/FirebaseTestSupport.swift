import AuthHub
@_spi(Internals) @testable import AuthHubFirebase
import AuthHubTesting
import Foundation
import JWTKit

/// Arbitrary claims, signed by jwt-kit.
struct AnyClaims: JWTPayload {
    var claims: [String: JSONValue]
    init(_ claims: [String: JSONValue]) { self.claims = claims }
    init(from decoder: any Decoder) throws { claims = try [String: JSONValue](from: decoder) }
    func encode(to encoder: any Encoder) throws { try claims.encode(to: encoder) }
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

enum FB {
    static let projectId = "demo-proj"
    static let apiKey = "AIza-test-key"
    static let issuer = "https://securetoken.google.com/demo-proj"
    static let kid = "fb-key-1"
    static let jwksPath = "/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com"
    static let x509Path = "/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com"

    static let production = FirebaseConfiguration(apiKey: Secret(apiKey), projectId: projectId)
    static let emulator = FirebaseConfiguration(apiKey: Secret("any"), projectId: projectId, emulatorHost: "127.0.0.1:9099")
    static let tenant = FirebaseConfiguration(apiKey: Secret(apiKey), projectId: projectId, tenantId: "tenant-1")

    /// Firebase ID-token claims for `uid` at `now`, with changes (nil removes a claim).
    static func claims(uid: String = "uid-1", now: Date, lifetime: TimeInterval = 3600,
                       _ changes: [String: JSONValue?] = [:]) -> [String: JSONValue] {
        let t = now.timeIntervalSince1970.rounded(.down)
        var c: [String: JSONValue] = [
            "iss": .string(issuer), "aud": .string(projectId), "sub": .string(uid), "user_id": .string(uid),
            "iat": .number(t), "exp": .number(t + lifetime), "auth_time": .number(t),
            "email": "a@example.com", "email_verified": false,
            "firebase": ["identities": ["email": ["a@example.com"]], "sign_in_provider": "password"],
        ]
        for (k, v) in changes { c[k] = v }
        return c
    }

    /// An RS256 token signed with the test key.
    static func signed(_ claims: [String: JSONValue], kid: String? = FB.kid) async throws -> String {
        let keys = JWTKeyCollection()
        let key = try Insecure.RSA.PrivateKey(pem: FirebaseTestKeys.privateKey)
        await keys.add(rsa: key, digestAlgorithm: .sha256, kid: kid.map { JWKIdentifier(string: $0) })
        return try await keys.sign(AnyClaims(claims), kid: kid.map { JWKIdentifier(string: $0) })
    }

    /// A compact JWT with any header and signature (as the emulator's unsigned tokens).
    static func compact(header: JSONValue, claims: [String: JSONValue], signature: String = "") throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return Base64URL.encode(try encoder.encode(header)) + "." + Base64URL.encode(try encoder.encode(JSONValue.object(claims)))
            + "." + signature
    }

    /// An unsigned emulator token.
    static func unsigned(_ claims: [String: JSONValue]) throws -> String {
        try compact(header: ["alg": "none", "typ": "JWT"], claims: claims)
    }

    static func jwks(kid: String = FB.kid) throws -> JSONValue {
        let primitives = try Insecure.RSA.PrivateKey(pem: FirebaseTestKeys.privateKey).publicKey.getKeyPrimitives()
        return ["keys": [["kty": "RSA", "use": "sig", "alg": "RS256", "kid": .string(kid),
                          "n": .string(Base64URL.encode(primitives.modulus)), "e": .string(Base64URL.encode(primitives.publicExponent))]]]
    }

    static func x509Map(kid: String = FB.kid) -> JSONValue {
        [kid: .string(FirebaseTestKeys.certificate)]
    }

    /// Serves Google's JWKS (and X.509 map) from a stub transport with a max-age.
    static func serveKeys(_ transport: StubTransport, maxAge: Int = 3600) {
        transport.on(.get, jwksPath) { _ in try .json(200, jwks(), headerFields: [.cacheControl: "public, max-age=\(maxAge), must-revalidate"]) }
        transport.on(.get, x509Path) { _ in .json(200, x509Map(), headerFields: [.cacheControl: "public, max-age=\(maxAge)"]) }
    }

    static func provider(_ transport: StubTransport, _ clock: FakeClock, configuration: FirebaseConfiguration = FB.production,
                         keySource: FirebasePublicKeyCache.Source = .googleJWKS) -> FirebaseProvider {
        FirebaseProvider(id: "firebase", configuration: configuration, context: ProviderContext(transport: transport, clock: clock),
                         keySource: keySource)
    }

    /// A sign-in style reply for `uid` with a signed (production) or unsigned (emulator) token.
    static func tokenReply(uid: String = "uid-1", now: Date, refreshToken: String = "rt-1", expiresIn: String = "3600",
                           unsigned: Bool = false, extra: [String: JSONValue] = [:]) async throws -> JSONValue {
        let c = claims(uid: uid, now: now)
        let token = unsigned ? try FB.unsigned(c) : try await signed(c)
        var reply: [String: JSONValue] = [
            "kind": "identitytoolkit#VerifyPasswordResponse", "localId": .string(uid), "email": "a@example.com",
            "displayName": "", "idToken": .string(token), "registered": true, "refreshToken": .string(refreshToken),
            "expiresIn": .string(expiresIn),
        ]
        for (k, v) in extra { reply[k] = v }
        return .object(reply)
    }

    /// A Secure Token refresh reply (snake_case, `expires_in` a string).
    static func refreshReply(uid: String = "uid-1", now: Date, refreshToken: String? = "rt-2", unsigned: Bool = false) async throws -> JSONValue {
        let c = claims(uid: uid, now: now)
        let token = unsigned ? try FB.unsigned(c) : try await signed(c)
        var reply: [String: JSONValue] = [
            "access_token": .string(token), "expires_in": "3600", "token_type": "Bearer", "id_token": .string(token),
            "user_id": .string(uid), "project_id": "1234567890",
        ]
        if let refreshToken { reply["refresh_token"] = .string(refreshToken) }
        return .object(reply)
    }

    /// A Firebase error envelope.
    static func error(_ message: String, status: String? = nil, code: Int = 400) -> JSONValue {
        var error: [String: JSONValue] = [
            "code": .number(Double(code)), "message": .string(message),
            "errors": [["message": .string(message), "domain": "global", "reason": "invalid"]],
        ]
        if let status { error["status"] = .string(status) }
        return ["error": .object(error)]
    }
}
