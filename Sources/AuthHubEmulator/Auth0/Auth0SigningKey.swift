import enum AuthHub.Base64URL
import enum AuthHub.JSONValue
import Crypto
import Foundation
import JWTKit
import _CryptoExtras

/// The RS256 key one emulator instance signs Auth0 ID tokens with, and its public half as a JWK.
///
/// A fresh 2048-bit key is generated for every emulator instance (every ``Auth0EmulatorModule``
/// registration), so tokens of one emulator never verify against another's JWKS. Generation
/// starts in the background when the routes are registered and is awaited on first use, so an
/// emulator that never signs an Auth0 token does not wait for it. The key survives
/// `POST /__authhub/reset`: a reset clears users and tokens, not the tenant's signing key.
actor Auth0SigningKey {
    /// The generated key material.
    struct Material: Sendable {
        let keys: JWTKeyCollection
        let kid: String
        let jwk: JSONValue
    }

    private let generation: Task<Material, any Error>

    /// Starts generating the key.
    init() {
        generation = Task { try await Self.generate() }
    }

    private static func generate() async throws -> Material {
        let backing = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let primitives = try backing.publicKey.getKeyPrimitives()
        let modulus = Base64URL.encode(primitives.modulus)
        let exponent = Base64URL.encode(primitives.publicExponent)
        // The key id is a digest of the public key, so it names exactly this key.
        let kid = Base64URL.encode(SHA256.hash(data: primitives.modulus + primitives.publicExponent).prefix(16))
        let keys = JWTKeyCollection()
        await keys.add(rsa: try Insecure.RSA.PrivateKey(backing: backing), digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
        let jwk: JSONValue = [
            "kty": "RSA", "use": "sig", "alg": "RS256", "kid": .string(kid),
            "n": .string(modulus), "e": .string(exponent),
        ]
        return Material(keys: keys, kid: kid, jwk: jwk)
    }

    /// The key material, once generated.
    /// - Throws: ``Auth0Failure`` (500 `server_error`) when key generation failed.
    func material() async throws -> Material {
        do {
            return try await generation.value
        } catch {
            throw Auth0Failure.oauth("server_error", "The emulator could not create its signing key.", status: .internalServerError)
        }
    }

    /// `{"keys":[JWK]}` for `/.well-known/jwks.json`.
    func jwks() async throws -> JSONValue {
        ["keys": [try await material().jwk]]
    }

    /// Signs `claims` as a compact RS256 JWT with this key's `kid` in the header.
    func sign(_ claims: [String: JSONValue]) async throws -> String {
        let material = try await material()
        do {
            return try await material.keys.sign(Auth0Claims(claims: claims), kid: JWKIdentifier(string: material.kid))
        } catch {
            throw Auth0Failure.oauth("server_error", "The emulator could not sign a token.", status: .internalServerError)
        }
    }
}

extension Auth0SigningKey {
    /// The claims of a compact JWT whose RS256 signature this key made, or nil for anything else
    /// (malformed, another algorithm or key, tampered). Claims such as `exp` and `aud` are left to
    /// the caller, who knows the emulator's clock and what to expect.
    func verifiedClaims(_ token: String) async -> [String: JSONValue]? {
        guard let material = try? await material() else { return nil }
        return try? await material.keys.verify(token, as: Auth0Claims.self).claims
    }
}

/// An open set of JWT claims; the emulator decides every claim itself, so there is nothing to verify.
struct Auth0Claims: JWTPayload {
    var claims: [String: JSONValue]

    init(claims: [String: JSONValue]) {
        self.claims = claims
    }

    init(from decoder: any Decoder) throws {
        claims = try [String: JSONValue](from: decoder)
    }

    func encode(to encoder: any Encoder) throws {
        try claims.encode(to: encoder)
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
