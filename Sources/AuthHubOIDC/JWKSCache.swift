import AuthHub
import Foundation
import JWTKit

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

    /// A key collection that verifies a token, with the one algorithm its key is for.
    struct VerificationKey: Sendable {
        var collection: JWTKeyCollection
        var algorithm: Algorithm
    }

    /// The usable keys of one JWKS document.
    struct KeySet: Sendable {
        /// The algorithm of each usable key, by `kid`. When a `kid` repeats, the last key wins here
        /// as it does in `collection`.
        var kids: [String: Algorithm]
        var collection: JWTKeyCollection
        /// The document's only usable key, as the default of its own collection, when it has exactly one.
        var sole: VerificationKey?
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
            return .init(document: await Self.keySet(document.keys))
        }
    }

    /// A key collection that holds the key `kid`, and that key's algorithm, fetching or refetching the
    /// JWKS as described above. The caller must check the algorithm against the token's `alg`.
    /// - Throws: the ``IDTokenValidationFailure/missingPublicKey`` error when no key has this `kid`
    ///   or the JWKS cannot be fetched.
    nonisolated func keys(containing kid: String) async throws -> VerificationKey {
        if let set = cache.fresh(where: { $0.kids[kid] != nil }), let algorithm = set.kids[kid] {
            return VerificationKey(collection: set.collection, algorithm: algorithm)
        }
        let set: KeySet
        do {
            set = try await cache.document { $0.kids[kid] != nil }
        } catch {
            throw IDTokenValidationFailure.missingPublicKey.error(details: ["kid": kid], underlying: AuthError.wrap(error))
        }
        guard let algorithm = set.kids[kid] else { throw IDTokenValidationFailure.missingPublicKey.error(details: ["kid": kid]) }
        return VerificationKey(collection: set.collection, algorithm: algorithm)
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

    /// Decodes a JWKS document (see ``JSONWebKeySet``) into a key collection.
    static func parse(_ data: Data, provider: String = "the provider") async throws -> KeySet {
        do {
            return await keySet(try JSONDecoder().decode(JSONWebKeySet.self, from: data).keys)
        } catch {
            throw ReplyDecodingFailure.error(error, provider: provider, operation: .keys, statusCode: nil, emptyBody: data.isEmpty)
        }
    }

    /// Turns the keys of a JWKS document into a key collection, skipping every key that is not usable
    /// (see the type's documentation).
    static func keySet(_ keys: [JSONWebKey]) async -> KeySet {
        let collection = JWTKeyCollection()
        var kids: [String: Algorithm] = [:]
        var usable: [UsableKey] = []
        for key in keys {
            guard let kid = key.kid, !kid.isEmpty,
                  key.use.map({ $0 == "sig" }) ?? true,
                  let parsed = usableKey(key) else { continue }
            switch parsed {
            case .rsa(let publicKey):
                await collection.add(rsa: publicKey, digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
            case .ec(let publicKey):
                await collection.add(ecdsa: publicKey, kid: JWKIdentifier(string: kid))
            }
            kids[kid] = parsed.algorithm
            usable.append(parsed)
        }
        var sole: VerificationKey?
        if usable.count == 1, let only = usable.first {
            let single = JWTKeyCollection()
            switch only {
            case .rsa(let publicKey): await single.add(rsa: publicKey, digestAlgorithm: .sha256)
            case .ec(let publicKey): await single.add(ecdsa: publicKey)
            }
            sole = VerificationKey(collection: single, algorithm: only.algorithm)
        }
        return KeySet(kids: kids, collection: collection, sole: sole)
    }

    /// One usable public key of a JWKS.
    private enum UsableKey {
        case rsa(Insecure.RSA.PublicKey)
        case ec(ES256PublicKey)

        var algorithm: Algorithm {
            switch self {
            case .rsa: .rs256
            case .ec: .es256
            }
        }
    }

    /// The public key of one JWK when its type, curve, `alg` and key material make it usable for RS256
    /// or ES256; nil otherwise (`kid` and `use` are checked by the caller).
    private static func usableKey(_ key: JSONWebKey) -> UsableKey? {
        switch key.kty {
        case "RSA":
            guard let n = key.n, let e = key.e,
                  key.alg.map({ $0 == Algorithm.rs256.rawValue }) ?? true,
                  let publicKey = try? Insecure.RSA.PublicKey(modulus: n, exponent: e) else { return nil }
            return .rsa(publicKey)
        case "EC":
            // jwt-kit builds the point from x || y without checking each coordinate's length, so a
            // 31-byte x with a 33-byte y would be read as another point: both are checked here first.
            guard key.crv == "P-256",
                  key.alg.map({ $0 == Algorithm.es256.rawValue }) ?? true,
                  let x = key.x, let y = key.y,
                  Base64URL.decode(x)?.count == 32, Base64URL.decode(y)?.count == 32,
                  let publicKey = try? ES256PublicKey(parameters: (x: x, y: y)) else { return nil }
            return .ec(publicKey)
        default:
            return nil
        }
    }
}
