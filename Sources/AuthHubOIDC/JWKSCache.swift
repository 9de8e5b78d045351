import AuthHub
import Foundation
import JWTKit

/// The signing keys of an issuer, fetched from its JWKS URI once and kept.
///
/// When a token names a `kid` the cached set lacks (the provider rotated its keys), the set is
/// fetched again once, but not more often than ``minimumRefetchInterval`` by the injected clock,
/// so tokens with made-up `kid`s cannot make AuthHub hammer the provider. Concurrent callers share
/// one fetch. Only RSA signature keys (`kty: RSA` with `n` and `e`, `use` absent or `sig`, `alg`
/// absent or `RS256`) of at least 2048 bits are kept.
public actor JWKSCache {
    /// The JWKS URI (absolute, or a path relative to the API client's base URL).
    public nonisolated let jwksURI: String
    /// The shortest time between two fetches caused by unknown `kid`s.
    public nonisolated let minimumRefetchInterval: Duration
    private let api: APIClient
    private let clock: any AuthClock
    private var keySet: KeySet?
    private var lastFetch: Date?
    private var inFlight: Task<KeySet, any Error>?
    /// How many times the JWKS was fetched (successfully or not).
    public private(set) var fetchCount = 0

    /// The usable keys of one JWKS document.
    struct KeySet: Sendable {
        var kids: Set<String>
        var collection: JWTKeyCollection
        /// The document's only usable key, as the default of its own collection, when it has exactly one.
        var sole: JWTKeyCollection?
    }

    /// Creates a cache; nothing is fetched until a key is needed.
    /// - Parameters:
    ///   - jwksURI: e.g. the discovered `jwks_uri` or `/.well-known/jwks.json`.
    ///   - api: the client to fetch with.
    ///   - clock: the clock that rate-limits refetches (by default the API client's).
    ///   - minimumRefetchInterval: the shortest time between fetches for unknown `kid`s.
    public init(jwksURI: String, api: APIClient, clock: (any AuthClock)? = nil, minimumRefetchInterval: Duration = .seconds(60)) {
        self.jwksURI = jwksURI
        self.api = api
        self.clock = clock ?? api.clock
        self.minimumRefetchInterval = minimumRefetchInterval
    }

    /// A key collection that holds the key `kid`, fetching or refetching the JWKS as described above.
    /// - Throws: the ``IDTokenValidationFailure/missingPublicKey`` error when no key has this `kid`
    ///   or the JWKS cannot be fetched.
    func keys(containing kid: String) async throws -> JWTKeyCollection {
        if let keySet, keySet.kids.contains(kid) { return keySet.collection }
        let mayFetch: Bool
        if keySet == nil {
            mayFetch = true
        } else if let lastFetch {
            mayFetch = clock.now.timeIntervalSince(lastFetch) >= minimumRefetchInterval.seconds
        } else {
            mayFetch = true
        }
        guard mayFetch || inFlight != nil else { throw Self.missing(kid) }
        let fresh: KeySet
        do {
            fresh = try await fetch()
        } catch {
            throw IDTokenValidationFailure.missingPublicKey.error(details: ["kid": kid], underlying: AuthError.wrap(error))
        }
        guard fresh.kids.contains(kid) else { throw Self.missing(kid) }
        return fresh.collection
    }

    /// The keys for a token whose header names no `kid`: allowed only when the JWKS holds exactly
    /// one usable key (OpenID Connect Core §10.1 requires a `kid` once there are several), as with
    /// servers that publish a single key and omit `kid` from their tokens.
    /// - Throws: the ``IDTokenValidationFailure/missingPublicKey`` error otherwise.
    func soleKey() async throws -> JWTKeyCollection {
        let set: KeySet
        if let keySet {
            set = keySet
        } else {
            do { set = try await fetch() } catch {
                throw IDTokenValidationFailure.missingPublicKey.error(underlying: AuthError.wrap(error))
            }
        }
        guard let sole = set.sole else {
            throw IDTokenValidationFailure.missingPublicKey.error(details: ["kid": "", "keys": String(set.kids.count)])
        }
        return sole
    }

    private static func missing(_ kid: String) -> AuthError {
        IDTokenValidationFailure.missingPublicKey.error(details: ["kid": kid])
    }

    private func fetch() async throws -> KeySet {
        if let inFlight { return try await inFlight.value }
        fetchCount += 1
        lastFetch = clock.now
        let api = self.api
        let uri = jwksURI
        let task = Task { () async throws -> KeySet in
            let response = try await api.send(APIRequest(.get, uri))
            return try await Self.parse(response.body)
        }
        inFlight = task
        defer { inFlight = nil }
        let set = try await task.value
        keySet = set
        return set
    }

    /// Parses a JWKS document into a key collection.
    static func parse(_ data: Data) async throws -> KeySet {
        guard let json = try? JSONValue.parse(data), let keys = json["keys"]?.arrayValue else {
            throw AuthError(.invalidRequest, message: "The JWKS document is not a JSON object with a keys array.")
        }
        let collection = JWTKeyCollection()
        var kids = Set<String>()
        var usable: [Insecure.RSA.PublicKey] = []
        for key in keys {
            guard key["kty"]?.stringValue == "RSA",
                  let kid = key["kid"]?.stringValue, !kid.isEmpty,
                  let n = key["n"]?.stringValue, let e = key["e"]?.stringValue,
                  key["use"]?.stringValue.map({ $0 == "sig" }) ?? true,
                  key["alg"]?.stringValue.map({ $0 == "RS256" }) ?? true,
                  let publicKey = try? Insecure.RSA.PublicKey(modulus: n, exponent: e) else { continue }
            await collection.add(rsa: publicKey, digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
            kids.insert(kid)
            usable.append(publicKey)
        }
        var sole: JWTKeyCollection?
        if usable.count == 1, let only = usable.first {
            let single = JWTKeyCollection()
            await single.add(rsa: only, digestAlgorithm: .sha256)
            sole = single
        }
        return KeySet(kids: kids, collection: collection, sole: sole)
    }
}
