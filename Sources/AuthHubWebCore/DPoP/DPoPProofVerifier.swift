import AuthHub
import Crypto
import _CryptoExtras
import Foundation

/// Checks DPoP proofs (RFC 9449, section 4.3) at a resource server: the `DPoP` header of a request
/// that sends a DPoP-bound access token (`Authorization: DPoP <token>`).
///
/// In order, each failure an ``AuthError`` (``AuthErrorCode/invalidToken``) whose
/// `details["reason"]` names the check (``Failure``) and whose `details["dpopError"]` is the
/// challenge's error code (`invalid_dpop_proof`, or `use_dpop_nonce` for a missing or stale nonce):
/// 1. one compact JWS of at most 8 KiB, three base64url parts, header and payload JSON objects;
/// 2. `typ` is `dpop+jwt`; `alg` is one of ``allowedAlgorithms`` (never `none` or an HMAC);
/// 3. `jwk` is a public key of that algorithm (an EC P-256 key for ES256, RSA of 2,048 bits or more
///    for RS256/PS256) and holds no private member (`d`, `p`, `q`, `dp`, `dq`, `qi`, `k`);
/// 4. the signature verifies with that key;
/// 5. `jti`, `htm`, `htu` and `iat` are present (strings; `iat` a number);
/// 6. `htm` is the request's method and `htu` its URI as the client addressed it (query and fragment
///    ignored, scheme and host compared without case, default ports dropped);
/// 7. `iat` is within ``maxAge`` before now and ``futureLeeway`` after it;
/// 8. `ath` is the base64url SHA-256 of the access token sent, and the key's thumbprint (RFC 7638)
///    is the token's `cnf.jkt`;
/// 9. with ``nonces``: `nonce` is one the server issued and still accepts;
/// 10. `jti` has not been seen with this key within the proof's lifetime (``replayCache``).
public struct DPoPProofVerifier: Sendable {
    /// The algorithms this verifier can check.
    public static let supportedAlgorithms: Set<String> = ["ES256", "RS256", "PS256"]

    /// The `alg` values accepted (the `algs` of the `WWW-Authenticate: DPoP` challenge).
    public let allowedAlgorithms: Set<String>
    /// How old a proof's `iat` may be, in seconds (1…3,600).
    public let maxAge: TimeInterval
    /// How far in the future a proof's `iat` may be (clock skew), in seconds (0…300).
    public let futureLeeway: TimeInterval
    /// Where seen `jti`s are kept until their proofs are too old to be accepted.
    public let replayCache: any ReplayCache
    /// Server nonces (RFC 9449, section 9); nil requires none.
    public let nonces: DPoPNonceIssuer?
    public let clock: any AuthClock
    /// ``replayCache`` when it is the in-memory one (looked up once: a cast per request costs).
    let memoryReplayCache: InMemoryReplayCache?
    /// The proof headers seen lately, checked and their keys parsed once (a client signs every proof
    /// with one key under one header).
    let keyCache = ProofKeyCache()

    /// Why a proof was refused: `details["reason"]` of the error.
    public enum Failure: String, Sendable, CaseIterable {
        case malformed = "dpopMalformed"
        case wrongType = "dpopWrongType"
        case algorithmNotAllowed = "dpopAlgorithmNotAllowed"
        case invalidKey = "dpopInvalidKey"
        case privateKey = "dpopPrivateKey"
        case badSignature = "dpopBadSignature"
        case missingClaim = "dpopMissingClaim"
        case methodMismatch = "dpopMethodMismatch"
        case uriMismatch = "dpopURIMismatch"
        case stale = "dpopStale"
        case future = "dpopFuture"
        case accessTokenHashMismatch = "dpopAccessTokenHashMismatch"
        case keyMismatch = "dpopKeyMismatch"
        case nonceRequired = "dpopNonceRequired"
        case replayed = "dpopReplayed"
    }

    /// A proof that passed every check.
    public struct Verified: Sendable {
        /// The thumbprint (RFC 7638) of the proof's key.
        public let thumbprint: String
        /// The proof's `jti`.
        public let jti: String
    }

    /// - Parameters:
    ///   - allowedAlgorithms: the `alg`s accepted, among ``supportedAlgorithms`` (others are dropped;
    ///     none left means ES256).
    ///   - maxAge: how old `iat` may be, in seconds; clamped to 1…3,600.
    ///   - futureLeeway: how far ahead `iat` may be, in seconds; clamped to 0…300.
    ///   - replayCache: the seen `jti`s; nil keeps them in this process (one replica, on `clock`);
    ///     share one across replicas so a proof cannot be replayed at another replica.
    ///   - nonces: require server nonces.
    ///   - clock: the time `iat` is checked against.
    public init(allowedAlgorithms: Set<String> = ["ES256"], maxAge: TimeInterval = 60, futureLeeway: TimeInterval = 5,
                replayCache: (any ReplayCache)? = nil, nonces: DPoPNonceIssuer? = nil,
                clock: any AuthClock = SystemClock()) {
        let allowed = allowedAlgorithms.intersection(Self.supportedAlgorithms)
        self.allowedAlgorithms = allowed.isEmpty ? ["ES256"] : allowed
        self.maxAge = min(max(maxAge.isFinite ? maxAge : 60, 1), 3_600)
        self.futureLeeway = min(max(futureLeeway.isFinite ? futureLeeway : 5, 0), 300)
        self.replayCache = replayCache ?? InMemoryReplayCache(clock: clock)
        self.memoryReplayCache = self.replayCache as? InMemoryReplayCache
        self.nonces = nonces
        self.clock = clock
    }

    /// Checks a proof; see the type's description for the checks and their order.
    /// - Parameters:
    ///   - proof: the `DPoP` header's value.
    ///   - method: the request's method.
    ///   - uri: the request's URI as the client addressed it (normalized as ``DPoPKey/normalizedTarget(_:)`` does).
    ///   - accessToken: the access token sent with the proof (checked against `ath`); nil at an
    ///     endpoint that takes no token.
    ///   - boundThumbprint: the token's `cnf.jkt`, which the proof's key must have.
    public func verify(_ proof: String, method: String, uri: URL, accessToken: Secret<String>?,
                       boundThumbprint: String?) async throws -> Verified {
        try await verify(proof, method: method, target: DPoPKey.normalizedTarget(uri.absoluteString), accessToken: accessToken,
                         boundThumbprint: boundThumbprint)
    }

    /// ``verify(_:method:uri:accessToken:boundThumbprint:)`` with the request's URI already
    /// normalized (``DPoPKey/normalizedTarget(scheme:authority:path:)``; nil: unknown, refused).
    public func verify(_ proof: String, method: String, target: String?, accessToken: Secret<String>?,
                       boundThumbprint: String?) async throws -> Verified {
        try await verify(proof, method: method, target: target, accessToken: accessToken, accessTokenHash: nil, boundThumbprint: boundThumbprint)
    }

    /// ``verify(_:method:target:accessToken:boundThumbprint:)`` with the access token's `ath`
    /// (``DPoPKey/accessTokenHash(_:)``) already made by the caller; nil makes it here.
    package func verify(_ proof: String, method: String, target: String?, accessToken: Secret<String>?, accessTokenHash: String?,
                        boundThumbprint: String?) async throws -> Verified {
        let checked = try check(proof, method: method, target: target, accessToken: accessToken, accessTokenHash: accessTokenHash,
                                boundThumbprint: boundThumbprint)
        // Kept until the proof would be refused as too old anyway (its iat, at most futureLeeway ahead, plus maxAge).
        let expiry = Date(timeIntervalSince1970: min(checked.iat, clock.now.timeIntervalSince1970 + futureLeeway) + maxAge)
        let replayDigest = Self.replayDigest(thumbprint: checked.thumbprint, jti: checked.jti)
        // The in-memory cache answers without suspending (no async call through the protocol) and
        // keeps the digest itself.
        let fresh = if let memory = memoryReplayCache {
            try memory.record(digest: replayDigest, until: expiry)
        } else {
            try await replayCache.firstUse(of: Base64URL.encode(replayDigest), until: expiry)
        }
        guard fresh else {
            throw Self.failure(.replayed, "The DPoP proof was used before (jti).")
        }
        return Verified(thumbprint: checked.thumbprint, jti: checked.jti)
    }

    /// What ``check(_:method:target:accessToken:accessTokenHash:boundThumbprint:)`` found in a proof that passed.
    struct Checked: Sendable {
        let thumbprint: String
        let jti: String
        let iat: Double
    }

    /// Every check but the replay cache's, synchronously.
    func check(_ proof: String, method: String, target: String?, accessToken: Secret<String>?, accessTokenHash: String? = nil,
               boundThumbprint: String?) throws -> Checked {
        // One pass over the proof's bytes: its framing, the header's key, the claims, the signature.
        var proofText = proof
        let (thumbprint, claims) = try proofText.withUTF8 { bytes throws -> (String, [String: JSONValue]) in
            guard bytes.count <= 8_192, let (first, second) = JWTParts.dots(bytes) else {
                throw Self.failure(.malformed, "The DPoP proof is not a compact JWT.")
            }
            // A client signs every proof with one key under the same header: its checks are made once
            // per distinct header text (bounded cache); the claims are read for every proof.
            let encodedHeader = String(decoding: UnsafeBufferPointer(rebasing: bytes[..<first]), as: UTF8.self)
            let (key, thumbprint): (ProofKey, String)
            if let known = keyCache.header(encodedHeader) {
                (key, thumbprint) = known
            } else {
                guard let (header, _) = JWTParts.decode(Secret(proof)) else { throw Self.failure(.malformed, "The DPoP proof is not a compact JWT.") }
                (key, thumbprint) = try checkedKey(header)
                keyCache.remember(header: encodedHeader, key: key, thumbprint: thumbprint)
            }
            guard let data = Base64URL.decode(buffer: UnsafeBufferPointer(rebasing: bytes[(first + 1)..<second])),
                  let claims = (try? JSONValue.parse(data))?.objectValue else {
                throw Self.failure(.malformed, "The DPoP proof is not a compact JWT.")
            }
            guard key.verifies(bytes, secondDot: second) else { throw Self.failure(.badSignature, "The DPoP proof's signature does not verify.") }
            return (thumbprint, claims)
        }
        guard let jti = claims["jti"]?.stringValue, !jti.isEmpty, jti.utf8.count <= 256 else { throw Self.missing("jti") }
        guard let htm = claims["htm"]?.stringValue else { throw Self.missing("htm") }
        guard let htu = claims["htu"]?.stringValue else { throw Self.missing("htu") }
        guard let iat = claims["iat"]?.doubleValue, iat.isFinite else { throw Self.missing("iat") }
        guard htm == method else { throw Self.failure(.methodMismatch, "The DPoP proof is for another method (htm).") }
        guard let target, DPoPKey.normalizedTarget(htu) == target else {
            throw Self.failure(.uriMismatch, "The DPoP proof is for another URI (htu).")
        }
        let now = clock.now.timeIntervalSince1970
        guard iat >= now - maxAge else { throw Self.failure(.stale, "The DPoP proof is too old (iat).") }
        guard iat <= now + futureLeeway else { throw Self.failure(.future, "The DPoP proof is dated in the future (iat).") }
        if let accessToken {
            guard let ath = claims["ath"]?.stringValue else { throw Self.missing("ath") }
            guard constantTimeEquals(ath, accessTokenHash ?? DPoPKey.accessTokenHash(accessToken)) else {
                throw Self.failure(.accessTokenHashMismatch, "The DPoP proof is for another access token (ath).")
            }
        }
        if let boundThumbprint {
            guard constantTimeEquals(thumbprint, boundThumbprint) else {
                throw Self.failure(.keyMismatch, "The DPoP proof's key is not the one the access token is bound to (cnf.jkt).")
            }
        }
        if let nonces {
            guard let nonce = claims["nonce"]?.stringValue, nonces.accepts(nonce) else {
                throw Self.failure(.nonceRequired, "The DPoP proof needs the server's current nonce.", dpopError: "use_dpop_nonce")
            }
        }
        return Checked(thumbprint: thumbprint, jti: jti, iat: iat)
    }

    /// The proof key of a header that passes the header's checks (`typ`, an allowed `alg`, a public
    /// `jwk` usable for it with no private member), and its thumbprint.
    func checkedKey(_ header: [String: JSONValue]) throws -> (ProofKey, String) {
        guard header["typ"]?.stringValue == "dpop+jwt" else { throw Self.failure(.wrongType, "The DPoP proof's typ is not dpop+jwt.") }
        guard let alg = header["alg"]?.stringValue, allowedAlgorithms.contains(alg) else {
            throw Self.failure(.algorithmNotAllowed, "The DPoP proof's algorithm is not accepted here.")
        }
        guard let jwk = header["jwk"]?.objectValue else { throw Self.failure(.invalidKey, "The DPoP proof carries no public key (jwk).") }
        for member in ["d", "p", "q", "dp", "dq", "qi", "k", "oth"] where jwk[member] != nil {
            throw Self.failure(.privateKey, "The DPoP proof's jwk holds a private key.")
        }
        guard let key = ProofKey(jwk: jwk, algorithm: alg), let thumbprint = try? JWKThumbprint.sha256(jwk) else {
            throw Self.failure(.invalidKey, "The DPoP proof's jwk is not a usable public key for its algorithm.")
        }
        return (key, thumbprint)
    }

    /// What names a proof in the replay cache: the SHA-256 of the key's thumbprint and the `jti`
    /// (fixed size, whatever a client sends); base64url for a cache behind the protocol.
    static func replayDigest(thumbprint: String, jti: String) -> SHA256Digest {
        var hasher = SHA256()
        var thumbprint = thumbprint, jti = jti
        thumbprint.withUTF8 { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
        withUnsafeBytes(of: UInt8(ascii: ".")) { hasher.update(bufferPointer: $0) }
        jti.withUTF8 { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
        return hasher.finalize()
    }

    static func missing(_ claim: String) -> AuthError {
        failure(.missingClaim, "The DPoP proof lacks its \(claim) claim.", extra: ["claim": claim])
    }

    static func failure(_ failure: Failure, _ message: String, dpopError: String = "invalid_dpop_proof",
                        extra: [String: String] = [:]) -> AuthError {
        AuthError(.invalidToken, message: message,
                  details: extra.merging(["reason": failure.rawValue, "dpopError": dpopError]) { _, new in new })
    }


    /// The keys of the proof headers that passed the header's checks, by the header's base64url
    /// text: parsing the header, a P-256 point and hashing its JWK cost as much as the rest of a
    /// proof's checks but the signature. Bounded: emptied when it holds 4,096 headers (a header is at
    /// most the proof's 8 KiB).
    final class ProofKeyCache: Sendable {
        private let entries = Mutex<[String: (ProofKey, String)]>([:])

        func header(_ encoded: String) -> (ProofKey, String)? { entries.withLock { $0[encoded] } }

        func remember(header encoded: String, key: ProofKey, thumbprint: String) {
            entries.withLock { entries in
                if entries.count >= 4_096 { entries.removeAll(keepingCapacity: true) }
                entries[encoded] = (key, thumbprint)
            }
        }
    }

    /// The public key of a proof, for its one algorithm.
    struct ProofKey: Sendable {
        enum Material: Sendable {
            case p256(P256.Signing.PublicKey)
            case rsa(_RSA.Signing.PublicKey, pss: Bool)
        }

        let material: Material

        init?(jwk: [String: JSONValue], algorithm: String) {
            switch (algorithm, jwk["kty"]?.stringValue) {
            case ("ES256", "EC"):
                guard jwk["crv"]?.stringValue == "P-256", let x = jwk["x"]?.stringValue, let y = jwk["y"]?.stringValue,
                      let xBytes = Base64URL.decode(x), xBytes.count == 32, let yBytes = Base64URL.decode(y), yBytes.count == 32,
                      let key = try? P256.Signing.PublicKey(x963Representation: [0x04] + xBytes + yBytes) else { return nil }
                material = .p256(key)
            case ("RS256", "RSA"), ("PS256", "RSA"):
                guard let n = jwk["n"]?.stringValue, let e = jwk["e"]?.stringValue, n.utf8.count <= 1_400, e.utf8.count <= 16,
                      let modulus = Base64URL.decode(n), let exponent = Base64URL.decode(e),
                      let key = try? _RSA.Signing.PublicKey(n: modulus, e: exponent), key.keySizeInBits >= 2048 else { return nil }
                material = .rsa(key, pss: algorithm == "PS256")
            default:
                return nil
            }
        }

        /// Whether the compact JWS in `buffer`, whose second dot is at `secondDot`, carries a valid
        /// signature by this key.
        func verifies(_ buffer: UnsafeBufferPointer<UInt8>, secondDot: Int) -> Bool {
            guard let signature = Base64URL.decodeStrictURLSafe(buffer: UnsafeBufferPointer(rebasing: buffer[(secondDot + 1)...])) else {
                return false
            }
            let digest = SHA256.hash(data: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: buffer[..<secondDot])))
            switch material {
            case .p256(let key):
                guard signature.count == 64, let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
                return key.isValidSignature(ecdsa, for: digest)
            case .rsa(let key, let pss):
                return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: digest,
                                            padding: pss ? .PSS : .insecurePKCS1v1_5)
            }
        }
    }
}
