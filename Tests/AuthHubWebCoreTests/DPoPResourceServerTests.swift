import AuthHub
import AuthHubOIDC
import AuthHubTesting
import AuthHubWebCore
import Crypto
import _CryptoExtras
import Foundation
import HTTPTypes
import Testing

/// Builds DPoP proofs the way a client would, and every way a client must not: this test's own
/// writer (not the library's), so a fault can be put in any part.
struct ProofForger: Sendable {
    let key = P256.Signing.PrivateKey()

    var publicJWK: [String: JSONValue] {
        let point = key.publicKey.rawRepresentation
        return ["kty": "EC", "crv": "P-256", "x": .string(Base64URL.encode(point.prefix(32))), "y": .string(Base64URL.encode(point.suffix(32)))]
    }

    var thumbprint: String { (try? JWKThumbprint.sha256(publicJWK)) ?? "" }

    func claims(method: String = "GET", uri: String, token: String?, iat: Double, nonce: String? = nil) -> [String: JSONValue] {
        var claims: [String: JSONValue] = ["jti": .string(UUID().uuidString), "htm": .string(method), "htu": .string(uri), "iat": .number(iat)]
        if let token { claims["ath"] = .string(Base64URL.encode(SHA256.hash(data: Data(token.utf8)))) }
        if let nonce { claims["nonce"] = .string(nonce) }
        return claims
    }

    /// A compact JWS of `header` and `claims`: signed ES256 by this key unless `signature` gives
    /// the third part.
    func proof(header: [String: JSONValue]? = nil, claims: [String: JSONValue], signature: ((String) -> String)? = nil) throws -> String {
        let head = header ?? ["typ": "dpop+jwt", "alg": "ES256", "jwk": .object(publicJWK)]
        let input = Base64URL.encode(try JSONValue.object(head).serialized()) + "." + Base64URL.encode(try JSONValue.object(claims).serialized())
        if let signature { return input + "." + signature(input) }
        return input + "." + Base64URL.encode(try key.signature(for: Data(input.utf8)).rawRepresentation)
    }
}

/// The resource-server side of DPoP (RFC 9449, sections 4.3 and 7): every fault of a proof refused
/// with its own reason, and the bearer authenticator's handling of `Authorization: DPoP`.
@Suite struct DPoPProofVerifierTests {
    let clock = FakeClock(now: Date(timeIntervalSince1970: 1_800_000_000), mode: .manual)
    let forger = ProofForger()
    static let uri = "https://api.example.com/v1/things"
    static let token = "the-access-token"

    var now: Double { clock.now.timeIntervalSince1970 }

    func verifier(algorithms: Set<String> = ["ES256"], nonces: DPoPNonceIssuer? = nil) -> DPoPProofVerifier {
        DPoPProofVerifier(allowedAlgorithms: algorithms, maxAge: 60, futureLeeway: 5, replayCache: InMemoryReplayCache(clock: clock),
                          nonces: nonces, clock: clock)
    }

    func reason(_ proof: String, method: String = "GET", uri: String = Self.uri, token: String? = Self.token,
                jkt: String? = nil, verifier: DPoPProofVerifier? = nil) async -> String? {
        do {
            _ = try await (verifier ?? self.verifier()).verify(proof, method: method, uri: URL(string: uri)!, accessToken: token.map(Secret.init),
                                                              boundThumbprint: jkt ?? forger.thumbprint)
            return nil
        } catch let error as AuthError {
            #expect(error.code == .invalidToken || error.code == .providerUnavailable)
            return error.details["reason"]
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test func aValidProofPasses() async throws {
        let proof = try forger.proof(claims: forger.claims(uri: Self.uri, token: Self.token, iat: now))
        #expect(await reason(proof) == nil)
        // The URI is compared as the client addressed it: query ignored, scheme and host without case, default port.
        let other = try forger.proof(claims: forger.claims(uri: "HTTPS://API.example.COM:443/v1/things", token: Self.token, iat: now))
        #expect(await reason(other, uri: Self.uri + "?page=2") == nil)
    }

    /// Each fault and the reason it is refused with.
    @Test func everyFaultOfAProofIsRefusedWithItsOwnReason() async throws {
        let f = forger
        let good = f.claims(uri: Self.uri, token: Self.token, iat: now)
        let jwk = JSONValue.object(f.publicJWK)
        func without(_ claim: String) -> [String: JSONValue] { var c = good; c[claim] = nil; return c }
        func with(_ claim: String, _ value: JSONValue) -> [String: JSONValue] { var c = good; c[claim] = value; return c }
        var privateJWK = f.publicJWK
        privateJWK["d"] = .string(Base64URL.encode(f.key.rawRepresentation))
        let hmacKey = SymmetricKey(data: Data("a shared secret of some length!!".utf8))
        let stranger = P256.Signing.PrivateKey()
        let cases: [(String, String, String)] = [
            ("typ JWT", try f.proof(header: ["typ": "JWT", "alg": "ES256", "jwk": jwk], claims: good), "dpopWrongType"),
            ("no typ", try f.proof(header: ["alg": "ES256", "jwk": jwk], claims: good), "dpopWrongType"),
            ("alg none", try f.proof(header: ["typ": "dpop+jwt", "alg": "none", "jwk": jwk], claims: good, signature: { _ in "" }), "dpopAlgorithmNotAllowed"),
            ("HS256", try f.proof(header: ["typ": "dpop+jwt", "alg": "HS256", "jwk": jwk], claims: good, signature: {
                Base64URL.encode(HMAC<SHA256>.authenticationCode(for: Data($0.utf8), using: hmacKey))
            }), "dpopAlgorithmNotAllowed"),
            ("RS256 not allowed", try f.proof(header: ["typ": "dpop+jwt", "alg": "RS256", "jwk": jwk], claims: good), "dpopAlgorithmNotAllowed"),
            ("bad signature", try f.proof(claims: good, signature: { input in
                Base64URL.encode((try? stranger.signature(for: Data(input.utf8)).rawRepresentation) ?? Data())
            }), "dpopBadSignature"),
            ("truncated signature", try f.proof(claims: good, signature: { _ in "AAAA" }), "dpopBadSignature"),
            ("private key in jwk", try f.proof(header: ["typ": "dpop+jwt", "alg": "ES256", "jwk": .object(privateJWK)], claims: good), "dpopPrivateKey"),
            ("no jwk", try f.proof(header: ["typ": "dpop+jwt", "alg": "ES256"], claims: good), "dpopInvalidKey"),
            ("jwk of another curve", try f.proof(header: ["typ": "dpop+jwt", "alg": "ES256",
                                                            "jwk": .object(f.publicJWK.merging(["crv": "P-384"]) { _, new in new })], claims: good), "dpopInvalidKey"),
            ("no jti", try f.proof(claims: without("jti")), "dpopMissingClaim"),
            ("no htm", try f.proof(claims: without("htm")), "dpopMissingClaim"),
            ("no htu", try f.proof(claims: without("htu")), "dpopMissingClaim"),
            ("no iat", try f.proof(claims: without("iat")), "dpopMissingClaim"),
            ("iat a string", try f.proof(claims: with("iat", .string("\(now)"))), "dpopMissingClaim"),
            ("no ath", try f.proof(claims: without("ath")), "dpopMissingClaim"),
            ("htm POST for GET", try f.proof(claims: with("htm", "POST")), "dpopMethodMismatch"),
            ("htm lowercase", try f.proof(claims: with("htm", "get")), "dpopMethodMismatch"),
            ("htu another path", try f.proof(claims: with("htu", "https://api.example.com/v1/other")), "dpopURIMismatch"),
            ("htu another host", try f.proof(claims: with("htu", "https://evil.example.com/v1/things")), "dpopURIMismatch"),
            ("htu http for https", try f.proof(claims: with("htu", "http://api.example.com/v1/things")), "dpopURIMismatch"),
            ("htu another port", try f.proof(claims: with("htu", "https://api.example.com:8443/v1/things")), "dpopURIMismatch"),
            ("stale iat", try f.proof(claims: with("iat", .number(now - 61))), "dpopStale"),
            ("future iat", try f.proof(claims: with("iat", .number(now + 6))), "dpopFuture"),
            ("ath of another token", try f.proof(claims: with("ath", .string(Base64URL.encode(SHA256.hash(data: Data("other".utf8)))))), "dpopAccessTokenHashMismatch"),
            ("not a JWS", "abc.def", "dpopMalformed"),
            ("empty", "", "dpopMalformed"),
            ("huge", String(repeating: "a", count: 9_000) + ".b.c", "dpopMalformed"),
        ]
        for (name, proof, expected) in cases {
            #expect(await reason(proof) == expected, "\(name)")
        }
        // The key the token is bound to (cnf.jkt) differs from the proof's.
        let proof = try f.proof(claims: good)
        #expect(await reason(proof, jkt: ProofForger().thumbprint) == "dpopKeyMismatch")
    }

    @Test func aProofIsAcceptedOnce() async throws {
        let verifier = verifier()
        let proof = try forger.proof(claims: forger.claims(uri: Self.uri, token: Self.token, iat: now))
        #expect(await reason(proof, verifier: verifier) == nil)
        #expect(await reason(proof, verifier: verifier) == "dpopReplayed")
        // The same jti with another key is another proof (the cache keys on the key and the jti).
        var claims = forger.claims(uri: Self.uri, token: Self.token, iat: now)
        claims["jti"] = "shared-jti"
        let other = ProofForger()
        #expect(await reason(try forger.proof(claims: claims), verifier: verifier) == nil)
        #expect(await reason(try other.proof(claims: claims), jkt: other.thumbprint, verifier: verifier) == nil)
    }

    @Test func theReplayCacheForgetsProofsOnceTheyAreTooOldAndIsBounded() throws {
        let cache = InMemoryReplayCache(capacity: 2, clock: clock)
        let later = clock.now.addingTimeInterval(60)
        #expect(try cache.record("a", until: later))
        #expect(try cache.record("b", until: later))
        #expect(try !cache.record("a", until: later))
        // Full of live entries: refused, not forgotten early.
        let error = #expect(throws: AuthError.self) { try cache.record("c", until: later) }
        #expect(error?.details["reason"] == "replayCacheFull")
        clock.advance(by: 61)
        #expect(try cache.record("c", until: clock.now.addingTimeInterval(60)))
        #expect(cache.count == 1)
    }

    @Test func serverNoncesAreRequiredWhenConfigured() async throws {
        let nonces = try DPoPNonceIssuer(key: Secret(Array(repeating: 7, count: 32)), window: 60, clock: clock)
        let verifier = verifier(nonces: nonces)
        let missing = try forger.proof(claims: forger.claims(uri: Self.uri, token: Self.token, iat: now))
        #expect(await reason(missing, verifier: verifier) == "dpopNonceRequired")
        let current = nonces.current()
        #expect(await reason(try forger.proof(claims: forger.claims(uri: Self.uri, token: Self.token, iat: now, nonce: current)),
                             verifier: verifier) == nil)
        #expect(await reason(try forger.proof(claims: forger.claims(uri: Self.uri, token: Self.token, iat: now, nonce: "made-up")),
                             verifier: verifier) == "dpopNonceRequired")
        // Another replica with the same key accepts it; one with another key does not.
        let twin = try DPoPNonceIssuer(key: Secret(Array(repeating: 7, count: 32)), window: 60, clock: clock)
        #expect(twin.accepts(current))
        #expect(try !DPoPNonceIssuer(key: Secret(Array(repeating: 8, count: 32)), window: 60, clock: clock).accepts(current))
        // A nonce lives one to two windows.
        clock.advance(by: 60)
        #expect(nonces.accepts(current))
        clock.advance(by: 60)
        #expect(!nonces.accepts(current))
        #expect(throws: AuthError.self) { try DPoPNonceIssuer(key: Secret([1, 2, 3])) }
    }

    @Test func theErrorOfAMissingNonceIsUseDPoPNonce() async throws {
        let nonces = try DPoPNonceIssuer(clock: clock)
        let proof = try forger.proof(claims: forger.claims(uri: Self.uri, token: Self.token, iat: now))
        do {
            _ = try await verifier(nonces: nonces).verify(proof, method: "GET", uri: URL(string: Self.uri)!, accessToken: Secret(Self.token),
                                                          boundThumbprint: forger.thumbprint)
            Issue.record("accepted")
        } catch let error as AuthError {
            #expect(error.details["dpopError"] == "use_dpop_nonce")
        }
    }

    @Test func rsaProofsPassWhenAllowed() async throws {
        let rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let primitives = try rsa.publicKey.getKeyPrimitives()
        let jwk: [String: JSONValue] = ["kty": "RSA", "n": .string(Base64URL.encode(primitives.modulus)), "e": .string(Base64URL.encode(primitives.publicExponent))]
        let claims = forger.claims(uri: Self.uri, token: Self.token, iat: now)
        for (alg, padding) in [("RS256", _RSA.Signing.Padding.insecurePKCS1v1_5), ("PS256", .PSS)] {
            let proof = try forger.proof(header: ["typ": "dpop+jwt", "alg": .string(alg), "jwk": .object(jwk)], claims: claims.merging(["jti": .string(alg)]) { _, n in n }) { input in
                Base64URL.encode((try? rsa.signature(for: SHA256.hash(data: Data(input.utf8)), padding: padding).rawRepresentation) ?? Data())
            }
            let verifier = verifier(algorithms: ["ES256", "RS256", "PS256"])
            #expect(await reason(proof, jkt: try JWKThumbprint.sha256(jwk), verifier: verifier) == nil, "\(alg)")
            #expect(await reason(proof, jkt: try JWKThumbprint.sha256(jwk)) == "dpopAlgorithmNotAllowed", "\(alg) off by default")
        }
    }
}

/// `Authorization: DPoP` at the bearer authenticator: a DPoP-bound access token (`cnf.jkt`) with its
/// proof is accepted; the same token as `Bearer`, a bound token without a proof, an unbound token
/// with the DPoP scheme, a proof for another URI are refused with RFC 9449's challenges.
@Suite struct DPoPBearerAuthenticatorTests {
    static let api = "https://api.example.com"
    let clock = FakeClock(now: Date(timeIntervalSince1970: 1_800_000_000), mode: .manual)
    let issuer: TestTokenIssuer
    let transport = StubTransport()
    let forger = ProofForger()

    init() throws {
        issuer = try TestTokenIssuer(issuer: "https://idp.example.com/", keyID: "k1")
        transport.on(.get, "/.well-known/jwks.json") { [jwks = issuer.jwks] _ in .json(200, jwks) }
    }

    func authenticator(nonces: DPoPNonceIssuer? = nil, externalOrigin: URL? = nil) -> BearerTokenAuthenticator {
        let client = APIClient(provider: "idp", baseURL: URL(string: "https://idp.example.com/")!, transport: transport)
        let keys = JWKSCache(jwksURI: "/.well-known/jwks.json", api: client, clock: clock)
        let verifier = AccessTokenVerifier(issuer: "https://idp.example.com/", audience: Self.api, keys: keys, clock: clock, leeway: 0)
        let dpop = DPoPProofVerifier(replayCache: InMemoryReplayCache(clock: clock), nonces: nonces, clock: clock)
        return BearerTokenAuthenticator(verifiers: ["idp": verifier], dpop: dpop, externalOrigin: externalOrigin)
    }

    func token(boundTo jkt: String?) throws -> String {
        let now = clock.now.timeIntervalSince1970
        var claims: [String: JSONValue] = ["sub": "user-1", "aud": .string(Self.api), "iat": .number(now), "exp": .number(now + 600)]
        if let jkt { claims["cnf"] = ["jkt": .string(jkt)] }
        return try issuer.token(claims)
    }

    func proof(for token: String, uri: String = "https://api.example.com/v1/things", method: String = "GET", nonce: String? = nil) throws -> String {
        try forger.proof(claims: forger.claims(method: method, uri: uri, token: token, iat: clock.now.timeIntervalSince1970, nonce: nonce))
    }

    func outcome(_ authenticator: BearerTokenAuthenticator, _ authorization: String, proofs: [String],
                 scheme: String? = "https", authority: String = "api.example.com", path: String = "/v1/things?x=1") async -> BearerTokenAuthenticator.Outcome {
        await authenticator.authenticate(authorization: authorization, method: .get, dpopProofs: { proofs },
                                         target: { (scheme, authority, path) })
    }

    func refusal(_ outcome: BearerTokenAuthenticator.Outcome) -> (status: Int, challenge: String, nonce: String?)? {
        guard case .refused(let response) = outcome else { return nil }
        return (response.status.code, response.headerFields[.wwwAuthenticate] ?? "", response.headerFields[HTTPField.Name("DPoP-Nonce")!])
    }

    @Test func aBoundTokenWithItsProofIsAccepted() async throws {
        let auth = authenticator()
        let token = try token(boundTo: forger.thumbprint)
        guard case .authenticated(let identity) = await outcome(auth, "DPoP \(token)", proofs: [try proof(for: token)]) else {
            Issue.record("refused"); return
        }
        #expect(identity.subject == "user-1")
        // Again, from the verified-token cache: the proof is still checked (a replay is refused, a new one passes).
        let second = try proof(for: token)
        guard case .authenticated = await outcome(auth, "DPoP \(token)", proofs: [second]) else { Issue.record("refused"); return }
        let replay = try #require(refusal(await outcome(auth, "DPoP \(token)", proofs: [second])))
        #expect(replay.status == 401 && replay.challenge.hasPrefix("DPoP ") && replay.challenge.contains(#"error="invalid_dpop_proof""#))
        #expect(replay.challenge.contains(#"algs="ES256""#))
    }

    @Test func everyMisuseOfTheSchemesIsRefused() async throws {
        let auth = authenticator()
        let bound = try token(boundTo: forger.thumbprint)
        let unbound = try token(boundTo: nil)
        // RFC 9449, section 7.2: a bound token as Bearer.
        let asBearer = try #require(refusal(await outcome(auth, "Bearer \(bound)", proofs: [try proof(for: bound)])))
        #expect(asBearer.status == 401 && asBearer.challenge.hasPrefix("DPoP ") && asBearer.challenge.contains(#"error="invalid_token""#))
        // An unbound token is still a bearer token.
        guard case .authenticated = await outcome(auth, "Bearer \(unbound)", proofs: []) else { Issue.record("refused"); return }
        // The DPoP scheme with an unbound token.
        let notBound = try #require(refusal(await outcome(auth, "DPoP \(unbound)", proofs: [try proof(for: unbound)])))
        #expect(notBound.challenge.contains(#"error="invalid_token""#))
        // No proof, two proofs.
        let none = try #require(refusal(await outcome(auth, "DPoP \(bound)", proofs: [])))
        #expect(none.challenge.contains(#"error="invalid_dpop_proof""#))
        let two = try #require(refusal(await outcome(auth, "DPoP \(bound)", proofs: [try proof(for: bound), try proof(for: bound)])))
        #expect(two.challenge.contains(#"error="invalid_dpop_proof""#))
        // A proof for another URI, and one of another key.
        let elsewhere = try #require(refusal(await outcome(auth, "DPoP \(bound)", proofs: [try proof(for: bound, uri: "https://api.example.com/v1/other")])))
        #expect(elsewhere.challenge.contains("htu"))
        let otherKey = try ProofForger().proof(claims: forger.claims(uri: "https://api.example.com/v1/things", token: bound, iat: clock.now.timeIntervalSince1970))
        #expect(try #require(refusal(await outcome(auth, "DPoP \(bound)", proofs: [otherKey]))).challenge.contains("cnf.jkt"))
        // Without DPoP configured the scheme is refused outright.
        let bearerOnly = BearerTokenAuthenticator(verifiers: [:], dpop: nil)
        #expect(try #require(refusal(await bearerOnly.authenticate(authorization: "DPoP \(bound)"))).challenge.contains("invalid_request"))
    }

    @Test(arguments: [("DPoP abc", "abc"), ("dpop  abc \t", "abc"), ("DPOP\tabc", nil), ("DPoPx abc", nil), ("DPoP ", nil),
                      ("DPoP  \t ", nil), ("Bearer abc", nil), ("DPo", nil), ("", nil)] as [(String, String?)])
    func theDPoPSchemeIsReadFromTheHeadersBytes(header: String, expected: String?) {
        #expect(BearerTokenAuthenticator.dpopCredentials(header) == expected)
    }

    @Test func aMissingNonceIsChallengedWithAFreshOne() async throws {
        let nonces = try DPoPNonceIssuer(clock: clock)
        let auth = authenticator(nonces: nonces)
        let token = try token(boundTo: forger.thumbprint)
        let challenged = try #require(refusal(await outcome(auth, "DPoP \(token)", proofs: [try proof(for: token)])))
        #expect(challenged.status == 401 && challenged.challenge.contains(#"error="use_dpop_nonce""#))
        let nonce = try #require(challenged.nonce)
        guard case .authenticated = await outcome(auth, "DPoP \(token)", proofs: [try proof(for: token, nonce: nonce)]) else {
            Issue.record("refused with the server's nonce"); return
        }
    }

    @Test func theURIIsTheOneTheClientAddressed() async throws {
        let token = try token(boundTo: forger.thumbprint)
        // Behind a proxy: the server sees http://10.0.0.5:8080, the client addressed https://api.example.com.
        let proxied = authenticator(externalOrigin: URL(string: "https://api.example.com"))
        guard case .authenticated = await outcome(proxied, "DPoP \(token)", proofs: [try proof(for: token)], scheme: "http",
                                                  authority: "10.0.0.5:8080") else { Issue.record("refused behind the proxy"); return }
        // Without the setting, the request's own scheme and host are the URI: a proof for the public one fails.
        let direct = authenticator()
        #expect(refusal(await outcome(direct, "DPoP \(token)", proofs: [try proof(for: token)], scheme: "http", authority: "10.0.0.5:8080")) != nil)
        guard case .authenticated = await outcome(direct, "DPoP \(token)", proofs: [try proof(for: token, uri: "http://10.0.0.5:8080/v1/things")],
                                                  scheme: nil, authority: "10.0.0.5:8080") else { Issue.record("refused"); return }
        // A Host header that is not an authority gives no URI: refused.
        #expect(refusal(await outcome(direct, "DPoP \(token)", proofs: [try proof(for: token)], authority: "evil.example/x?")) != nil)
    }
}
