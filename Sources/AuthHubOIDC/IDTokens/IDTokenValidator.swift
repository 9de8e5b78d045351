import AuthHub
import Foundation

/// What an ID token must satisfy besides its signature.
public struct IDTokenExpectations: Sendable {
    /// The exact expected `iss` (for Auth0 `https://{domain}/`, with the trailing slash).
    public var issuer: String
    /// The client ID: must be in `aud`, and be `azp` when there are several audiences.
    public var clientId: String
    /// Clock skew tolerated on `exp` and `auth_time`, in seconds (default 60).
    public var leeway: Int
    /// The nonce sent with the authorization request; nil skips the nonce check.
    public var nonce: Secret<String>?
    /// The `max_age` sent, if any; enables the `auth_time` check.
    public var maxAge: Int?
    /// The organization expected: an `org_…` id checked against `org_id`, otherwise a name checked
    /// against `org_name` (lowercased).
    public var organization: String?

    /// Creates expectations.
    public init(issuer: String, clientId: String, leeway: Int = 60, nonce: Secret<String>? = nil, maxAge: Int? = nil,
                organization: String? = nil) {
        self.issuer = issuer
        self.clientId = clientId
        self.leeway = leeway
        self.nonce = nonce
        self.maxAge = maxAge
        self.organization = organization
    }

    /// The expectations of a transaction's callback: its nonce, `max_age` and organization.
    public init(issuer: String, transaction: OIDCAuthorizationTransaction, leeway: Int = 60) {
        self.init(issuer: issuer, clientId: transaction.clientId, leeway: leeway, nonce: transaction.nonce,
                  maxAge: transaction.maxAge, organization: transaction.organization)
    }
}

/// The claims of a validated ID token.
public struct IDTokenClaims: Sendable {
    /// Every claim of the payload.
    public let claims: [String: JSONValue]
    /// `iss`.
    public let issuer: String
    /// `sub`.
    public let subject: String
    /// `aud` as a list.
    public let audience: [String]
    /// `exp`.
    public let expiresAt: Date
    /// `iat`.
    public let issuedAt: Date
    /// `auth_time`, when present.
    public let authTime: Date?

    /// A string claim, e.g. `email`.
    public subscript(claim: String) -> String? { claims[claim]?.stringValue }
}

/// Validates OpenID Connect ID tokens: RS256 or ES256 signatures with keys from a ``JWKSCache``
/// (swift-crypto keys built once from the JWKS, checked synchronously), then the claims, in the order of <doc:OIDCFlows>: “ID-token validation”; the first failure
/// wins and is thrown as ``IDTokenValidationFailure/error(details:underlying:)``.
///
/// Only RS256 (RSA PKCS#1 v1.5, SHA-256) and ES256 (ECDSA P-256, SHA-256, the JWS raw `r || s`
/// signature of 64 bytes; a DER signature is refused) are accepted: `none`, HS256 (including HS256
/// "signed" with a public key), ES384 and every other algorithm fail with
/// ``IDTokenValidationFailure/invalidAlgorithm`` before any key is looked at.
///
/// Each key verifies only for its own algorithm (RFC 8725, section 3.1): an RSA key only RS256, a P-256 key
/// only ES256. When the header's `alg` differs from the algorithm of the key its `kid` names (or,
/// without `kid`, of the JWKS's single key) — ES256 naming an RSA key, RS256 naming an EC key — the
/// token fails with ``IDTokenValidationFailure/invalidAlgorithm`` (details `actual`: the header's
/// `alg`, `expected`: the key's, `kid`) and its signature is not checked. `invalidAlgorithm` rather
/// than `invalidSignature`, because the header contradicts the key set whatever the signature bytes
/// are, and a provider that changed key types then shows up as such in logs.
public struct IDTokenValidator: Sendable {
    /// The signing keys.
    public let keys: JWKSCache
    /// The clock `exp` and `auth_time` are compared with.
    public let clock: any AuthClock

    /// The accepted `alg` values, as reported in an ``IDTokenValidationFailure/invalidAlgorithm`` error's `expected`.
    static let acceptedAlgorithms = JWKSCache.Algorithm.allCases.map(\.rawValue).joined(separator: " or ")

    /// Creates a validator.
    public init(keys: JWKSCache, clock: any AuthClock) {
        self.keys = keys
        self.clock = clock
    }

    /// Validates a token.
    /// - Parameters:
    ///   - token: the compact JWT.
    ///   - expectations: issuer, client ID, leeway, nonce, `max_age`, organization.
    /// - Returns: the claims.
    /// - Throws: an ``AuthErrorCode/invalidToken`` error whose ``AuthError/idTokenFailure`` names the
    ///   failed check.
    /// The header and payload objects of a compact JWS, NOT verified; nil when the token is not
    /// three base64url parts holding JSON objects. For reading claims that describe (a profile),
    /// never for deciding trust: ``validate(_:expecting:)`` does that.
    /// Checks a compact JWS's signature with the issuer's keys: RS256 or ES256 only, the header's
    /// `alg` bound to the algorithm of the key its `kid` names (no `kid`: only a JWKS with a single
    /// usable key, OpenID Connect Core, section 10.1). Shared by ID-token and access-token checks.
    /// - Throws: the ``IDTokenValidationFailure`` error `invalidAlgorithm`, `missingPublicKey` or
    ///   `invalidSignature`.
    ///
    /// With the key in the cache (every token after the first, until the provider rotates its keys)
    /// this never suspends: the key is read without entering an actor and the signature is checked
    /// synchronously; only a missing key awaits the cache's fetch.
    static func verifySignature(_ raw: String, header: [String: JSONValue], keys: JWKSCache) async throws {
        let (algorithm, kid) = try signatureAlgorithm(header)
        let key: JWKSCache.VerificationKey
        if let cached = keys.cachedKey(kid: kid) {
            key = cached
        } else {
            key = kid.isEmpty ? try await keys.soleKey() : try await keys.keys(containing: kid)
        }
        try checkSignature(raw, algorithm: algorithm, kid: kid, key: key)
    }

    /// The header's `alg`, when it is one of the accepted algorithms, and its `kid` ("" when absent).
    /// - Throws: the ``IDTokenValidationFailure/invalidAlgorithm`` error for any other `alg`.
    static func signatureAlgorithm(_ header: [String: JSONValue]) throws -> (JWKSCache.Algorithm, kid: String) {
        let alg = header["alg"]?.stringValue ?? ""
        guard let algorithm = JWKSCache.Algorithm(rawValue: alg) else {
            throw IDTokenValidationFailure.invalidAlgorithm.error(details: ["actual": alg, "expected": Self.acceptedAlgorithms])
        }
        return (algorithm, header["kid"]?.stringValue ?? "")
    }

    /// Checks the signature of the compact JWS `raw` with `key`, after checking that the header's
    /// `algorithm` is the key's (a key verifies only for its own algorithm, whatever the header says).
    /// - Throws: the ``IDTokenValidationFailure`` error `invalidAlgorithm` or `invalidSignature`.
    static func checkSignature(_ raw: String, algorithm: JWKSCache.Algorithm, kid: String, key: JWKSCache.VerificationKey) throws {
        guard key.algorithm == algorithm else {
            throw IDTokenValidationFailure.invalidAlgorithm.error(details: ["actual": algorithm.rawValue, "expected": key.algorithm.rawValue,
                                                                            "kid": kid])
        }
        func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            // Exactly two dots (the caller decoded the header and payload from the same split); the
            // signing input is everything before the second, the signature everything after it.
            guard let (_, second) = JWTParts.dots(bytes) else { return false }
            let encoded = UnsafeBufferPointer(rebasing: bytes[(second + 1)...])
            // base64url without padding, as the JWS compact serialization writes it (RFC 7515, section 2).
            guard let signature = Base64URL.decodeStrictURLSafe(buffer: encoded)
                    ?? (encoded.allSatisfy(Self.isBase64URLCharacter) ? Base64URL.decode(buffer: encoded) : nil) else { return false }
            return key.isValidSignature(signature, for: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[..<second])))
        }
        let valid = raw.utf8.withContiguousStorageIfAvailable(isValid) ?? Array(raw.utf8).withUnsafeBufferPointer(isValid)
        guard valid else { throw IDTokenValidationFailure.invalidSignature.error(details: ["kid": kid]) }
    }

    /// A character of the base64url alphabet (RFC 4648, section 5), padding excluded.
    private static func isBase64URLCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"): true
        default: false
        }
    }

    public static func decode(_ token: Secret<String>) -> (header: [String: JSONValue], payload: [String: JSONValue])? {
        JWTParts.decode(token)
    }

    public func validate(_ token: Secret<String>, expecting expectations: IDTokenExpectations) async throws -> IDTokenClaims {
        let raw = token.revealed()
        // 1. Decode.
        guard !raw.isEmpty else { throw IDTokenValidationFailure.missingIDToken.error() }
        guard let (header, payload) = Self.decode(token) else { throw IDTokenValidationFailure.cannotDecode.error() }

        // 2. Signature.
        try await Self.verifySignature(raw, header: header, keys: keys)

        // 3. Claims.
        let now = clock.now
        let leeway = TimeInterval(expectations.leeway)
        guard let iss = payload["iss"]?.stringValue else { throw IDTokenValidationFailure.missingIss.error() }
        guard iss == expectations.issuer else {
            throw IDTokenValidationFailure.mismatchedIss.error(details: ["actual": iss, "expected": expectations.issuer])
        }
        guard let sub = payload["sub"]?.stringValue, !sub.isEmpty else { throw IDTokenValidationFailure.missingSub.error() }
        let audience: [String]
        let audienceIsArray: Bool
        switch payload["aud"] {
        case .string(let value) where !value.isEmpty:
            audience = [value]
            audienceIsArray = false
        case .array(let values):
            audience = values.compactMap(\.stringValue)
            audienceIsArray = true
        default:
            audience = []
            audienceIsArray = false
        }
        guard !audience.isEmpty else { throw IDTokenValidationFailure.missingAud.error() }
        guard audience.contains(expectations.clientId) else {
            let failure: IDTokenValidationFailure = audienceIsArray ? .mismatchedAudArray : .mismatchedAudString
            throw failure.error(details: ["expected": expectations.clientId])
        }
        guard let exp = payload["exp"]?.doubleValue else { throw IDTokenValidationFailure.missingExp.error() }
        guard SessionTimeLimits.isValidDate(exp) else { throw IDTokenValidationFailure.invalidTimeClaim.error(details: ["claim": "exp"]) }
        guard exp + leeway > now.timeIntervalSince1970 else {
            throw IDTokenValidationFailure.pastExp.error(details: ["exp": String(Int(exp)), "now": String(Int(now.timeIntervalSince1970))])
        }
        guard let iat = payload["iat"]?.doubleValue else { throw IDTokenValidationFailure.missingIat.error() }
        guard SessionTimeLimits.isValidDate(iat) else { throw IDTokenValidationFailure.invalidTimeClaim.error(details: ["claim": "iat"]) }
        if let expectedNonce = expectations.nonce {
            guard let nonce = payload["nonce"]?.stringValue else { throw IDTokenValidationFailure.missingNonce.error() }
            guard Secret(nonce) == expectedNonce else { throw IDTokenValidationFailure.mismatchedNonce.error() }
        }
        if audience.count > 1 {
            guard let azp = payload["azp"]?.stringValue else { throw IDTokenValidationFailure.missingAzp.error() }
            guard azp == expectations.clientId else {
                throw IDTokenValidationFailure.mismatchedAzp.error(details: ["actual": azp, "expected": expectations.clientId])
            }
        }
        let authTime = payload["auth_time"]?.doubleValue
        if let authTime, !SessionTimeLimits.isValidDate(authTime) {
            throw IDTokenValidationFailure.invalidTimeClaim.error(details: ["claim": "auth_time"])
        }
        if let maxAge = expectations.maxAge {
            guard let authTime else { throw IDTokenValidationFailure.missingAuthTime.error() }
            guard now.timeIntervalSince1970 <= authTime + TimeInterval(maxAge) + leeway else {
                throw IDTokenValidationFailure.pastLastAuth.error(details: ["auth_time": String(Int(authTime)), "max_age": String(maxAge)])
            }
        }
        if let organization = expectations.organization {
            if organization.hasPrefix("org_") {
                guard let orgID = payload["org_id"]?.stringValue else { throw IDTokenValidationFailure.missingOrgId.error() }
                guard orgID == organization else {
                    throw IDTokenValidationFailure.mismatchedOrgId.error(details: ["actual": orgID, "expected": organization])
                }
            } else {
                guard let orgName = payload["org_name"]?.stringValue else { throw IDTokenValidationFailure.missingOrgName.error() }
                guard orgName == organization.lowercased() else {
                    throw IDTokenValidationFailure.mismatchedOrgName.error(details: ["actual": orgName, "expected": organization.lowercased()])
                }
            }
        }
        return IDTokenClaims(claims: payload, issuer: iss, subject: sub, audience: audience,
                             expiresAt: Date(timeIntervalSince1970: exp), issuedAt: Date(timeIntervalSince1970: iat),
                             authTime: authTime.map { Date(timeIntervalSince1970: $0) })
    }
}
