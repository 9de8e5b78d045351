import AuthHub
import Foundation
import JWTKit

/// Google's public keys for Firebase ID tokens (<doc:FirebaseEndpoints>: “ID-token verification”), fetched on demand and cached until
/// the reply's `Cache-Control: max-age` runs out (by the injected clock).
///
/// Two document formats are understood, chosen by ``Source``: the JWKS
/// (`{"keys": [{kty, alg, use, kid, n, e}]}`) and the X.509 map (`{"<kid>": "-----BEGIN
/// CERTIFICATE-----…"}`), whose certificates' RSA public keys are read with jwt-kit's
/// `Insecure.RSA.PublicKey(certificatePEM:)` (swift-certificates underneath; no hand-written DER).
///
/// A token naming a `kid` the fresh cache lacks (Google rotated its keys) causes one refetch, but
/// not more often than ``minimumRefetchInterval``: tokens with made-up `kid`s cannot make AuthHub
/// hammer Google. Concurrent callers share one fetch. Only RSA keys whose `alg` (when given) is
/// RS256 and `use` (when given) is `sig` are kept.
public actor FirebasePublicKeyCache {
    /// Where the keys come from.
    public enum Source: Sendable, Hashable {
        /// A JWKS document.
        case jwks(String)
        /// A JSON object mapping `kid` to a PEM certificate.
        case x509(String)

        /// Google's JWKS for Firebase ID tokens.
        public static let googleJWKS = Source.jwks(
            "https://www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com")
        /// Google's X.509 certificate map for Firebase ID tokens.
        public static let googleX509 = Source.x509(
            "https://www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com")

        var url: String {
            switch self {
            case .jwks(let url), .x509(let url): url
            }
        }
    }

    /// The key document.
    public nonisolated let source: Source
    /// The shortest time between two fetches caused by unknown `kid`s.
    public nonisolated var minimumRefetchInterval: Duration { cache.minimumRefetchInterval }
    /// How long keys are kept when the reply has no `Cache-Control: max-age` (one hour).
    public nonisolated let defaultMaxAge: TimeInterval
    /// Fetching, keeping until `max-age`, rate-limited refetching and single-flight (shared with the
    /// OpenID Connect JWKS cache).
    private let cache: KeyDocumentCache<KeySet>
    /// How many times the key document was requested (successfully or not).
    public var fetchCount: Int { get async { await cache.fetchCount } }

    struct KeySet: Sendable {
        var kids: Set<String>
        var collection: JWTKeyCollection
    }

    /// Creates a cache; nothing is fetched until a key is needed.
    /// - Parameters:
    ///   - source: the key document (Google's JWKS by default).
    ///   - api: the client to fetch with (its base URL does not matter: the source URL is absolute).
    ///   - clock: decides expiry and the refetch interval.
    ///   - minimumRefetchInterval: the shortest time between fetches for unknown `kid`s (60 s).
    ///   - defaultMaxAge: the lifetime of keys from a reply without `max-age`.
    public init(source: Source = .googleJWKS, api: APIClient, clock: (any AuthClock)? = nil,
                minimumRefetchInterval: Duration = .seconds(60), defaultMaxAge: TimeInterval = 3600) {
        self.source = source
        self.defaultMaxAge = defaultMaxAge
        let clock = clock ?? api.clock
        cache = KeyDocumentCache(clock: clock, minimumRefetchInterval: minimumRefetchInterval) {
            let response = try await api.send(APIRequest(.get, source.url, retry: .idempotent, operation: .keys))
            let maxAge = Self.maxAge(response.headerFields[.cacheControl]) ?? defaultMaxAge
            let expiresAt = clock.now.addingTimeInterval(maxAge)
            return .init(document: try await Self.parse(response.body, source: source), expiresAt: expiresAt)
        }
    }

    /// A key collection holding `kid`, or nil when the key document (fetched or refetched as
    /// described above) has no such key.
    /// - Throws: the fetch's error (network, HTTP, unreadable document) when keys were needed and
    ///   could not be fetched.
    func keys(for kid: String) async throws -> JWTKeyCollection? {
        let set = try await cache.document { $0.kids.contains(kid) }
        return set.kids.contains(kid) ? set.collection : nil
    }

    /// The longest the keys are cached whatever `max-age` says: one day (Google rotates them every few
    /// hours; a hostile `max-age=1e300` must not pin a key forever).
    static let maxCacheSeconds: TimeInterval = 86_400

    /// The `max-age` of a `Cache-Control` value, in seconds, at most ``maxCacheSeconds`` (nil when
    /// absent or malformed; `no-cache`/`no-store` count as 0).
    static func maxAge(_ header: String?) -> TimeInterval? {
        guard let header else { return nil }
        var result: TimeInterval?
        for directive in header.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            if parts.first == "no-cache" || parts.first == "no-store" { return 0 }
            if parts.count == 2, parts[0] == "max-age", let seconds = Double(parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))),
               seconds.isFinite, seconds >= 0 {
                result = min(seconds, Self.maxCacheSeconds)
            }
        }
        return result
    }

    /// Parses a key document of `source`'s format.
    static func parse(_ data: Data, source: Source) async throws -> KeySet {
        func notAnObject(_ error: any Error) -> AuthError {
            AuthError(.invalidRequest, message: "The Firebase public key document is not a JSON object.", underlying: error,
                      details: ["operation": AuthOperation.keys.rawValue])
        }
        var keys: [(String, Insecure.RSA.PublicKey)] = []
        switch source {
        case .jwks:
            let set: FirebaseJSONWebKeySet
            do { set = try JSONDecoder().decode(FirebaseJSONWebKeySet.self, from: data) } catch { throw notAnObject(error) }
            for key in set.keys {
                guard key.kty == "RSA", let kid = key.kid, !kid.isEmpty, let n = key.n, let e = key.e,
                      key.use.map({ $0 == "sig" }) ?? true, key.alg.map({ $0 == "RS256" }) ?? true,
                      let publicKey = try? Insecure.RSA.PublicKey(modulus: n, exponent: e) else { continue }
                keys.append((kid, publicKey))
            }
        case .x509:
            let map: FirebaseCertificateMap
            do { map = try JSONDecoder().decode(FirebaseCertificateMap.self, from: data) } catch { throw notAnObject(error) }
            for (kid, pem) in map.certificates.sorted(by: { $0.key < $1.key }) where !kid.isEmpty {
                guard let publicKey = try? Insecure.RSA.PublicKey(certificatePEM: pem) else { continue }
                keys.append((kid, publicKey))
            }
        }
        let collection = JWTKeyCollection()
        var kids = Set<String>()
        for (kid, key) in keys {
            await collection.add(rsa: key, digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
            kids.insert(kid)
        }
        return KeySet(kids: kids, collection: collection)
    }
}
