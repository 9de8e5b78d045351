import AuthHub
import AuthHubOIDC
import AuthHubTesting
import AuthHubWebCore
import Crypto
import Foundation
import HTTPTypes

/// `dpop.proof-check`: what checking a DPoP proof adds to a protected request, inside the server —
/// `BearerTokenAuthenticator.authenticate` of a DPoP-bound access token with a fresh proof per
/// request (the subject) against the same call with an unbound token as `Bearer` (the baseline),
/// both tokens already in the verified-token cache, in this process, no network. The proofs are made
/// before each timed batch (each request needs its own: a `jti` is accepted once). The target (issue
/// 35): the difference is at most one raw ES256 verification (swift-crypto's P-256 check of one
/// proof's signature, measured in the same run) plus 10 µs.
enum DPoPBenchmarks {
    static let name = "dpop.proof-check"

    static func run(_ options: BenchOptions) async throws -> [Row] {
        guard options.wants(name) else { return [] }
        let issuerURL = "https://issuer.bench.invalid/", audience = "https://api.bench.invalid"
        let issuer = try TestTokenIssuer(issuer: issuerURL, keyID: "bench-key")
        let jwks = try issuer.jwks.serialized()
        let api = APIClient(provider: "bench", baseURL: URL(string: issuerURL)!, transport: FixedDocumentTransport(body: jwks))
        let verifier = AccessTokenVerifier(issuer: issuerURL, audience: audience, keys: JWKSCache(jwksURI: issuerURL + "jwks", api: api),
                                           clock: SystemClock())
        let batch = options.batch(2_000)
        let authenticator = BearerTokenAuthenticator(
            verifiers: ["bench": verifier],
            dpop: DPoPProofVerifier(replayCache: InMemoryReplayCache(capacity: 1_000_000)))
        let key = DPoPKey()
        let now = Date().timeIntervalSince1970.rounded(.down)
        let claims: [String: JSONValue] = ["sub": "bench-user", "aud": .string(audience), "iat": .number(now), "exp": .number(now + 86_400)]
        let boundToken = try issuer.token(claims.merging(["cnf": ["jkt": .string(key.thumbprint)]]) { _, new in new })
        let bearerToken = try issuer.token(claims)
        let url = URL(string: audience + "/v1/things")!
        let boundHeader = "DPoP " + boundToken, bearerHeader = "Bearer " + bearerToken
        let target: () -> (scheme: String?, authority: String?, path: String) = { ("https", "api.bench.invalid", "/v1/things") }

        func proofs(_ count: Int) throws -> [String] {
            try (0..<count).map { _ in
                try key.proof(method: "GET", url: url, accessToken: Secret(boundToken), now: Date()).revealed()
            }
        }
        var failures = 0
        // Both tokens verified once: the rows compare requests served from the verified-token cache.
        for (header, proof) in [(boundHeader, try proofs(1)), (bearerHeader, [])] {
            guard case .authenticated = await authenticator.authenticate(authorization: header, method: .get, dpopProofs: { proof }, target: target) else {
                throw BenchFailure("\(name): the warm-up request was refused")
            }
        }
        // One raw ES256 check of a proof's signature, for the target.
        let sample = try proofs(1)[0]
        let parts = sample.split(separator: ".")
        let signingInput = Data((parts[0] + "." + parts[1]).utf8)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: Data(base64urlDecoded: String(parts[2])) ?? Data())
        let x = Data(base64urlDecoded: key.publicJWK["x"]?.stringValue ?? "") ?? Data()
        let y = Data(base64urlDecoded: key.publicJWK["y"]?.stringValue ?? "") ?? Data()
        let publicKey = try P256.Signing.PublicKey(rawRepresentation: x + y)
        var raw: [Double] = []

        let result = try await paired(samples: options.samples, baseline: {
            await Clock.perOp(batch) {
                for _ in 0..<batch {
                    if case .authenticated = await authenticator.authenticate(authorization: bearerHeader, method: .get, dpopProofs: { [] },
                                                                              target: target) {} else { failures += 1 }
                }
            }
        }, subject: {
            let fresh = try proofs(batch)
            let perRequest = await Clock.perOp(batch) {
                for proof in fresh {
                    if case .authenticated = await authenticator.authenticate(authorization: boundHeader, method: .get, dpopProofs: { [proof] },
                                                                              target: target) {} else { failures += 1 }
                }
            }
            raw.append(Clock.perOpSync(batch) {
                for _ in 0..<batch where !publicKey.isValidSignature(signature, for: signingInput) { failures += 1 }
            })
            return perRequest
        })
        let rawES256 = Samples(values: raw).median
        let added = result.subject.median - result.baseline.median
        let limit = rawES256 + 10_000
        var row = timeRow(name, result, unit: "µs/op", baseline: "the same call with an unbound token as Bearer (verified-token cache hit)",
                          targetRatio: .infinity,
                          note: String(format: "proof check adds %.1f µs per request; one raw ES256 verification %.1f µs; limit %.1f µs; %d failed requests",
                                       added / 1_000, rawES256 / 1_000, limit / 1_000, failures))
        row.target = "added ≤ raw ES256 + 10 µs"
        row.verdict = failures == 0 && added <= limit ? "pass" : "MISS"
        return [row]
    }
}
