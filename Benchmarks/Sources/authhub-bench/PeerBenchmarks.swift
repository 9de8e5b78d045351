import AuthHub
import AuthHubOIDC
import Crypto
import _CryptoExtras
import Foundation
import JWTKit

/// ID-token verification against the floor and against peers, in the same run:
/// - `rs256.raw-verify`: AuthHubOIDC's `IDTokenValidator` (signature and every claim check) against
///   the bare RSA-2048 PKCS#1 v1.5 check of the same signature over the same bytes with swift-crypto
///   (`_RSA.Signing.PublicKey`, SHA-256 included), the floor under any JWT library; jwt-kit against
///   the same floor as a reported row; `es256.raw-verify` likewise for P-256.
/// - `peers.{rs256,es256}.{pyjwt,joserfc}`: the same validator against Python's PyJWT and joserfc
///   verifying the same token with the same key and checks (`Benchmarks/peers/jwt_peers.py`, one
///   process for the run; each batch is timed inside it and alternated with AuthHub's batches like
///   every other row).
enum PeerBenchmarks {
    static let names = ["rs256.raw-verify", "rs256.jwt-kit.raw-verify", "es256.raw-verify",
                        "peers.rs256.pyjwt", "peers.rs256.joserfc", "peers.es256.pyjwt", "peers.es256.joserfc"]

    struct Subject {
        let token: String
        let jwk: [String: String]
        let alg: String
        let validate: @Sendable () async throws -> Void
    }

    static func run(_ options: BenchOptions) async throws -> [Row] {
        guard names.contains(where: options.wants) else { return [] }
        let issuer = "https://issuer.bench.invalid/", clientId = "bench-client", now = Date()
        let claims = BaselineIDClaims(iss: IssuerClaim(value: issuer), sub: SubjectClaim(value: "auth0|bench-user"),
                                      aud: AudienceClaim(value: clientId), exp: ExpirationClaim(value: now.addingTimeInterval(24 * 3600)),
                                      iat: IssuedAtClaim(value: now), auth_time: Int(now.timeIntervalSince1970),
                                      email: "ada@example.com", name: "Ada Lovelace")
        let ops = options.batch(2_000)
        var rows: [Row] = []

        /// A validator with the JWKS cached, checked once.
        func validator(jwks: String, token: String) async throws -> @Sendable () async throws -> Void {
            let api = APIClient(provider: "oidc", baseURL: URL(string: issuer)!, transport: FixedDocumentTransport(body: Data(jwks.utf8)))
            let validator = IDTokenValidator(keys: JWKSCache(jwksURI: issuer + ".well-known/jwks.json", api: api), clock: SystemClock())
            let expectations = IDTokenExpectations(issuer: issuer, clientId: clientId)
            let secret = Secret(token)
            _ = try await validator.validate(secret, expecting: expectations)
            return { _ = try await validator.validate(secret, expecting: expectations) }
        }
        func batch(_ body: @Sendable () async throws -> Void) async throws -> Double {
            try await Clock.perOp(ops) { for _ in 0..<ops { try await body() } }
        }
        func parts(_ token: String) -> (signingInput: Data, signature: Data) {
            let pieces = token.split(separator: ".")
            return (Data((pieces[0] + "." + pieces[1]).utf8), Data(base64urlDecoded: String(pieces[2])) ?? Data())
        }

        // RS256.
        let rsaBacking = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let rsaPrivate = try Insecure.RSA.PrivateKey(backing: rsaBacking)
        let primitives = try rsaPrivate.publicKey.getKeyPrimitives()
        let rsaJWK = ["kty": "RSA", "kid": "bench-key-1", "use": "sig", "alg": "RS256",
                      "n": base64url(primitives.modulus), "e": base64url(primitives.publicExponent)]
        let rsaKeys = JWTKeyCollection()
        await rsaKeys.add(rsa: rsaPrivate, digestAlgorithm: .sha256, kid: "bench-key-1")
        let rsaToken = try await rsaKeys.sign(claims, kid: "bench-key-1")
        let rsa = Subject(token: rsaToken, jwk: rsaJWK, alg: "RS256", validate: try await validator(jwks: jwksDocument(rsaJWK), token: rsaToken))

        // ES256.
        let ecBacking = P256.Signing.PrivateKey()
        let ecPrivate = try ES256PrivateKey(backing: ecBacking)
        let point = [UInt8](ecBacking.publicKey.x963Representation)
        let ecJWK = ["kty": "EC", "kid": "bench-ec-key-1", "use": "sig", "alg": "ES256", "crv": "P-256",
                     "x": base64url(point[1..<33]), "y": base64url(point[33..<65])]
        let ecKeys = JWTKeyCollection()
        await ecKeys.add(ecdsa: ecPrivate, kid: "bench-ec-key-1")
        let ecToken = try await ecKeys.sign(claims, kid: "bench-ec-key-1")
        let ec = Subject(token: ecToken, jwk: ecJWK, alg: "ES256", validate: try await validator(jwks: jwksDocument(ecJWK), token: ecToken))

        // The floors.
        if options.wants("rs256.raw-verify") || options.wants("rs256.jwt-kit.raw-verify") {
            let (input, signatureBytes) = parts(rsa.token)
            let key = try _RSA.Signing.PublicKey(n: primitives.modulus, e: primitives.publicExponent)
            let signature = _RSA.Signing.RSASignature(rawRepresentation: signatureBytes)
            guard key.isValidSignature(signature, for: input, padding: .insecurePKCS1v1_5) else { throw BenchFailure("raw RS256 check failed") }
            let raw: () async throws -> Double = {
                Clock.perOp(ops) { for _ in 0..<ops { _ = key.isValidSignature(signature, for: input, padding: .insecurePKCS1v1_5) } }
            }
            if options.wants("rs256.raw-verify") {
                let result = try await paired(samples: options.samples, baseline: raw, subject: { try await batch(rsa.validate) })
                rows.append(timeRow("rs256.raw-verify", result, unit: "µs/op",
                                    baseline: "swift-crypto _RSA.Signing.PublicKey.isValidSignature, same signature and bytes (SHA-256 included)",
                                    targetRatio: 1.3, note: "IDTokenValidator.validate: signature, then iss, aud, exp, iat; JWKS cached"))
            }
            if options.wants("rs256.jwt-kit.raw-verify") {
                BaselineIDClaims.expectedIssuer = issuer
                BaselineIDClaims.expectedAudience = clientId
                let verifier = JWTKeyCollection()
                await verifier.add(rsa: rsaPrivate.publicKey, digestAlgorithm: .sha256, kid: "bench-key-1")
                let token = rsa.token
                let result = try await paired(samples: options.samples, baseline: raw, subject: {
                    try await Clock.perOp(ops) { for _ in 0..<ops { _ = try await verifier.verify(token, as: BaselineIDClaims.self) } }
                })
                var row = timeRow("rs256.jwt-kit.raw-verify", result, unit: "µs/op", baseline: "the same raw check",
                                  targetRatio: .infinity, note: "jwt-kit verify(_:as:) with the same claim checks, for comparison")
                row.target = "report"
                row.verdict = "info"
                rows.append(row)
            }
        }
        if options.wants("es256.raw-verify") {
            let (input, signatureBytes) = parts(ec.token)
            let key = ecBacking.publicKey
            let signature = try P256.Signing.ECDSASignature(rawRepresentation: signatureBytes)
            guard key.isValidSignature(signature, for: input) else { throw BenchFailure("raw ES256 check failed") }
            let result = try await paired(samples: options.samples, baseline: {
                Clock.perOp(ops) { for _ in 0..<ops { _ = key.isValidSignature(signature, for: input) } }
            }, subject: { try await batch(ec.validate) })
            var row = timeRow("es256.raw-verify", result, unit: "µs/op",
                              baseline: "swift-crypto P256.Signing.PublicKey.isValidSignature, same signature and bytes",
                              targetRatio: .infinity, note: "the P-256 check bounds every ES256 row")
            row.target = "report"
            row.verdict = "info"
            rows.append(row)
        }

        // The peers.
        let peerNames = names.filter { $0.hasPrefix("peers.") && options.wants($0) }
        guard !peerNames.isEmpty else { return rows }
        guard let python = options.pythonPath else {
            return rows + peerNames.map { Row.skipped($0, target: "", reason: "no Python with PyJWT and joserfc (--python; Benchmarks/run installs them)") }
        }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../peers/jwt_peers.py").standardizedFileURL.path
        for (subject, alg) in [(rsa, "rs256"), (ec, "es256")] {
            let wanted = ["pyjwt", "joserfc"].filter { options.wants("peers.\(alg).\($0)") }
            guard !wanted.isEmpty else { continue }
            let peer = try LineProcess(python, [script], environment: ProcessInfo.processInfo.environment.filter { $0.key != "LD_PRELOAD" })
            defer { peer.terminate() }
            let setup: [String: Any] = ["op": "setup", "token": subject.token, "jwk": subject.jwk, "alg": subject.alg,
                                        "issuer": issuer, "audience": clientId]
            peer.send(String(decoding: try JSONSerialization.data(withJSONObject: setup), as: UTF8.self))
            guard let line = await peer.nextLine(), let answer = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  answer["ok"] as? Bool == true, let versions = answer["versions"] as? [String: String] else {
                rows += wanted.map { Row.skipped("peers.\(alg).\($0)", target: "", reason: "the Python peers failed to start: \(peer.errors.prefix(300))") }
                continue
            }
            for library in wanted {
                let result = try await paired(samples: options.samples, baseline: {
                    peer.send(#"{"op": "time", "lib": "\#(library)", "n": \#(ops)}"#)
                    guard let line = await peer.nextLine(), let answer = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                          let nanoseconds = answer["ns_per_op"] as? Double else { throw BenchFailure("the Python peer did not answer: \(peer.errors.prefix(300))") }
                    return nanoseconds
                }, subject: { try await batch(subject.validate) })
                let target = library == "pyjwt" ? 1.0 / 3 : 0.5
                let version = "\(library == "pyjwt" ? "PyJWT" : "joserfc") \(versions[library] ?? "?")"
                var row = timeRow("peers.\(alg).\(library)", result, unit: "µs/op",
                                  baseline: "\(version) (Python \(versions["python"] ?? "?"), cryptography \(versions["cryptography"] ?? "?")), same token, key and checks",
                                  targetRatio: alg == "rs256" ? target : .infinity,
                                  note: String(format: "AuthHub is %.2f× as fast as %@", 1 / result.ratios.median, version))
                if alg == "rs256" {
                    row.target = library == "pyjwt" ? "≥ 3× as fast (≤ 0.33×)" : "≥ 2× as fast (≤ 0.50×)"
                } else {
                    row.target = "report"
                    row.verdict = "info"
                }
                rows.append(row)
            }
        }
        return rows
    }

    static func jwksDocument(_ jwk: [String: String]) -> String {
        let members = jwk.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\"\($0.value)\"" }.joined(separator: ",")
        return #"{"keys":[{\#(members)}]}"#
    }
}
