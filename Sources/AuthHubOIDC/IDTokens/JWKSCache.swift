import AuthHub
import Crypto
import Foundation
import JWTKit
import _CryptoExtras

/// The signing keys of an issuer, fetched from its JWKS URI once and kept.
///
/// When a token names a `kid` the cached set lacks (the provider rotated its keys), the set is
/// fetched again once, but not more often than ``minimumRefetchInterval`` by the injected clock,
/// so tokens with made-up `kid`s cannot make AuthHub hammer the provider. Concurrent callers share
/// one fetch. Only signature keys for the two accepted algorithms are kept, each with a non-empty
/// `kid`, `use` absent or `sig`:
/// - RS256: `kty: RSA` with `n` and `e`, `alg` absent or `RS256`, at least 2048 bits;
/// - ES256: `kty: EC`, `crv: P-256`, `x` and `y` base64url of exactly 32 bytes each naming a point on
///   the curve, `alg` absent or `ES256` (e.g. Openfort's v1 JWKS).
///
/// Every other key (other `kty`, curve or `alg`, `use: enc`, malformed or too-short coordinates or
/// modulus) is skipped silently, so one odd key does not make the provider's other keys unusable;
/// a token naming a skipped key fails as ``IDTokenValidationFailure/missingPublicKey``. Each kept
/// key remembers its algorithm, and ``IDTokenValidator`` refuses a token whose `alg` is not the
/// algorithm of the key that would verify it.
public actor JWKSCache {
    /// The JWKS URI (absolute, or a path relative to the API client's base URL).
    public nonisolated let jwksURI: String
    /// The shortest time between two fetches caused by unknown `kid`s.
    public nonisolated var minimumRefetchInterval: Duration { cache.minimumRefetchInterval }
    /// Fetching, keeping, rate-limited refetching and single-flight (shared with Firebase's key cache).
    private let cache: KeyDocumentCache<KeySet>
    /// How many times the JWKS was fetched (successfully or not).
    public var fetchCount: Int { get async { await cache.fetchCount } }

    /// The signature algorithms whose keys the cache keeps: the `alg` values a token may name.
    enum Algorithm: String, Sendable, CaseIterable {
        case rs256 = "RS256"
        case es256 = "ES256"
    }

    /// One usable public key of the JWKS with the one algorithm it verifies, built once when the
    /// document is parsed: checking a signature with it is synchronous (no actor, no suspension) and
    /// reuses the key's parsed form (for RSA, BoringSSL's Montgomery context, set up on first use).
    struct VerificationKey: Sendable {
        /// The swift-crypto public key.
        enum Material: Sendable {
            case rsa(_RSA.Signing.PublicKey)
            case p256(P256.Signing.PublicKey)
        }

        var material: Material

        /// The only `alg` this key verifies.
        var algorithm: Algorithm {
            switch material {
            case .rsa: .rs256
            case .p256: .es256
            }
        }

        /// Whether `signature` (the decoded third part of a compact JWS) signs `signingInput` (the
        /// token's bytes before its second `.`) with this key's algorithm: RS256 is RSASSA-PKCS1-v1_5
        /// with SHA-256 (RFC 7518, section 3.3); ES256 is ECDSA P-256 with SHA-256 whose signature is
        /// the raw `r || s` of exactly 64 bytes (RFC 7518, section 3.4; a DER signature is refused).
        func isValidSignature(_ signature: Data, for signingInput: some DataProtocol) -> Bool {
            let digest = SHA256.hash(data: signingInput)
            switch material {
            case .rsa(let key):
                return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: digest,
                                            padding: .insecurePKCS1v1_5)
            case .p256(let key):
                guard signature.count == 64, let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else {
                    return false
                }
                return key.isValidSignature(ecdsa, for: digest)
            }
        }
    }

    /// The usable keys of one JWKS document.
    struct KeySet: Sendable {
        /// Each usable key by `kid`. When a `kid` repeats, the last key wins.
        var keys: [String: VerificationKey]
        /// The document's only usable key, when it has exactly one (for tokens without `kid`).
        var sole: VerificationKey?

        /// The algorithm of each usable key, by `kid`.
        var kids: [String: Algorithm] { keys.mapValues(\.algorithm) }
    }

    /// Creates a cache; nothing is fetched until a key is needed.
    /// - Parameters:
    ///   - jwksURI: e.g. the discovered `jwks_uri` or `/.well-known/jwks.json`.
    ///   - api: the client to fetch with.
    ///   - clock: the clock that rate-limits refetches (by default the API client's).
    ///   - minimumRefetchInterval: the shortest time between fetches for unknown `kid`s.
    public init(jwksURI: String, api: APIClient, clock: (any AuthClock)? = nil, minimumRefetchInterval: Duration = .seconds(60)) {
        self.jwksURI = jwksURI
        cache = KeyDocumentCache(clock: clock ?? api.clock, minimumRefetchInterval: minimumRefetchInterval) {
            let document = try await api.send(APIRequest(.get, jwksURI, operation: .keys), as: JSONWebKeySet.self)
            return .init(document: Self.keySet(document.keys))
        }
    }

    /// The key `kid` (for an empty `kid`, the JWKS's sole key) when the kept JWKS is fresh and holds
    /// it; nil otherwise (then ask ``keys(containing:)`` or ``soleKey()``, which may fetch). Never
    /// suspends and never enters an actor: the hit path of every request an API verifies.
    nonisolated func cachedKey(kid: String) -> VerificationKey? {
        cachedKeyWithGeneration(kid: kid)?.key
    }

    /// ``cachedKey(kid:)`` with the generation of the kept JWKS it came from (it changes whenever
    /// another JWKS is kept): a token verified with this key is still backed by the kept keys while
    /// ``cachedGeneration(kid:)`` answers the same number.
    nonisolated func cachedKeyWithGeneration(kid: String) -> (key: VerificationKey, generation: UInt64)? {
        if kid.isEmpty {
            return cache.freshWithGeneration(where: { $0.sole != nil }).flatMap { kept in kept.document.sole.map { ($0, kept.generation) } }
        }
        return cache.freshWithGeneration(where: { $0.keys[kid] != nil }).flatMap { kept in kept.document.keys[kid].map { ($0, kept.generation) } }
    }

    /// The generation of the kept JWKS when it is fresh and still holds the key `kid` (the sole key
    /// for an empty `kid`); nil otherwise. Never suspends.
    nonisolated func cachedGeneration(kid: String) -> UInt64? {
        cachedKeyWithGeneration(kid: kid)?.generation
    }

    /// The key `kid`, with its algorithm, fetching or refetching the JWKS as described above. The
    /// caller must check the algorithm against the token's `alg`.
    /// - Throws: the ``IDTokenValidationFailure/missingPublicKey`` error when no key has this `kid`
    ///   or the JWKS cannot be fetched.
    nonisolated func keys(containing kid: String) async throws -> VerificationKey {
        if !kid.isEmpty, let key = cachedKey(kid: kid) { return key }
        let set: KeySet
        do {
            set = try await cache.document { $0.keys[kid] != nil }
        } catch {
            throw IDTokenValidationFailure.missingPublicKey.error(details: ["kid": kid], underlying: AuthError.wrap(error))
        }
        guard let key = set.keys[kid] else { throw IDTokenValidationFailure.missingPublicKey.error(details: ["kid": kid]) }
        return key
    }

    /// The keys for a token whose header names no `kid`: allowed only when the JWKS holds exactly
    /// one usable key (OpenID Connect Core, section 10.1 requires a `kid` once there are several), as with
    /// servers that publish a single key and omit `kid` from their tokens. The key may be RSA or EC;
    /// the caller must check its algorithm against the token's `alg`.
    /// - Throws: the ``IDTokenValidationFailure/missingPublicKey`` error otherwise.
    nonisolated func soleKey() async throws -> VerificationKey {
        let set: KeySet
        do { set = try await cache.document { _ in true } } catch {
            throw IDTokenValidationFailure.missingPublicKey.error(underlying: AuthError.wrap(error))
        }
        guard let sole = set.sole else {
            throw IDTokenValidationFailure.missingPublicKey.error(details: ["kid": "", "keys": String(set.kids.count)])
        }
        return sole
    }

    /// Decodes a JWKS document (see ``JSONWebKeySet``) into its usable keys.
    static func parse(_ data: Data, provider: String = "the provider") async throws -> KeySet {
        do {
            return keySet(try JSONDecoder().decode(JSONWebKeySet.self, from: data).keys)
        } catch {
            throw ReplyDecodingFailure.error(error, provider: provider, operation: .keys, statusCode: nil, emptyBody: data.isEmpty)
        }
    }

    /// Turns the keys of a JWKS document into verification keys, skipping every key that is not
    /// usable (see the type's documentation).
    static func keySet(_ keys: [JSONWebKey]) -> KeySet {
        var byKid: [String: VerificationKey] = [:]
        var usable = 0
        var last: VerificationKey?
        for key in keys {
            guard let kid = key.kid, !kid.isEmpty,
                  key.use.map({ $0 == "sig" }) ?? true,
                  let parsed = usableKey(key) else { continue }
            byKid[kid] = parsed
            usable += 1
            last = parsed
        }
        return KeySet(keys: byKid, sole: usable == 1 ? last : nil)
    }

    /// The public key of one JWK when its type, curve, `alg` and key material make it usable for RS256
    /// or ES256; nil otherwise (`kid` and `use` are checked by the caller).
    private static func usableKey(_ key: JSONWebKey) -> VerificationKey? {
        switch key.kty {
        case "RSA":
            // jwt-kit reads the base64url material and refuses keys under 2048 bits; the swift-crypto
            // key under it is what verifies.
            guard let n = key.n, let e = key.e,
                  key.alg.map({ $0 == Algorithm.rs256.rawValue }) ?? true,
                  let checked = try? Insecure.RSA.PublicKey(modulus: n, exponent: e),
                  let primitives = try? checked.getKeyPrimitives(),
                  let publicKey = try? _RSA.Signing.PublicKey(n: primitives.modulus, e: primitives.publicExponent),
                  publicKey.keySizeInBits >= 2048 else { return nil }
            return VerificationKey(material: .rsa(publicKey))
        case "EC":
            // The point is read from x || y, so each coordinate's length is checked first (a 31-byte x
            // with a 33-byte y would be read as another point); swift-crypto refuses a point off the curve.
            guard key.crv == "P-256",
                  key.alg.map({ $0 == Algorithm.es256.rawValue }) ?? true,
                  let x = key.x, let y = key.y,
                  let xBytes = Base64URL.decode(x), xBytes.count == 32,
                  let yBytes = Base64URL.decode(y), yBytes.count == 32,
                  let publicKey = try? P256.Signing.PublicKey(x963Representation: [0x04] + xBytes + yBytes) else { return nil }
            return VerificationKey(material: .p256(publicKey))
        default:
            return nil
        }
    }
}
