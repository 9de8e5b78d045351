import AuthHub
import AuthHubOIDC
import Crypto
import Foundation
import HTTPTypes

/// Authenticates API requests by their `Authorization: Bearer` JWT (RFC 6750), choosing the
/// verifier by the token's `iss` among the configured ones: the framework-neutral logic of the
/// adapters' bearer middlewares (`AuthHubBearerMiddleware` in Hummingbird, `AuthHubBearerAuthenticator`
/// in Vapor).
///
/// - No `Authorization` header: ``Outcome/noCredentials`` — the request goes on without an identity
///   (a guard then answers 401). A browser-session identity that the session middleware found is
///   dropped (``sessionDecision(for:method:csrfToken:)``): a cookie is ambient authority (a same-site
///   page can make the browser send it), so an API behind a bearer middleware accepts only the
///   `Authorization` header — unless ``acceptsSessionCookie`` is set, and then a request that
///   changes state (any method but GET, HEAD, OPTIONS) must carry the session's CSRF token in
///   `X-CSRF-Token` (``AuthHubIdentity/csrfToken``), else 403.
/// - A header that is not `Bearer <token>`: 401 with `WWW-Authenticate: Bearer error="invalid_request"`.
/// - An issuer no verifier knows, a bad signature, another audience, an expired token, an `alg`
///   that does not match the key: 401 with `error="invalid_token"` and a description.
/// - A valid token lacking ``requiredScopes``: 403 with `error="insufficient_scope"` and `scope`.
/// - The issuer's keys cannot be fetched: 503 (the token may well be valid).
///
/// The `iss` is read from the token before its signature is checked only to pick the verifier; the
/// verifier then checks the signature with that issuer's keys and the `iss` again.
///
/// Access tokens verified by an ``AccessTokenVerifier`` (OpenID Connect and Auth0) are kept, by
/// their SHA-256, until they expire or ``defaultVerifiedTokenCapacity`` newer ones push them out: the
/// same token sent again skips the signature check and the decoding, but its `exp`, `nbf` and scopes
/// are checked again, and so is the issuer's JWKS (a token whose key was fetched anew is verified
/// again, so a withdrawn key stops its tokens at the same moment as without the cache).
public struct BearerTokenAuthenticator: Sendable {
    /// What a request's `Authorization` header comes to.
    public enum Outcome: Sendable {
        /// No `Authorization` header.
        case noCredentials
        /// A valid token: the identity to put on the request.
        case authenticated(AuthHubIdentity)
        /// Answer this response (401/403 with the RFC 6750 challenge, or 503).
        case refused(WebResponse)
    }

    /// What becomes of a browser-session identity on a request without `Authorization`.
    public enum SessionDecision: Sendable, Equatable {
        /// Keep it (``acceptsSessionCookie``, and a safe method or the right CSRF token).
        case keep
        /// Remove it: the request goes on without an identity.
        case drop
        /// Answer this response (403: a state change without the CSRF token).
        case refuse(WebResponse)
    }

    /// The verifier of each trusted issuer; for AuthHub's own ``AccessTokenVerifier``, also the
    /// concrete verifier, which takes the header and payload this middleware already decoded.
    let verifiers: [String: TrustedIssuer]
    /// Scopes every request through this middleware needs.
    public let requiredScopes: Set<String>
    /// The `realm` of the challenge.
    public let realm: String
    /// The access tokens verified here, kept until they expire (nil when turned off).
    package let verifiedTokens: VerifiedTokenCache?
    /// Whether a browser session (``AuthHubWeb/resolveSession(_:)``) is accepted too (off by default).
    public let acceptsSessionCookie: Bool
    /// The checker of DPoP proofs (`Authorization: DPoP`); nil refuses the DPoP scheme. DPoP-bound
    /// tokens sent as `Bearer` are refused either way.
    public let dpop: DPoPProofVerifier?
    /// The origin (scheme, host, port) clients address this API at, when it differs from what the
    /// server sees (behind a proxy): DPoP proofs' `htu` is checked against it.
    public let externalOrigin: URL?

    /// How many verified access tokens a middleware keeps by default (see ``init(verifiers:requiredScopes:realm:verifiedTokenCapacity:acceptsSessionCookie:)``).
    public static var defaultVerifiedTokenCapacity: Int { 4_096 }

    /// - Parameters:
    ///   - verifiers: the verifier of each provider's tokens, by provider id.
    ///   - requiredScopes: scopes every token must grant.
    ///   - verifiedTokenCapacity: how many verified access tokens (``AccessTokenVerifier``'s) to keep,
    ///     by their SHA-256, so that the same token sent again skips the signature check; each hit
    ///     still checks `exp`, `nbf`, the scopes and that the issuer's keys are the ones that verified
    ///     it. 0 turns this off. Clamped to 0…1,000,000.
    ///   - acceptsSessionCookie: accept a browser session (put on the request by the session middleware before
    ///     this middleware) as well as bearer tokens; state-changing requests then need the session's
    ///     CSRF token in `X-CSRF-Token`. Off by default: a cookie is sent by the browser on its own.
    ///   - dpop: the DPoP proof checker (in-memory replay cache, no nonces, ES256 by default); nil
    ///     accepts `Bearer` only.
    ///   - externalOrigin: the origin clients address the API at, when a proxy stands between (DPoP `htu`).
    public init(verifiers: [String: any BearerTokenVerifier], requiredScopes: Set<String> = [], realm: String = "api",
                verifiedTokenCapacity: Int = Self.defaultVerifiedTokenCapacity, acceptsSessionCookie: Bool = false,
                dpop: DPoPProofVerifier? = DPoPProofVerifier(), externalOrigin: URL? = nil) {
        self.acceptsSessionCookie = acceptsSessionCookie
        self.dpop = dpop
        self.externalOrigin = externalOrigin
        var byIssuer: [String: TrustedIssuer] = [:]
        for (provider, verifier) in verifiers.sorted(by: { $0.key < $1.key }) {
            byIssuer[verifier.issuer] = TrustedIssuer(provider: provider, verifier: verifier)
        }
        self.verifiers = byIssuer
        self.requiredScopes = requiredScopes
        self.realm = realm.filter { $0 != "\"" && $0 != "\\" }
        let capacity = min(max(verifiedTokenCapacity, 0), 1_000_000)
        verifiedTokens = capacity > 0 && byIssuer.values.contains { $0.accessToken != nil } ? VerifiedTokenCache(capacity: capacity) : nil
    }

    /// An authenticator for the API `audience` trusting every provider of the hub whose tokens an API can
    /// verify (`BearerTokenProvider`: OpenID Connect and Auth0 access tokens for the audience,
    /// Firebase ID tokens of the project).
    /// - Throws: discovery errors of those providers; ``AuthErrorCode/invalidConfiguration`` when
    ///   none of the hub's providers issues verifiable access tokens.
    public init(hub: AuthHub, audience: String, requiredScopes: Set<String> = [], realm: String = "api",
                verifiedTokenCapacity: Int = Self.defaultVerifiedTokenCapacity, acceptsSessionCookie: Bool = false,
                dpop: DPoPProofVerifier? = nil, externalOrigin: URL? = nil) async throws {
        var verifiers: [String: any BearerTokenVerifier] = [:]
        for id in hub.providerIDs {
            guard let provider = try hub.provider(id) as? any BearerTokenProvider else { continue }
            verifiers[id] = try await provider.bearerTokenVerifier(audience: audience)
        }
        guard !verifiers.isEmpty else {
            throw AuthError(.invalidConfiguration, message: "No provider of this environment issues JWT access tokens to verify.")
        }
        self.init(verifiers: verifiers, requiredScopes: requiredScopes, realm: realm, verifiedTokenCapacity: verifiedTokenCapacity,
                  acceptsSessionCookie: acceptsSessionCookie, dpop: dpop ?? DPoPProofVerifier(clock: hub.context.clock),
                  externalOrigin: externalOrigin)
    }

    /// The outcome of a request's `Authorization` header value (nil: none), for a request whose
    /// DPoP proof cannot be checked here (no `DPoP` header, method or URI given): a `Bearer` token as
    /// below, and `Authorization: DPoP` refused. Adapters call
    /// ``authenticate(authorization:method:dpopProofs:target:)``.
    public func authenticate(authorization header: String?) async -> Outcome {
        await authenticate(authorization: header, method: .get, dpopProofs: { [] }, target: { (nil, nil, "") })
    }

    /// The outcome of a request's `Authorization` header and `DPoP` proofs.
    ///
    /// - `Authorization: Bearer <token>`: the token is verified; a DPoP-bound one (`cnf.jkt`) is
    ///   refused (RFC 9449, section 7.2: its proof of possession would be skipped).
    /// - `Authorization: DPoP <token>` (with ``dpop`` set): the token is verified, it must be bound
    ///   (`cnf.jkt`), and the one `DPoP` header must be a valid proof for this method and URI, this
    ///   token (`ath`) and that key (``DPoPProofVerifier``). Refusals answer 401 with
    ///   `WWW-Authenticate: DPoP error="invalid_dpop_proof"` (or `invalid_token`, or
    ///   `use_dpop_nonce` with a fresh `DPoP-Nonce` header) and the accepted `algs`.
    /// - Parameters:
    ///   - header: the `Authorization` header's value; nil when absent.
    ///   - method: the request's method (`htm`).
    ///   - dpopProofs: every `DPoP` header's value (asked for only with the DPoP scheme).
    ///   - target: the request's scheme (nil: `http`), authority (`Host`) and path, from which the URI
    ///     the client addressed is made (``requestTarget(scheme:authority:path:)``; asked for only with
    ///     the DPoP scheme).
    public func authenticate(authorization header: String?, method: HTTPRequest.Method, dpopProofs: () -> [String],
                             target: () -> (scheme: String?, authority: String?, path: String)) async -> Outcome {
        guard let header else { return .noCredentials }
        let scheme: Scheme
        if let credentials = Self.bearerCredentials(header) {
            scheme = .bearer(credentials)
        } else if let credentials = Self.dpopCredentials(header) {
            guard dpop != nil else {
                return .refused(challenge(.unauthorized, error: "invalid_request", description: "Send Authorization: Bearer <token>."))
            }
            scheme = .dpop(credentials)
        } else {
            return .refused(challenge(.unauthorized, error: "invalid_request",
                                      description: dpop == nil ? "Send Authorization: Bearer <token>." : "Send Authorization: Bearer or DPoP <token>."))
        }
        let token = Secret(scheme.credentials)
        // A DPoP request's token is hashed once: the verified-token cache's key and the proof's `ath`.
        let digest = scheme.isDPoP && AccessTokenVerifier.hasAcceptableSize(token.revealed()) ? VerifiedTokenCache.key(token.revealed()) : nil
        let verified: (TrustedIssuer, VerifiedBearerToken)
        do {
            verified = try await verify(token, digest: digest)
        } catch let error as AuthError where error.code == .accessDenied {
            return .refused(challenge(.forbidden, error: "insufficient_scope", description: "The token lacks a required scope.",
                                      scope: error.details["scope"], dpop: scheme.isDPoP))
        } catch let error as AuthError where Self.isTransient(error) {
            return .refused(WebResponse.page(.serviceUnavailable, "The token issuer's keys could not be fetched. Please try again."))
        } catch {
            return .refused(challenge(.unauthorized, error: "invalid_token", description: AuthError.wrap(error).message, dpop: scheme.isDPoP))
        }
        let (issuer, claims) = verified
        let boundThumbprint = claims.claims["cnf"]?["jkt"]?.stringValue
        switch scheme {
        case .bearer:
            if boundThumbprint != nil {
                return .refused(challenge(.unauthorized, error: "invalid_token",
                                          description: "The access token is DPoP-bound: send it as Authorization: DPoP with a proof.", dpop: true))
            }
        case .dpop:
            let (scheme, authority, path) = target()
            let uri = requestTarget(scheme: scheme, authority: authority, path: path)
            if let refusal = await checkProof(dpopProofs(), method: method, target: uri, token: token,
                                              tokenHash: digest.map { Base64URL.encode($0) }, boundThumbprint: boundThumbprint) {
                return .refused(refusal)
            }
        }
        return .authenticated(AuthHubIdentity(provider: issuer.provider, subject: claims.subject, claims: claims.claims, source: .bearer,
                                              accessToken: token, expiresAt: claims.expiresAt, csrfToken: nil))
    }

    /// The scheme of an `Authorization` header and its token.
    private enum Scheme {
        case bearer(String)
        case dpop(String)

        var credentials: String {
            switch self {
            case .bearer(let token), .dpop(let token): token
            }
        }

        var isDPoP: Bool {
            if case .dpop = self { return true }
            return false
        }
    }

    /// The refusal of a DPoP request's proof, or nil when it passes.
    private func checkProof(_ proofs: [String], method: HTTPRequest.Method, target: String?, token: Secret<String>, tokenHash: String?,
                            boundThumbprint: String?) async -> WebResponse? {
        guard let dpop else { return challenge(.unauthorized, error: "invalid_request", description: "DPoP is not accepted here.") }
        guard let boundThumbprint else {
            return challenge(.unauthorized, error: "invalid_token", description: "The access token is not DPoP-bound (no cnf.jkt).", dpop: true)
        }
        guard proofs.count == 1, let proof = proofs.first else {
            return challenge(.unauthorized, error: "invalid_dpop_proof",
                             description: proofs.isEmpty ? "The request carries no DPoP proof." : "The request carries more than one DPoP proof.",
                             dpop: true)
        }
        guard let target else {
            return challenge(.unauthorized, error: "invalid_dpop_proof", description: "The request's URI is unknown here.", dpop: true)
        }
        do {
            _ = try await dpop.verify(proof, method: method.rawValue, target: target, accessToken: token, accessTokenHash: tokenHash,
                                      boundThumbprint: boundThumbprint)
            return nil
        } catch let error as AuthError where error.details["reason"] == InMemoryReplayCache.replayCacheFullReason {
            return WebResponse.page(.serviceUnavailable, error.message)
        } catch let error as AuthError {
            var response = challenge(.unauthorized, error: error.details["dpopError"] ?? "invalid_dpop_proof", description: error.message,
                                     dpop: true)
            if error.details["dpopError"] == "use_dpop_nonce", let nonces = dpop.nonces {
                response.headerFields[Self.dpopNonceField] = nonces.current()
            }
            return response
        } catch {
            return challenge(.unauthorized, error: "invalid_dpop_proof", description: "The DPoP proof could not be checked.", dpop: true)
        }
    }

    static let dpopNonceField = HTTPField.Name("DPoP-Nonce")!
    /// The `DPoP` header field's name.
    public static let dpopField = HTTPField.Name("DPoP")!

    /// The request's URI as its client addressed it, for DPoP's `htu`, normalized
    /// (``DPoPKey/normalizedTarget(scheme:authority:path:)``): ``externalOrigin`` (an app behind a
    /// proxy that terminates TLS or rewrites the host) with the request's path, else
    /// `scheme://authority` of the request itself (`http` when the framework gives no scheme). Nil
    /// without a usable authority or for a path that does not start with `/`.
    public func requestTarget(scheme: String?, authority: String?, path: String) -> String? {
        guard path.hasPrefix("/") else { return nil }
        if let externalOrigin {
            guard let scheme = externalOrigin.scheme, var host = externalOrigin.host else { return nil }
            if host.contains(":"), !host.hasPrefix("[") { host = "[" + host + "]" }
            return DPoPKey.normalizedTarget(scheme: scheme, authority: host + (externalOrigin.port.map { ":\($0)" } ?? ""), path: path)
        }
        guard let authority else { return nil }
        return DPoPKey.normalizedTarget(scheme: scheme ?? "http", authority: authority, path: path)
    }

    /// What becomes of the identity already on a request without `Authorization`: a browser-session
    /// identity is dropped unless ``acceptsSessionCookie``; with it, a state-changing request needs
    /// the session's CSRF token (`csrfToken`: the `X-CSRF-Token` header's value). Any other identity
    /// (or none) is kept.
    public func sessionDecision(for identity: AuthHubIdentity?, method: HTTPRequest.Method, csrfToken given: String?) -> SessionDecision {
        guard let identity, case .session = identity.source else { return .keep }
        guard acceptsSessionCookie else { return .drop }
        if ![.get, .head, .options].contains(method) {
            guard let given, let expected = identity.csrfToken, constantTimeEquals(given, expected) else {
                return .refuse(.page(.forbidden, "A request that changes state needs the X-CSRF-Token header."))
            }
        }
        return .keep
    }


    /// The trusted issuer of `token` and its verified claims: from the verified-token cache when
    /// the token is there and still passes ``AccessTokenVerifier/recheck(_:requiredScopes:)``,
    /// otherwise by the issuer's verifier (and then kept).
    /// - Throws: `AuthError`, as the verifiers do; `invalidToken` for an issuer not trusted here.
    package func verify(_ token: Secret<String>) async throws -> (TrustedIssuer, VerifiedBearerToken) {
        try await verify(token, digest: nil)
    }

    /// ``verify(_:)`` with the token's SHA-256 made by the caller (a DPoP request needs it for the
    /// proof's `ath` too); nil makes it here when the verified-token cache is on.
    package func verify(_ token: Secret<String>, digest: SHA256Digest?) async throws -> (TrustedIssuer, VerifiedBearerToken) {
        // A token over the verifiers' size limit is refused below: no digest is worth making of it.
        let key = verifiedTokens != nil && AccessTokenVerifier.hasAcceptableSize(token.revealed())
            ? digest ?? VerifiedTokenCache.key(token.revealed()) : nil
        if let key, let cache = verifiedTokens, let kept = cache.entry(key), let verifier = kept.issuer.accessToken {
            do {
                if let claims = try verifier.recheck(kept.claims, requiredScopes: requiredScopes) {
                    cache.countHit()
                    return (kept.issuer, claims.bearer)
                }
                cache.remove(key)  // the issuer's keys changed since: verified again below
            } catch {
                cache.remove(key)
                throw error
            }
        }
        // Decoded once: `iss` picks the verifier, and AuthHub's access-token verifier reuses the parts.
        guard let (jwtHeader, payload) = JWTParts.decode(token), let iss = payload["iss"]?.stringValue, let issuer = verifiers[iss] else {
            throw AuthError(.invalidToken, message: "The token's issuer is not trusted here.", details: ["reason": "untrustedIssuer"])
        }
        guard let accessToken = issuer.accessToken else {
            return (issuer, try await issuer.verifier.verifyBearer(token, requiredScopes: requiredScopes))
        }
        let claims = try await accessToken.verify(token, header: jwtHeader, payload: payload, requiredScopes: requiredScopes)
        if let key, let cache = verifiedTokens, claims.keyGeneration != nil {
            cache.insert(key, VerifiedTokenCache.Entry(issuer: issuer, claims: claims))
        }
        return (issuer, claims.bearer)
    }

    /// The token of an `Authorization` value `Bearer <token>` (scheme case-insensitive), trimmed of
    /// surrounding `.whitespaces` (it may then be empty, and fails to decode); nil for another
    /// scheme or nothing after the space.
    package static func bearerCredentials(_ header: String) -> String? {
        var header = header
        if let fast = header.withUTF8(asciiBearerCredentials) { return fast }
        return bearerCredentialsOfAnyShape(header)
    }

    /// ``bearerCredentials(_:)`` of the shape every real header has — ASCII, six letters spelling
    /// `bearer` in any case, one space, the token — read from its bytes: the generic `split` and
    /// `Substring` scans below cost ~2 µs per request for a ~1 KB token (perf, bearer row). Nil
    /// when the header has another shape, which ``bearerCredentialsOfAnyShape(_:)`` then reads (so
    /// what is accepted does not depend on which path ran).
    private static func asciiBearerCredentials(_ bytes: UnsafeBufferPointer<UInt8>) -> String?? {
        // Another scheme (`DPoP …`) or no token: the first word, up to the first space, is not six
        // letters spelling `bearer`, or nothing follows — refused as the general path would, without
        // its scans. A header that starts with a space is left to it (its split skips leading separators).
        guard let first = bytes.first, first != UInt8(ascii: " ") else { return nil }
        guard bytes.count > 7, bytes[6] == UInt8(ascii: " ") else { return .some(nil) }
        var index = 0
        for letter in "bearer".utf8 {
            guard bytes[index] | 0x20 == letter else { return .some(nil) }
            index += 1
        }
        var ascii = true
        for byte in bytes where byte >= 0x80 { ascii = false; break }
        guard ascii else { return nil }
        let isBlank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        var start = 7, end = bytes.count
        while start < end, isBlank(bytes[start]) { start += 1 }
        while end > start, isBlank(bytes[end - 1]) { end -= 1 }
        return .some(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self))
    }

    /// ``bearerCredentials(_:)`` of any header: split at the first space, the scheme compared
    /// without case, the rest trimmed.
    package static func bearerCredentialsOfAnyShape(_ header: String) -> String? {
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, !parts[1].isEmpty, parts[0].utf8.count == 6,
              zip(parts[0].utf8, "bearer".utf8).allSatisfy({ $0 | 0x20 == $1 }) else { return nil }
        let rest = parts[1]
        guard rest.utf8.allSatisfy({ $0 < 0x80 }) else { return String(rest).trimmingCharacters(in: .whitespaces) }
        // ASCII (every real token): of `.whitespaces` only space and tab can occur, trimmed here
        // without going through Foundation.
        let isBlank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        guard let first = rest.utf8.firstIndex(where: { !isBlank($0) }), let last = rest.utf8.lastIndex(where: { !isBlank($0) }) else { return "" }
        return String(rest[first...last])
    }

    /// Whether a refusal is the issuer's keys being out of reach rather than the token being bad.
    static func isTransient(_ error: AuthError) -> Bool {
        if error.code.isTransientByDefault { return true }
        return error.code == .invalidToken && (error.underlying as? AuthError).map { $0.code.isTransientByDefault } == true
    }

    /// A 401/403 with the RFC 6750 challenge; quotes and backslashes are dropped from the values.
    /// With `dpop`, the challenge is of the `DPoP` scheme (RFC 9449, section 7.1) and names the
    /// accepted `algs`.
    func challenge(_ status: HTTPResponse.Status, error: String, description: String, scope: String? = nil,
                   dpop: Bool = false) -> WebResponse {
        func quoted(_ value: String) -> String { "\"" + value.filter { $0 != "\"" && $0 != "\\" && !$0.isNewline } + "\"" }
        var value = (dpop ? "DPoP" : "Bearer") + " realm=\(quoted(realm)), error=\(quoted(error)), error_description=\(quoted(description))"
        if let scope { value += ", scope=\(quoted(scope))" }
        if dpop, let algorithms = self.dpop?.allowedAlgorithms { value += ", algs=\(quoted(algorithms.sorted().joined(separator: " ")))" }
        return WebResponse(status: status, headerFields: [.wwwAuthenticate: value, .cacheControl: "no-store"])
    }

    /// The token of an `Authorization` value `DPoP <token>` (scheme case-insensitive, the token
    /// trimmed); nil for another scheme or nothing after the space.
    ///
    /// Read from the header's bytes: Foundation's `trimmingCharacters` over a ~1 KB token walked it
    /// as UTF-16 and cost about as much as checking the proof (perf, `dpop.proof-check`).
    package static func dpopCredentials(_ header: String) -> String? {
        var header = header
        return header.withUTF8 { bytes -> String? in
            guard bytes.count > 5, bytes[4] == UInt8(ascii: " ") else { return nil }
            var index = 0
            for letter in "dpop".utf8 {
                guard bytes[index] | 0x20 == letter else { return nil }
                index += 1
            }
            let isBlank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            var start = 5, end = bytes.count
            while start < end, isBlank(bytes[start]) { start += 1 }
            while end > start, isBlank(bytes[end - 1]) { end -= 1 }
            guard start < end else { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        }
    }
}

/// One issuer a bearer middleware trusts (a class: looking it up per request is one retain, not a
/// copy of the verifiers' fields).
package final class TrustedIssuer: Sendable {
    let provider: String
    let verifier: any BearerTokenVerifier
    let accessToken: AccessTokenVerifier?

    init(provider: String, verifier: any BearerTokenVerifier) {
        self.provider = provider
        self.verifier = verifier
        self.accessToken = verifier as? AccessTokenVerifier
    }
}
