import AuthHub
import AuthHubFirebase
import AuthHubOIDC
import Crypto
import _CryptoExtras
import Foundation
import JWTKit

/// The claims of the benchmark tokens, as jwt-kit's own verification sees them: it checks the
/// signature, then `verify(using:)` checks expiry, audience and issuer.
struct BaselineIDClaims: JWTPayload {
    var iss: IssuerClaim
    var sub: SubjectClaim
    var aud: AudienceClaim
    var exp: ExpirationClaim
    var iat: IssuedAtClaim
    var auth_time: Int?
    var email: String?
    var name: String?

    /// What the verification expects (set once before measuring).
    nonisolated(unsafe) static var expectedIssuer = ""
    nonisolated(unsafe) static var expectedAudience = ""

    func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
        try aud.verifyIntendedAudience(includes: Self.expectedAudience)
        guard iss.value == Self.expectedIssuer, !sub.value.isEmpty else { throw BenchFailure("claims") }
    }
}

enum TokenBenchmarks {
    static func run(_ options: BenchOptions) async throws -> [Row] {
        let names = ["idtoken.oidc.rs256", "idtoken.oidc.es256", "idtoken.firebase.rs256"]
        guard names.contains(where: options.wants) else { return [] }

        let backing = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let privateKey = try Insecure.RSA.PrivateKey(backing: backing)
        let publicKey = privateKey.publicKey
        let primitives = try publicKey.getKeyPrimitives()
        let kid = "bench-key-1"
        let jwks = """
            {"keys":[{"kty":"RSA","kid":"\(kid)","use":"sig","alg":"RS256","n":"\(base64url(primitives.modulus))","e":"\(base64url(primitives.publicExponent))"}]}
            """
        let signer = JWTKeyCollection()
        await signer.add(rsa: privateKey, digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
        let verifier = JWTKeyCollection()
        await verifier.add(rsa: publicKey, digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))

        let now = Date()
        let ops = options.batch(2_000)
        var rows: [Row] = []

        func baselineRun(_ token: String, issuer: String, audience: String, with keys: JWTKeyCollection? = nil) -> () async throws -> Double {
            BaselineIDClaims.expectedIssuer = issuer
            BaselineIDClaims.expectedAudience = audience
            let keys = keys ?? verifier
            return { try await Clock.perOp(ops) { for _ in 0..<ops { _ = try await keys.verify(token, as: BaselineIDClaims.self) } } }
        }

        let issuer = "https://issuer.bench.invalid/"
        let clientId = "bench-client"
        func oidcClaims() -> BaselineIDClaims {
            BaselineIDClaims(iss: IssuerClaim(value: issuer), sub: SubjectClaim(value: "auth0|bench-user"), aud: AudienceClaim(value: clientId),
                             exp: ExpirationClaim(value: now.addingTimeInterval(24 * 3600)), iat: IssuedAtClaim(value: now),
                             auth_time: Int(now.timeIntervalSince1970), email: "ada@example.com", name: "Ada Lovelace")
        }
        /// AuthHubOIDC's IDTokenValidator on `token`, its JWKS (`jwks`) cached, against jwt-kit's
        /// verification of the same token with `keys`.
        func oidcRow(_ name: String, token: String, jwks: String, keys: JWTKeyCollection, baselineLabel: String) async throws -> Row {
            let transport = FixedDocumentTransport(body: Data(jwks.utf8))
            let api = APIClient(provider: "oidc", baseURL: URL(string: issuer)!, transport: transport)
            let cache = JWKSCache(jwksURI: issuer + ".well-known/jwks.json", api: api)
            let validator = IDTokenValidator(keys: cache, clock: SystemClock())
            let expectations = IDTokenExpectations(issuer: issuer, clientId: clientId)
            let secret = Secret(token)
            _ = try await validator.validate(secret, expecting: expectations)
            let baseline = baselineRun(token, issuer: issuer, audience: clientId, with: keys)
            let result = try await paired(samples: options.samples, baseline: baseline, subject: {
                try await Clock.perOp(ops) { for _ in 0..<ops { _ = try await validator.validate(secret, expecting: expectations) } }
            })
            let allocOps = options.batch(500)
            let allocs = try await Allocations.perOp(allocOps) {
                for _ in 0..<allocOps { _ = try await validator.validate(secret, expecting: expectations) }
            }
            let baseAllocs = try await Allocations.perOp(allocOps) {
                for _ in 0..<allocOps { _ = try await keys.verify(token, as: BaselineIDClaims.self) }
            }
            let fetches = transport.counter.withLock { $0 }
            return timeRow(name, result, unit: "µs/op", baseline: baselineLabel, targetRatio: 1.2, allocs: allocs, baselineAllocs: baseAllocs,
                           note: fetches == 1 ? "" : "JWKS fetched \(fetches) times (expected once)")
        }

        // AuthHubOIDC's IDTokenValidator (RS256).
        if options.wants("idtoken.oidc.rs256") {
            let token = try await signer.sign(oidcClaims(), kid: JWKIdentifier(string: kid))
            rows.append(try await oidcRow("idtoken.oidc.rs256", token: token, jwks: jwks, keys: verifier,
                                          baselineLabel: "jwt-kit verify(_:as:), same key and claims"))
        }
        // AuthHubOIDC's IDTokenValidator (ES256: a P-256 key, e.g. Openfort v1's JWKS), same claims.
        if options.wants("idtoken.oidc.es256") {
            let ecKid = "bench-ec-key-1"
            let ecBacking = P256.Signing.PrivateKey()
            let ecPrivate = try ES256PrivateKey(backing: ecBacking)
            let point = [UInt8](ecBacking.publicKey.x963Representation)  // 0x04 || x || y
            let ecJWKS = """
                {"keys":[{"kty":"EC","kid":"\(ecKid)","use":"sig","alg":"ES256","crv":"P-256","x":"\(base64url(point[1..<33]))","y":"\(base64url(point[33..<65]))"}]}
                """
            let ecSigner = JWTKeyCollection()
            await ecSigner.add(ecdsa: ecPrivate, kid: JWKIdentifier(string: ecKid))
            let ecVerifier = JWTKeyCollection()
            await ecVerifier.add(ecdsa: ecPrivate.publicKey, kid: JWKIdentifier(string: ecKid))
            let token = try await ecSigner.sign(oidcClaims(), kid: JWKIdentifier(string: ecKid))
            rows.append(try await oidcRow("idtoken.oidc.es256", token: token, jwks: ecJWKS, keys: ecVerifier,
                                          baselineLabel: "jwt-kit verify(_:as:), same P-256 key and claims"))
        }

        // AuthHubFirebase's FirebaseIDTokenVerifier (RS256, production mode with a cached key set).
        if options.wants("idtoken.firebase.rs256") {
            let projectId = "bench-project"
            let issuer = "https://securetoken.google.com/\(projectId)"
            let token = try await signer.sign(
                BaselineIDClaims(iss: IssuerClaim(value: issuer), sub: SubjectClaim(value: "bench-uid-0123456789"), aud: AudienceClaim(value: projectId),
                                 exp: ExpirationClaim(value: now.addingTimeInterval(3600)), iat: IssuedAtClaim(value: now.addingTimeInterval(-5)),
                                 auth_time: Int(now.timeIntervalSince1970) - 5, email: "ada@example.com", name: "Ada Lovelace"),
                kid: JWKIdentifier(string: kid))
            let transport = FixedDocumentTransport(body: Data(jwks.utf8))
            let api = APIClient(provider: "firebase", baseURL: URL(string: "https://www.googleapis.com/")!, transport: transport)
            let cache = FirebasePublicKeyCache(source: .jwks("https://keys.bench.invalid/jwks.json"), api: api)
            let firebase = FirebaseIDTokenVerifier(projectId: projectId, mode: .production(cache), clock: SystemClock())
            let secret = Secret(token)
            _ = try await firebase.verify(secret)
            let baseline = baselineRun(token, issuer: issuer, audience: projectId)
            let result = try await paired(samples: options.samples, baseline: baseline, subject: {
                try await Clock.perOp(ops) { for _ in 0..<ops { _ = try await firebase.verify(secret) } }
            })
            let allocOps = options.batch(500)
            let allocs = try await Allocations.perOp(allocOps) { for _ in 0..<allocOps { _ = try await firebase.verify(secret) } }
            let baseAllocs = try await Allocations.perOp(allocOps) {
                for _ in 0..<allocOps { _ = try await verifier.verify(token, as: BaselineIDClaims.self) }
            }
            let fetches = transport.counter.withLock { $0 }
            rows.append(timeRow("idtoken.firebase.rs256", result, unit: "µs/op", baseline: "jwt-kit verify(_:as:), same key and claims",
                                targetRatio: 1.2, allocs: allocs, baselineAllocs: baseAllocs,
                                note: fetches == 1 ? "" : "key set fetched \(fetches) times (expected once)"))
        }
        return rows
    }
}
