import AuthHub
import AuthHubFirebase
import AuthHubOIDC
import AuthHubOpenfort
import AuthHubTurnkey
import Crypto
import _CryptoExtras
import Foundation

// MARK: 4. Callback URLs

/// The transaction a callback answers (fixed state and nonce; the seeds use them).
let fuzzTransaction = OIDCAuthorizationTransaction(
    url: URL(fileURLWithPath: "/authorize"), clientId: "fuzz-client", redirectURI: "http://127.0.0.1:8080/callback",
    codeVerifier: Secret("fuzz-verifier-0123456789-0123456789-0123456789"), state: Secret("fuzz-state"),
    nonce: Secret("fuzz-nonce"), maxAge: 300, organization: nil, scope: "openid profile")

/// Seam: `OIDCAuthorizationTransaction.parseCallback(_:)` (string and URL forms) and
/// `OpenfortOAuthCallback.parse(_:provider:)`.
let callbackTarget = FuzzTarget(name: "callback", summary: "OIDC and Openfort OAuth callback URLs") { bytes in
    let text = String(decoding: bytes, as: UTF8.self)
    _ = try? fuzzTransaction.parseCallback(text)
    if let url = URL(string: text) { _ = try? fuzzTransaction.parseCallback(url) }
    if let callback = try? OpenfortOAuthCallback.parse(text, provider: "openfort") {
        _ = callback.userID
    }
}

// MARK: 5. JWTs

let fuzzIssuer = "https://issuer.example.com/"
let fuzzClientID = "fuzz-client"
/// An RSA key (RS256, kid `rsa-1`) made once per process: tokens are signed at run time, so the
/// key need not be fixed.
let fuzzRSAKey: _RSA.Signing.PrivateKey = {
    guard let key = try? _RSA.Signing.PrivateKey(keySize: .bits2048) else { fatalError("RSA key generation failed") }
    return key
}()

func rsaSignature(_ input: String) throws -> String {
    let signature = try fuzzRSAKey.signature(for: SHA256.hash(data: Data(input.utf8)), padding: .insecurePKCS1v1_5)
    return base64url(signature.rawRepresentation)
}

/// A fixed P-256 key (ES256, kid `ec-1`).
let fuzzECKey = fuzzP256Key(seed: 2)

/// The JWKS holding both keys (kept as an array: a `Data` in a global is reported by LeakSanitizer,
/// which does not see the pointer inside `Data`'s packed representation).
let fuzzJWKSBytes: [UInt8] = {
    guard let primitives = try? fuzzRSAKey.publicKey.getKeyPrimitives() else { fatalError("RSA key") }
    var keys: [JSONValue] = [["kty": "RSA", "use": "sig", "alg": "RS256", "kid": "rsa-1",
                              "n": .string(base64url(primitives.modulus)), "e": .string(base64url(primitives.publicExponent))]]
    let raw = fuzzECKey.publicKey.rawRepresentation
    keys.append(["kty": "EC", "crv": "P-256", "use": "sig", "alg": "ES256", "kid": "ec-1",
                 "x": .string(base64url(raw.prefix(32))), "y": .string(base64url(raw.suffix(32)))])
    guard let data = try? JSONValue.object(["keys": .array(keys)]).serialized() else { fatalError("JWKS") }
    return Array(data)
}()
var fuzzJWKS: Data { Data(fuzzJWKSBytes) }

/// Signs `header`/`payload` (JSON bytes taken as they are, base64url-encoded) with the RSA or EC key.
func signedToken(header: [UInt8], payload: [UInt8], rsa: Bool) -> String {
    let input = base64url(Data(header)) + "." + base64url(Data(payload))
    if rsa {
        return input + "." + ((try? rsaSignature(input)) ?? "")
    }
    guard let signature = try? fuzzECKey.signature(for: Data(input.utf8)) else { return input + "." }
    return input + "." + base64url(signature.rawRepresentation)
}

func makeValidator(transport: any HTTPTransport, clock: FuzzClock) -> IDTokenValidator {
    let api = APIClient(provider: "oidc", baseURL: URL(fileURLWithPath: "/"), transport: transport, clock: clock, random: FuzzRandom())
    return IDTokenValidator(keys: JWKSCache(jwksURI: "https://issuer.example.com/jwks.json", api: api), clock: clock)
}

let fuzzExpectations = IDTokenExpectations(issuer: fuzzIssuer, clientId: fuzzClientID, nonce: Secret("fuzz-nonce"), maxAge: 300)

/// Seam: `IDTokenValidator.validate` (OIDC, over a `JWKSCache` fed by a transport),
/// `FirebaseIDTokenVerifier.verify` (production over `FirebasePublicKeyCache`, and emulator),
/// `TurnkeySessionJWT`, and through them AuthHub's unverified JWT reader. Modes (first byte): 0 raw token, fixed JWKS; 1 header
/// and payload JSON signed here (RS256 or ES256), fixed JWKS — reaches every claim check; 2 fuzzed
/// JWKS reply, token signed here; 3 Firebase, claims signed here (RS256), fixed JWKS; 4 Firebase,
/// fuzzed key reply (JWKS or x509 form, with Cache-Control), raw token; 5 Firebase emulator
/// (unsigned tokens), raw token; 6 Turnkey session JWT.
let jwtTarget = FuzzTarget(name: "jwt", summary: "JWT decoding, OIDC ID-token validation, Firebase verifier, Turnkey session JWT") { bytes in
    var reader = FuzzReader(bytes)
    let mode = reader.byte() % 7
    let clock = FuzzClock()
    let fixedKeys = FixedTransport(replies: ["/jwks.json": HTTPReply(status: 200, headerFields: [.contentType: "application/json"], body: fuzzJWKS),
                                             "/firebase-keys": HTTPReply(status: 200, headerFields: [.cacheControl: "public, max-age=3600"], body: fuzzJWKS)])
    switch mode {
    case 0:
        let token = Secret(String(decoding: reader.rest(), as: UTF8.self))
        runBlocking { _ = try? await makeValidator(transport: fixedKeys, clock: clock).validate(token, expecting: fuzzExpectations) }
    case 1:
        let rsa = reader.bool()
        let token = Secret(signedToken(header: reader.chunk(), payload: reader.rest(), rsa: rsa))
        runBlocking { _ = try? await makeValidator(transport: fixedKeys, clock: clock).validate(token, expecting: fuzzExpectations) }
    case 2:
        let rsa = reader.bool()
        let token = Secret(signedToken(header: reader.chunk(), payload: reader.chunk(), rsa: rsa))
        let transport = FuzzTransport(reader)
        runBlocking { _ = try? await makeValidator(transport: transport, clock: clock).validate(token, expecting: fuzzExpectations) }
    case 3, 4:
        let token: Secret<String>
        let transport: any HTTPTransport
        let source: FirebasePublicKeyCache.Source
        if mode == 3 {
            token = Secret(signedToken(header: reader.chunk(), payload: reader.rest(), rsa: true))
            transport = fixedKeys
            source = .jwks("https://keys.example.com/firebase-keys")
        } else {
            token = Secret(String(decoding: reader.chunk(), as: UTF8.self))
            source = reader.bool() ? .jwks("https://keys.example.com/firebase-keys") : .x509("https://keys.example.com/firebase-keys")
            transport = FuzzTransport(reader)
        }
        let context = ProviderContext(transport: transport, clock: clock, random: FuzzRandom())
        let verifier = FirebaseIDTokenVerifier(configuration: FirebaseConfiguration(apiKey: Secret("key"), projectId: "fuzz-project"),
                                               context: context, keySource: source, provider: "firebase")
        runBlocking { _ = try? await verifier.verify(token) }
    case 5:
        let token = Secret(String(decoding: reader.rest(), as: UTF8.self))
        let verifier = FirebaseIDTokenVerifier(projectId: "fuzz-project", mode: .emulator, clock: clock, provider: "firebase")
        runBlocking { _ = try? await verifier.verify(token) }
    default:
        let token = Secret(String(decoding: reader.rest(), as: UTF8.self))
        _ = IDTokenValidator.decode(token)
        _ = FirebaseIDTokenVerifier.decode(token)
        if let jwt = try? TurnkeySessionJWT(token) {
            _ = try? jwt.validate(expectedPublicKey: jwt.publicKey, expectedOrganizationId: nil, now: clock.now)
        }
    }
}
