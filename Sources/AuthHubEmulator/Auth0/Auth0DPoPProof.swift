import enum AuthHub.Base64URL
import enum AuthHub.JSONValue
import Crypto
import Foundation

/// A DPoP proof (RFC 9449) that passed the emulator's own checks: the `DPoP` header of one request,
/// read and verified here with swift-crypto, independently of any client module.
///
/// ``verify(_:method:target:accessToken:now:)`` makes the checks of RFC 9449, section 4.3, that need
/// no tenant state, in this order, each refusal an ``Auth0DPoPRefusal/invalidProof(_:)``:
/// 1. at most ``maximumLength`` characters, a compact JWS of three base64url (no padding) parts;
/// 2. the JOSE header: `typ` `dpop+jwt`, `alg` `ES256` (the only algorithm the emulated tenant
///    supports; `none`, `HS256`, `RS256` … are refused), no `crit`, and a `jwk` that is a public EC
///    P-256 key (`kty` `EC`, `crv` `P-256`, `x` and `y` of 32 bytes each in canonical base64url, a
///    point on the curve) holding no private member (`d`);
/// 3. the signature (64 bytes `r || s`) verifies over `header.payload` with that key;
/// 4. the payload: `jti` (1 to ``maximumJTILength`` characters), `htm` equal to the request's
///    method, `htu` equal to the URL the client used (see ``Auth0DPoPTarget``; a query or fragment
///    in `htu` is ignored), `iat` a number within ``iatWindow`` seconds of the emulator's clock
///    (either side), `nonce` (kept for the tenant's check) a string when present;
/// 5. at a resource request (`accessToken` given): `ath` equal to base64url(SHA-256(access token)).
///
/// The replay check (`jti`) and the server nonce are the tenant's (``Auth0DPoPState``).
struct Auth0DPoPProof: Sendable, Equatable {
    /// The longest `DPoP` header value read (a proof with a P-256 key is about 600 characters).
    static let maximumLength = 8_192
    /// How far `iat` may lie from the emulator's clock, either side, in seconds.
    static let iatWindow: TimeInterval = 300
    /// The longest `jti` accepted.
    static let maximumJTILength = 256
    /// The longest `htu` or `nonce` accepted.
    static let maximumClaimLength = 2_048
    /// The one signing algorithm the tenant accepts in proofs (`dpop_signing_alg_values_supported`).
    static let algorithm = "ES256"

    /// The RFC 7638 thumbprint of the proof's key (base64url of the SHA-256 of
    /// `{"crv":"P-256","kty":"EC","x":"…","y":"…"}`), the `jkt` the tokens are bound to.
    let thumbprint: String
    /// The proof's `jti`.
    let jti: String
    /// The proof's `iat`.
    let issuedAt: Date
    /// The proof's `nonce`, when it has one.
    let nonce: String?

    /// Verifies `compact` for a request; see the type's documentation for the checks.
    /// - Parameters:
    ///   - compact: the value of the request's one `DPoP` header.
    ///   - method: the request's method (`POST`, `GET`, …), compared with `htm` exactly.
    ///   - target: the URL the client used, compared with `htu`.
    ///   - accessToken: the access token presented with the proof at a resource request (then `ath`
    ///     is required and checked); nil at the token endpoint.
    ///   - now: the emulator's clock.
    /// - Throws: ``Auth0DPoPRefusal/invalidProof(_:)`` naming the first check that failed.
    static func verify(
        _ compact: String, method: String, target: Auth0DPoPTarget, accessToken: String?, now: Date
    ) throws(Auth0DPoPRefusal) -> Auth0DPoPProof {
        guard compact.utf8.count <= maximumLength else { throw .invalidProof("The DPoP proof is too long.") }
        let jws: Auth0CompactJWS
        do {
            jws = try Auth0CompactJWS(compact)
        } catch .notCompact {
            throw .invalidProof("The DPoP proof is not a compact JWS.")
        } catch {
            throw .invalidProof("The DPoP proof's header or payload is not a JSON object.")
        }
        let (header, payload, signatureData) = (jws.header, jws.payload, jws.signature)

        guard header["typ"]?.stringValue?.lowercased() == "dpop+jwt" else {
            throw .invalidProof("The DPoP proof's typ must be dpop+jwt.")
        }
        guard header["alg"]?.stringValue == algorithm else {
            throw .invalidProof("The DPoP proof's alg is not supported; use ES256.")
        }
        guard header["crit"] == nil else { throw .invalidProof("The DPoP proof has critical header parameters.") }
        guard let jwk = header["jwk"]?.objectValue else { throw .invalidProof("The DPoP proof has no jwk header.") }
        let key = try publicKey(jwk)

        guard signatureData.count == 64,
              let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureData),
              key.key.isValidSignature(signature, for: jws.signingInput)
        else { throw .invalidProof("The DPoP proof's signature is invalid.") }

        guard let jti = payload["jti"]?.stringValue, (1...maximumJTILength).contains(jti.count) else {
            throw .invalidProof("The DPoP proof has no valid jti.")
        }
        guard let htm = payload["htm"]?.stringValue, htm == method else {
            throw .invalidProof("The DPoP proof's htm does not match the request method.")
        }
        guard let htu = payload["htu"]?.stringValue, htu.utf8.count <= maximumClaimLength, target.matches(htu) else {
            throw .invalidProof("The DPoP proof's htu does not match the request URL.")
        }
        guard case .number(let iat) = payload["iat"], iat.isFinite, abs(iat) < 1e11 else {
            throw .invalidProof("The DPoP proof has no valid iat.")
        }
        let issuedAt = Date(timeIntervalSince1970: iat)
        guard abs(issuedAt.timeIntervalSince(now)) <= iatWindow else {
            throw .invalidProof("The DPoP proof's iat is outside the acceptable window.")
        }
        var nonce: String?
        if let value = payload["nonce"] {
            guard let text = value.stringValue, !text.isEmpty, text.utf8.count <= maximumClaimLength else {
                throw .invalidProof("The DPoP proof's nonce is not a string.")
            }
            nonce = text
        }
        if let accessToken {
            let expected = Base64URL.encode(SHA256.hash(data: Data(accessToken.utf8)))
            guard payload["ath"]?.stringValue == expected else {
                throw .invalidProof("The DPoP proof's ath does not match the access token.")
            }
        }
        return Auth0DPoPProof(thumbprint: key.thumbprint, jti: jti, issuedAt: issuedAt, nonce: nonce)
    }

    /// The public key of a proof's `jwk` header and its RFC 7638 thumbprint.
    /// - Throws: ``Auth0DPoPRefusal/invalidProof(_:)`` for anything but a public EC P-256 key.
    static func publicKey(_ jwk: [String: JSONValue]) throws(Auth0DPoPRefusal) -> (key: P256.Signing.PublicKey, thumbprint: String) {
        guard jwk["d"] == nil else { throw .invalidProof("The DPoP proof's jwk holds a private key.") }
        guard jwk["kty"]?.stringValue == "EC", jwk["crv"]?.stringValue == "P-256" else {
            throw .invalidProof("The DPoP proof's jwk must be an EC P-256 key.")
        }
        guard let x = jwk["x"]?.stringValue, let y = jwk["y"]?.stringValue, x.utf8.count == 43, y.utf8.count == 43,
              Auth0CompactJWS.isBase64URL(Substring(x)), Auth0CompactJWS.isBase64URL(Substring(y)),
              let xBytes = Base64URL.decode(x), let yBytes = Base64URL.decode(y), xBytes.count == 32, yBytes.count == 32,
              // Canonical encodings only, so that one key has one thumbprint.
              Base64URL.encode(xBytes) == x, Base64URL.encode(yBytes) == y,
              let key = try? P256.Signing.PublicKey(x963Representation: Data([0x04]) + xBytes + yBytes)
        else { throw .invalidProof("The DPoP proof's jwk is not a valid P-256 public key.") }
        return (key, thumbprint(x: x, y: y))
    }

    /// The RFC 7638 thumbprint of the P-256 key with coordinates `x` and `y` (base64url): the
    /// SHA-256 of the required members in lexicographic order, without whitespace, in base64url.
    static func thumbprint(x: String, y: String) -> String {
        let canonical = #"{"crv":"P-256","kty":"EC","x":""# + x + #"","y":""# + y + #""}"#
        return Base64URL.encode(SHA256.hash(data: Data(canonical.utf8)))
    }
}
