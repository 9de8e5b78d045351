import AuthHub
import Foundation

extension OIDCProvider: BearerTokenProvider {
    /// The provider's JWT access tokens for `audience`: issuer and keys from discovery
    /// (``AccessTokenVerifier/discovering(_:audience:)``).
    public func bearerTokenVerifier(audience: String) async throws -> any BearerTokenVerifier {
        try await AccessTokenVerifier.discovering(self, audience: audience)
    }
}

/// Verifies JWT access tokens (RFC 9068 profile) that an API receives as `Authorization: Bearer`:
/// the signature with the issuer's keys (RS256 or ES256, `alg` bound to the key, exactly as for ID
/// tokens), then `iss`, `aud` (the API's identifier), `exp` and `nbf` (with leeway), `iat` in range,
/// and the scopes the route needs.
///
/// The keys come from a ``JWKSCache``: fetched once, refetched for an unknown `kid` at most once a
/// minute (a token naming a made-up `kid` cannot make the API hammer the provider).
public struct AccessTokenVerifier: BearerTokenVerifier {
    /// The `iss` the tokens must carry.
    public let issuer: String
    /// The API identifier that must be among the token's `aud`.
    public let audience: String
    public let keys: JWKSCache
    public let clock: any AuthClock
    /// Seconds of clock skew allowed on `exp` and `nbf` (0…300).
    public let leeway: Int

    /// A verified token's claims.
    public struct Claims: Sendable {
        public let claims: [String: JSONValue]
        public let subject: String?
        public let expiresAt: Date
        /// The granted scopes: the `scope` claim (space-separated), else `scp` or `permissions` (arrays).
        public let scopes: Set<String>
        /// The `nbf` claim, when there is one.
        package var notBefore: Double?
        /// The token's `kid` ("" when absent) and the generation of the kept JWKS whose key verified
        /// it (nil when no JWKS is kept after the check): what ``recheck(_:requiredScopes:)`` needs.
        package var keyID = ""
        package var keyGeneration: UInt64?

        /// The claims as a ``VerifiedBearerToken``.
        package var bearer: VerifiedBearerToken {
            VerifiedBearerToken(subject: subject, claims: claims, expiresAt: expiresAt, scopes: scopes)
        }
    }

    public init(issuer: String, audience: String, keys: JWKSCache, clock: any AuthClock, leeway: Int = 60) {
        self.issuer = issuer
        self.audience = audience
        self.keys = keys
        self.clock = clock
        self.leeway = min(max(leeway, 0), 300)
    }

    /// The verifier for an OpenID provider's access tokens: its issuer and `jwks_uri` from discovery.
    public static func discovering(_ provider: OIDCProvider, audience: String) async throws -> AccessTokenVerifier {
        let metadata = try await provider.metadata()
        let api = APIClient(provider: provider.id, baseURL: metadata.jwksURI, context: provider.context, errorMapper: OAuthErrorMapper())
        return AccessTokenVerifier(issuer: metadata.issuer, audience: audience,
                                   keys: JWKSCache(jwksURI: metadata.jwksURI.absoluteString, api: api), clock: provider.context.clock)
    }

    /// Verifies a bearer token and, when `requiredScopes` is not empty, that it grants all of them.
    /// - Throws: ``AuthErrorCode/invalidToken`` (`details["reason"]` says which check failed) for a
    ///   token that cannot be trusted or is not for this API; ``AuthErrorCode/accessDenied`` with
    ///   `reason` `insufficientScope` and `scope` for a valid token lacking a scope.
    public func verify(_ token: Secret<String>, requiredScopes: Set<String> = []) async throws -> Claims {
        guard Self.hasAcceptableSize(token.revealed()), let (header, payload) = JWTParts.decode(token) else {
            throw Self.invalid("The access token could not be decoded.", reason: "cannotDecode")
        }
        return try await verify(token, header: header, payload: payload, requiredScopes: requiredScopes)
    }

    /// ``verify(_:requiredScopes:)`` of a token whose header and payload the caller has already
    /// decoded from it with `JWTParts.decode` (the bearer middleware reads `iss` to pick the verifier):
    /// every check but the decoding itself, which is not repeated. With the issuer's keys cached it
    /// never suspends.
    package func verify(_ token: Secret<String>, header: [String: JSONValue], payload: [String: JSONValue],
                        requiredScopes: Set<String>) async throws -> Claims {
        let raw = token.revealed()
        guard Self.hasAcceptableSize(raw) else { throw Self.invalid("The access token could not be decoded.", reason: "cannotDecode") }
        let (kid, kept) = try await Self.namingAccessToken {
            let (algorithm, kid) = try IDTokenValidator.signatureAlgorithm(header)
            var kept = keys.cachedKeyWithGeneration(kid: kid)
            if kept == nil {
                // Fetches the keys (and checks the signature with what it fetched); the check below is
                // then made again with the kept key, whose generation is what the claims record.
                try await IDTokenValidator.verifySignature(raw, header: header, keys: keys)
                kept = keys.cachedKeyWithGeneration(kid: kid)
            }
            if let (key, _) = kept { try IDTokenValidator.checkSignature(raw, algorithm: algorithm, kid: kid, key: key) }
            return (kid, kept)
        }
        let generation = kept?.generation
        guard payload["iss"]?.stringValue == issuer else { throw Self.invalid("The access token was issued by another issuer.", reason: "mismatchedIss") }
        let audiences: [String] = switch payload["aud"] {
        case .string(let value): [value]
        case .array(let values): values.compactMap(\.stringValue)
        default: []
        }
        guard audiences.contains(audience) else { throw Self.invalid("The access token is not for this API (aud).", reason: "mismatchedAud") }
        let now = clock.now.timeIntervalSince1970, skew = TimeInterval(leeway)
        guard let exp = payload["exp"]?.doubleValue, SessionTimeLimits.isValidDate(exp) else {
            throw Self.invalid("The access token has no valid expiry (exp).", reason: "missingExp")
        }
        guard exp + skew > now else { throw Self.invalid("The access token has expired.", reason: "pastExp") }
        var notBefore: Double?
        if let nbf = payload["nbf"] {
            guard let value = nbf.doubleValue, SessionTimeLimits.isValidDate(value) else {
                throw Self.invalid("The access token has an invalid not-before time (nbf).", reason: "invalidTimeClaim")
            }
            guard value - skew <= now else { throw Self.invalid("The access token is not valid yet (nbf).", reason: "futureNbf") }
            notBefore = value
        }
        if let iat = payload["iat"], !(iat.doubleValue.map(SessionTimeLimits.isValidDate) ?? false) {
            throw Self.invalid("The access token has an invalid issue time (iat).", reason: "invalidTimeClaim")
        }
        let scopes = Self.scopes(payload)
        try Self.checkScopes(scopes, requiredScopes: requiredScopes)
        return Claims(claims: payload, subject: payload["sub"]?.stringValue, expiresAt: Date(timeIntervalSince1970: exp), scopes: scopes,
                      notBefore: notBefore, keyID: kid, keyGeneration: generation)
    }

    /// Whether a token this verifier accepted earlier (its `claims`) is still to be accepted now,
    /// without its signature checked again: nil when that cannot be told this way (the kept JWKS
    /// changed since or is no longer fresh), and
    /// then the token must be verified again. Checks `exp` and `nbf` against the clock with the
    /// leeway, and the scopes.
    /// - Throws: as ``verify(_:requiredScopes:)`` for a token expired since, or lacking a scope.
    package func recheck(_ claims: Claims, requiredScopes: Set<String>) throws -> Claims? {
        guard let generation = claims.keyGeneration, keys.cachedGeneration(kid: claims.keyID) == generation else { return nil }
        let now = clock.now.timeIntervalSince1970, skew = TimeInterval(leeway)
        guard claims.expiresAt.timeIntervalSince1970 + skew > now else {
            throw Self.invalid("The access token has expired.", reason: "pastExp")
        }
        if let notBefore = claims.notBefore, notBefore - skew > now {
            throw Self.invalid("The access token is not valid yet (nbf).", reason: "futureNbf")
        }
        try Self.checkScopes(claims.scopes, requiredScopes: requiredScopes)
        return claims
    }

    private static func checkScopes(_ scopes: Set<String>, requiredScopes: Set<String>) throws {
        guard !requiredScopes.allSatisfy(scopes.contains) else { return }
        let missing = requiredScopes.subtracting(scopes)
        throw AuthError(.accessDenied, message: "The access token lacks a required scope.",
                        details: ["reason": "insufficientScope", "scope": missing.sorted().joined(separator: " ")])
    }

    /// ``verify(_:requiredScopes:)`` as a ``BearerTokenVerifier``.
    public func verifyBearer(_ token: Secret<String>, requiredScopes: Set<String>) async throws -> VerifiedBearerToken {
        try await verify(token, requiredScopes: requiredScopes).bearer
    }

    static func scopes(_ payload: [String: JSONValue]) -> Set<String> {
        if let scope = payload["scope"]?.stringValue {
            // Split on the byte (the `Character` split runs grapheme breaking over the claim).
            return Set(scope.utf8.split(separator: UInt8(ascii: " ")).compactMap { String($0) })
        }
        for name in ["scp", "permissions"] {
            if case .array(let values) = payload[name] { return Set(values.compactMap(\.stringValue)) }
        }
        return []
    }

    /// Not empty and at most 16 KiB: a longer header is refused before it is decoded.
    package static func hasAcceptableSize(_ raw: String) -> Bool { !raw.isEmpty && raw.utf8.count <= 16_384 }

    /// Runs the signature checks shared with ID-token validation, whose failures are worded for ID
    /// tokens: a failure (``AuthError/idTokenFailure``) is rethrown with its message naming the
    /// access token instead (same code, reason and details), since the bearer middleware shows it.
    static func namingAccessToken<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as AuthError {
            guard let failure = error.idTokenFailure else { throw error }
            throw error.with(message: failure.message(naming: "access token"))
        }
    }

    static func invalid(_ message: String, reason: String) -> AuthError {
        AuthError(.invalidToken, message: message, details: ["reason": reason])
    }
}
