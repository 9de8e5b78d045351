import AuthHub
import AuthHubOIDC
import AuthHubWebCore
import Crypto
import Foundation

// MARK: 14. DPoP proofs at a resource server

/// The fixed key of the seeds' proofs (a valid P-256 scalar) and its thumbprint, which the fuzzed
/// proofs are checked against as the access token's `cnf.jkt`.
let fuzzDPoPKey: P256.Signing.PrivateKey = {
    guard let key = try? P256.Signing.PrivateKey(rawRepresentation: (1...32).map { UInt8($0) }) else { fatalError("fixed P-256 key") }
    return key
}()
let fuzzDPoPJWK: [String: JSONValue] = {
    let point = fuzzDPoPKey.publicKey.rawRepresentation
    return ["kty": "EC", "crv": "P-256", "x": .string(base64url(point.prefix(32))), "y": .string(base64url(point.suffix(32)))]
}()
let fuzzDPoPThumbprint = (try? JWKThumbprint.sha256(fuzzDPoPJWK)) ?? ""
let fuzzDPoPURI = URL(string: "https://api.example.com/v1/things")!
let fuzzDPoPToken = "fuzz-access-token"
let fuzzDPoPClock = FuzzClock()
/// Nonces from a fixed key, so a seed's nonce is accepted on every run.
let fuzzDPoPNonces: DPoPNonceIssuer? = try? DPoPNonceIssuer(key: Secret([UInt8](repeating: 9, count: 32)), window: 3_600, clock: fuzzDPoPClock)

/// A proof of the fixed key with these claims (the seeds).
func fuzzDPoPProof(_ claims: [String: JSONValue], header: [String: JSONValue]? = nil) -> String {
    let head: JSONValue = .object(header ?? ["typ": "dpop+jwt", "alg": "ES256", "jwk": .object(fuzzDPoPJWK)])
    let input = base64url((try? head.serialized()) ?? Data()) + "." + base64url((try? JSONValue.object(claims).serialized()) ?? Data())
    let signature = (try? fuzzDPoPKey.signature(for: Data(input.utf8)).rawRepresentation) ?? Data()
    return input + "." + base64url(signature)
}

/// Seam: `DPoPProofVerifier.verify` (every check, ES256/RS256/PS256, with and without nonces, the
/// replay cache), `DPoPNonceIssuer.accepts`, `DPoPNonceCache.remember` and `JWKThumbprint.sha256`.
/// Script: a mode byte, the proof, the method, then a nonce string.
let dpopTarget = FuzzTarget(name: "dpop", summary: "DPoP proofs at a resource server, nonces, JWK thumbprints") { bytes in
    var reader = FuzzReader(bytes)
    let mode = reader.byte()
    let proof = reader.string()
    let method = reader.pick(["GET", "POST", "get", ""])
    let nonce = reader.string()
    let withNonces = mode & 1 == 1
    let verifier = DPoPProofVerifier(allowedAlgorithms: mode & 2 == 2 ? ["ES256", "RS256", "PS256"] : ["ES256"],
                                     replayCache: InMemoryReplayCache(capacity: 4, clock: fuzzDPoPClock),
                                     nonces: withNonces ? fuzzDPoPNonces : nil, clock: fuzzDPoPClock)
    runBlocking {
        _ = try? await verifier.verify(proof, method: method, uri: fuzzDPoPURI, accessToken: mode & 4 == 4 ? nil : Secret(fuzzDPoPToken),
                                       boundThumbprint: mode & 8 == 8 ? nil : fuzzDPoPThumbprint)
    }
    _ = fuzzDPoPNonces?.accepts(nonce)
    DPoPNonceCache(capacity: 2).remember(nonce, for: fuzzDPoPURI)
    if let object = (try? JSONValue.parse(Data(nonce.utf8)))?.objectValue { _ = try? JWKThumbprint.sha256(object) }
}

func dpopSeeds() -> [(name: String, bytes: [UInt8])] {
    let now = fuzzDPoPClock.now.timeIntervalSince1970
    let ath = base64url(SHA256.hash(data: Data(fuzzDPoPToken.utf8)))
    let claims: [String: JSONValue] = ["jti": "seed-1", "htm": "GET", "htu": .string(fuzzDPoPURI.absoluteString), "iat": .number(now), "ath": .string(ath)]
    let valid = fuzzDPoPProof(claims)
    var withNonce = claims
    withNonce["jti"] = "seed-2"
    withNonce["nonce"] = .string(fuzzDPoPNonces?.current() ?? "")
    let noneAlg = fuzzDPoPProof(claims, header: ["typ": "dpop+jwt", "alg": "none", "jwk": .object(fuzzDPoPJWK)])
    func script(_ mode: UInt8, _ proof: String, nonce: String = "") -> [UInt8] {
        [mode] + Script.chunk(proof) + [0] + Script.chunk(nonce)
    }
    return [
        ("valid", script(0, valid)),
        ("valid-with-nonce", script(1, fuzzDPoPProof(withNonce), nonce: fuzzDPoPNonces?.current() ?? "")),
        ("alg-none", script(2, noneAlg)),
        ("jwk-thumbprint", script(12, valid, nonce: #"{"kty":"EC","crv":"P-256","x":"AAAA","y":"BBBB"}"#)),
    ]
}

// MARK: 15. Back-channel logout tokens

/// The fuzz issuer's logout tokens, checked against the fuzz JWKS (`rsa-1`, `ec-1`) for client
/// `fuzz-client` (made per input, as the jwt target's validator: no `Data` held in a global).
func fuzzLogoutValidator() -> LogoutTokenValidator {
    let keys = FixedTransport(replies: ["/jwks.json": HTTPReply(status: 200, headerFields: [.contentType: "application/json"], body: fuzzJWKS)])
    let api = APIClient(provider: "fuzz", baseURL: URL(fileURLWithPath: "/"), transport: keys, clock: fuzzDPoPClock, random: FuzzRandom())
    return LogoutTokenValidator(issuer: fuzzIssuer, clientId: fuzzClientID,
                                keys: JWKSCache(jwksURI: "https://issuer.example.com/jwks.json", api: api, clock: fuzzDPoPClock), clock: fuzzDPoPClock)
}

/// Seam: `LogoutTokenValidator.validate` (decoding, typ, algorithm and key, signature, iss, aud, iat,
/// exp, jti, events, sid/sub, nonce). The input is the token's text.
let logoutTokenTarget = FuzzTarget(name: "logout-token", summary: "OpenID back-channel logout tokens (LogoutTokenValidator)") { bytes in
    let token = String(decoding: bytes, as: UTF8.self)
    runBlocking { _ = try? await fuzzLogoutValidator().validate(Secret(token)) }
}

func logoutTokenSeeds() -> [(name: String, bytes: [UInt8])] {
    let now = fuzzDPoPClock.now.timeIntervalSince1970
    let claims = #"{"iss":"\#(fuzzIssuer)","aud":"\#(fuzzClientID)","iat":\#(Int(now)),"exp":\#(Int(now) + 120),"jti":"j-1","sub":"user-1","sid":"s-1","events":{"http://schemas.openid.net/event/backchannel-logout":{}}}"#
    let rsa = signedToken(header: Array(#"{"alg":"RS256","kid":"rsa-1","typ":"logout+jwt"}"#.utf8), payload: Array(claims.utf8), rsa: true)
    let ec = signedToken(header: Array(#"{"alg":"ES256","kid":"ec-1"}"#.utf8), payload: Array(claims.utf8), rsa: false)
    let none = base64url(Array(#"{"alg":"none"}"#.utf8)) + "." + base64url(Array(claims.utf8)) + "."
    return [("rs256", Array(rsa.utf8)), ("es256", Array(ec.utf8)), ("alg-none", Array(none.utf8))]
}
