import enum AuthHub.Base64URL
import enum AuthHub.JSONValue
import Crypto
import Foundation
import JWTKit
import _CryptoExtras

/// The algorithm an emulated Auth0 tenant signs its ID tokens with.
///
/// Auth0 itself signs with RS256 (the default here); ES256 (a P-256 key published as a `kty: EC`
/// JWK) lets tests exercise clients against an OpenID provider that signs with elliptic curves.
public enum Auth0EmulatorSigningAlgorithm: String, Sendable, CaseIterable {
    /// RSA PKCS#1 v1.5 with SHA-256, a 2048-bit key.
    case rs256 = "RS256"
    /// ECDSA on P-256 with SHA-256.
    case es256 = "ES256"
}

/// The key one emulator instance signs Auth0 ID tokens with (RS256 by default, or ES256), and its
/// public half as a JWK.
///
/// A fresh key (2048-bit RSA, or P-256) is generated for every emulator instance (every
/// ``Auth0EmulatorModule`` registration), so tokens of one emulator never verify against another's
/// JWKS. Generation starts at the first use (a token to sign, the JWKS to publish) and is shared by
/// the uses that wait for it, so an emulator that never serves an Auth0 key — most emulators of a
/// test run, which start every module — costs no key generation: in a debug build a 2048-bit RSA key
/// is seconds of CPU, and a full test run starting dozens of emulators at once starved every other
/// test (10 s reply timeouts) when each generated one at start. The key
/// survives `POST /__authhub/reset`: a reset clears users and tokens, not the tenant's signing key.
actor Auth0SigningKey {
    /// The generated key material.
    struct Material: Sendable {
        let keys: JWTKeyCollection
        let kid: String
        let jwk: JSONValue
    }

    /// The algorithm of the tokens this key signs.
    nonisolated let algorithm: Auth0EmulatorSigningAlgorithm
    /// The key's generation, started by the first use (``material()``).
    private var generation: Task<Material, any Error>?

    /// A key to be generated on first use.
    init(algorithm: Auth0EmulatorSigningAlgorithm = .rs256) {
        self.algorithm = algorithm
    }

    private static func generateRSA() async throws -> Material {
        let backing = try await onThreadOfItsOwn { try _RSA.Signing.PrivateKey(keySize: .bits2048) }
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

    private static func generateP256() async throws -> Material {
        let backing = P256.Signing.PrivateKey()
        let point = [UInt8](backing.publicKey.x963Representation)  // 0x04 || x || y (RFC 7518, section 6.2.1)
        let kid = Base64URL.encode(SHA256.hash(data: point).prefix(16))
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: try ES256PrivateKey(backing: backing), kid: JWKIdentifier(string: kid))
        let jwk: JSONValue = [
            "kty": "EC", "crv": "P-256", "use": "sig", "alg": "ES256", "kid": .string(kid),
            "x": .string(Base64URL.encode(point[1..<33])), "y": .string(Base64URL.encode(point[33..<65])),
        ]
        return Material(keys: keys, kid: kid, jwk: jwk)
    }

    /// Runs `work` on a thread of its own and returns its result. RSA key generation is seconds of CPU
    /// in a debug build (BoringSSL compiled without optimisation): on one of Swift's cooperative
    /// threads (as many as cores) it held that thread the whole time, and a test run starting dozens of
    /// emulators at once left no thread for anything else — timers and replies waited tens of seconds.
    /// An OS thread is preempted like any other.
    private static func onThreadOfItsOwn<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try work() }) }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// The key material, once generated.
    /// - Throws: ``Auth0Failure`` (500 `server_error`) when key generation failed.
    func material() async throws -> Material {
        let generation = self.generation ?? Task { [algorithm] in
            switch algorithm {
            case .rs256: try await Self.generateRSA()
            case .es256: try await Self.generateP256()
            }
        }
        self.generation = generation
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

    /// Signs `claims` as a compact JWT (RS256 or ES256, per ``algorithm``) with this key's `kid` in the header.
    /// - Parameter type: the header's `typ` (e.g. `logout+jwt` for a logout token); jwt-kit's `JWT` when nil.
    func sign(_ claims: [String: JSONValue], type: String? = nil) async throws -> String {
        let material = try await material()
        var header = JWTHeader()
        if let type { header.typ = type }
        do {
            return try await material.keys.sign(Auth0Claims(claims: claims), kid: JWKIdentifier(string: material.kid), header: header)
        } catch {
            throw Auth0Failure.oauth("server_error", "The emulator could not sign a token.", status: .internalServerError)
        }
    }
}

extension Auth0SigningKey {
    /// The claims of a compact JWT whose signature this key made, or nil for anything else
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
