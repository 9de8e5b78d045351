import AuthHub
import Crypto
import Foundation
import _CryptoExtras

/// Signs RS256 ID tokens and publishes their JWKS, for tests of code that validates ID tokens
/// (Web Auth, generic OIDC, custom plugins) — with a fresh 2048-bit key per issuer, so no test key
/// is ever shared or committed.
public struct TestTokenIssuer: Sendable {
    /// The `iss` of the tokens.
    public let issuer: String
    /// The `kid` of the signing key.
    public let keyID: String
    private let key: _RSA.Signing.PrivateKey

    /// Creates an issuer with a new RSA key.
    public init(issuer: String, keyID: String = "test-key-1") throws {
        self.issuer = issuer
        self.keyID = keyID
        self.key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
    }

    /// The JWKS document (`{"keys": [{kty, use, alg, kid, n, e}]}`).
    public var jwks: JSONValue {
        let primitives = try? key.publicKey.getKeyPrimitives()
        return ["keys": [[
            "kty": "RSA", "use": "sig", "alg": "RS256", "kid": .string(keyID),
            "n": .string(Base64URL.encode(primitives?.modulus ?? Data())),
            "e": .string(Base64URL.encode(primitives?.publicExponent ?? Data())),
        ]]]
    }

    /// A signed token: `iss` defaults to ``issuer``; every other claim is as given. `header`
    /// entries override the default `{"alg": "RS256", "typ": "JWT", "kid": keyID}`.
    public func token(_ claims: [String: JSONValue], header: [String: JSONValue] = [:]) throws -> String {
        var payload = claims
        if payload["iss"] == nil { payload["iss"] = .string(issuer) }
        let head = (["alg": "RS256", "typ": "JWT", "kid": .string(keyID)] as [String: JSONValue]).merging(header) { _, new in new }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let input = Base64URL.encode(try encoder.encode(JSONValue.object(head))) + "." + Base64URL.encode(try encoder.encode(JSONValue.object(payload)))
        let signature = try key.signature(for: SHA256.hash(data: Data(input.utf8)), padding: .insecurePKCS1v1_5)
        return input + "." + Base64URL.encode(signature.rawRepresentation)
    }

    /// A valid ID token for `clientID` issued at `now`, living `lifetime` seconds, with `extra` claims.
    public func idToken(subject: String, clientID: String, now: Date, lifetime: TimeInterval = 3600, nonce: String? = nil,
                        extra: [String: JSONValue] = [:]) throws -> String {
        var claims: [String: JSONValue] = [
            "sub": .string(subject), "aud": .string(clientID), "iat": .number(now.timeIntervalSince1970.rounded(.down)),
            "exp": .number((now.timeIntervalSince1970 + lifetime).rounded(.down)),
        ]
        if let nonce { claims["nonce"] = .string(nonce) }
        return try token(claims.merging(extra) { _, new in new })
    }
}
