import enum AuthHub.Base64URL
import enum AuthHub.JSONValue
import Crypto
import Foundation
import _CryptoExtras

/// How a client authenticates at the tenant's back-channel endpoints (`/oauth/token`,
/// `/oauth/revoke`, `/oauth/par`, `/oauth/device/code`): Auth0's `token_endpoint_auth_method`.
///
/// Facts (Auth0 docs, “Authenticate with Private Key JWT” and application settings): `none` is a
/// public client (native and single-page apps); `client_secret_post` sends `client_id` and
/// `client_secret` in the body (Auth0's default for regular web applications);
/// `client_secret_basic` sends them as HTTP Basic credentials (RFC 6749, section 2.3.1: each
/// form-urlencoded, joined by `:`, base64); `private_key_jwt` sends a JWT signed with a key whose
/// public half was registered (RFC 7523, section 2.2).
enum Auth0TokenEndpointAuthMethod: String, Sendable, CaseIterable {
    case none
    case clientSecretPost = "client_secret_post"
    case clientSecretBasic = "client_secret_basic"
    case privateKeyJWT = "private_key_jwt"
}

/// A public key registered for `private_key_jwt` (Management API
/// `client_authentication_methods.private_key_jwt.credentials[]`, `credential_type: "public_key"`).
struct Auth0ClientCredential: Sendable {
    /// The RSA public key (2048 bits or more).
    var key: _RSA.Signing.PublicKey
    /// The one algorithm assertions signed with this key may name (`RS256`, `RS384` or `PS256`).
    var algorithm: String
    /// The key id, when one was registered.
    var kid: String?
}

/// Client assertions (`private_key_jwt`, RFC 7523) as the emulated tenant checks them, with
/// swift-crypto and independently of any client module.
///
/// ``verify(_:clientId:audience:credentials:now:)`` checks, in this order, each refusal an
/// ``Auth0ClientAssertion/Refusal`` (rendered `401 invalid_client`):
/// 1. at most ``maximumLength`` characters, a compact JWS of three base64url parts whose header and
///    payload are JSON objects;
/// 2. the header: `alg` one of ``algorithms`` (so `none`, `HS256`, `ES256` … are refused), no `crit`;
/// 3. a registered credential whose algorithm is `alg` and, when both the header and the credential
///    have a `kid`, the same `kid`; then the signature verifies with one of them;
/// 4. the payload: `iss` and `sub` both the client id; `aud` the tenant's issuer (a string, or an
///    array holding it); `exp` a number in the future, at most ``maximumLifetime`` seconds after
///    the emulator's clock and after `iat`; `iat`, when present, a number not more than
///    ``clockSkew`` seconds ahead; `nbf`, when present, not ahead either; `jti` 1 to
///    ``maximumJTILength`` characters.
///
/// The replay check (`jti`, single use) is the tenant's (``Auth0Tenant/admitAssertion(clientId:jti:expiresAt:now:)``).
enum Auth0ClientAssertion {
    /// `client_assertion_type` of RFC 7523, section 2.2.
    static let assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    /// The algorithms Auth0 accepts for client assertions (and for registered credentials).
    static let algorithms = ["RS256", "RS384", "PS256"]
    /// The longest assertion read.
    static let maximumLength = 16_384
    /// Auth0: "a maximum token lifetime of 5 minutes".
    static let maximumLifetime: TimeInterval = 300
    /// How far `iat` or `nbf` may lie ahead of the emulator's clock.
    static let clockSkew: TimeInterval = 60
    /// The longest `jti` accepted.
    static let maximumJTILength = 256

    /// An assertion that failed a check: the description of `401 invalid_client`.
    struct Refusal: Error, Sendable {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// What a verified assertion tells the tenant: its `jti` and when it stops being valid.
    struct Verified: Sendable {
        let jti: String
        let expiresAt: Date
    }

    /// The unverified `sub` (else `iss`) of an assertion: the client it claims to be, read only to
    /// find the client whose credentials then verify it.
    static func claimedClient(_ compact: String) -> String? {
        guard compact.utf8.count <= maximumLength else { return nil }
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let data = Base64URL.decode(String(parts[1])),
              let payload = (try? JSONValue.parse(data))?.objectValue
        else { return nil }
        return payload["sub"]?.stringValue ?? payload["iss"]?.stringValue
    }

    /// Verifies `compact` for `clientId`; see the type's documentation for the checks.
    static func verify(
        _ compact: String, clientId: String, audience: String, credentials: [Auth0ClientCredential], now: Date
    ) throws(Refusal) -> Verified {
        guard compact.utf8.count <= maximumLength else { throw Refusal("The client assertion is too long.") }
        let jws: Auth0CompactJWS
        do {
            jws = try Auth0CompactJWS(compact)
        } catch .notCompact {
            throw Refusal("The client assertion is not a compact JWS.")
        } catch {
            throw Refusal("The client assertion's header or payload is not a JSON object.")
        }
        let (header, payload, signature) = (jws.header, jws.payload, jws.signature)

        guard let alg = header["alg"]?.stringValue, algorithms.contains(alg) else {
            throw Refusal("The client assertion's alg is not supported; use RS256, RS384 or PS256.")
        }
        guard header["crit"] == nil else { throw Refusal("The client assertion has critical header parameters.") }
        var kid: String?
        if let value = header["kid"] {
            guard let text = value.stringValue else { throw Refusal("The client assertion's kid is not a string.") }
            kid = text
        }
        let candidates = credentials.filter { credential in
            guard credential.algorithm == alg else { return false }
            if let kid, let registered = credential.kid { return kid == registered }
            return true
        }
        guard !candidates.isEmpty else {
            throw Refusal("No credential of the client matches the client assertion's alg and kid.")
        }
        guard candidates.contains(where: { isValid(signature, of: jws.signingInput, alg: alg, key: $0.key) }) else {
            throw Refusal("The client assertion's signature is invalid.")
        }

        guard payload["iss"]?.stringValue == clientId else { throw Refusal("The client assertion's iss must be the client_id.") }
        guard payload["sub"]?.stringValue == clientId else { throw Refusal("The client assertion's sub must be the client_id.") }
        let audienceMatches: Bool
        switch payload["aud"] {
        case .string(let text): audienceMatches = text == audience
        case .array(let list): audienceMatches = list.count <= 16 && list.contains(.string(audience))
        default: audienceMatches = false
        }
        guard audienceMatches else { throw Refusal("The client assertion's aud must be \(audience).") }
        guard let exp = time(payload["exp"]) else { throw Refusal("The client assertion has no valid exp.") }
        guard exp > now else { throw Refusal("The client assertion has expired.") }
        guard exp.timeIntervalSince(now) <= maximumLifetime else {
            throw Refusal("The client assertion's lifetime exceeds 5 minutes.")
        }
        if let value = payload["iat"] {
            guard let iat = time(value) else { throw Refusal("The client assertion's iat is not a number.") }
            guard iat.timeIntervalSince(now) <= clockSkew else { throw Refusal("The client assertion's iat is in the future.") }
            guard exp.timeIntervalSince(iat) <= maximumLifetime else {
                throw Refusal("The client assertion's lifetime exceeds 5 minutes.")
            }
        }
        if let value = payload["nbf"] {
            guard let nbf = time(value), nbf.timeIntervalSince(now) <= clockSkew else {
                throw Refusal("The client assertion is not valid yet (nbf).")
            }
        }
        guard let jti = payload["jti"]?.stringValue, (1...maximumJTILength).contains(jti.count) else {
            throw Refusal("The client assertion has no valid jti.")
        }
        return Verified(jti: jti, expiresAt: exp)
    }

    /// A NumericDate claim as a date, range-checked.
    private static func time(_ value: JSONValue?) -> Date? {
        guard case .number(let seconds)? = value, seconds.isFinite, seconds >= 0, seconds < 1e11 else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }

    /// Whether `signature` is `alg`'s signature of `input` by `key`.
    static func isValid(_ signature: Data, of input: Data, alg: String, key: _RSA.Signing.PublicKey) -> Bool {
        // An RSA signature is exactly as long as the modulus.
        guard signature.count == (key.keySizeInBits + 7) / 8 else { return false }
        let rsa = _RSA.Signing.RSASignature(rawRepresentation: signature)
        switch alg {
        case "RS256": return key.isValidSignature(rsa, for: SHA256.hash(data: input), padding: .insecurePKCS1v1_5)
        case "RS384": return key.isValidSignature(rsa, for: SHA384.hash(data: input), padding: .insecurePKCS1v1_5)
        case "PS256": return key.isValidSignature(rsa, for: SHA256.hash(data: input), padding: .PSS)
        default: return false
        }
    }
}

/// The HTTP Basic client credentials of a request (RFC 6749, section 2.3.1).
struct Auth0BasicCredentials: Sendable {
    let clientId: String
    let clientSecret: String

    /// Reads `Authorization: Basic base64(urlencode(id):urlencode(secret))`; nil when the header
    /// is not Basic, and a ``Auth0ClientAssertion/Refusal`` when it is Basic but malformed.
    static func parse(_ header: String?) throws(Auth0ClientAssertion.Refusal) -> Auth0BasicCredentials? {
        guard let header else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic" else { return nil }
        let encoded = parts[1].trimmingCharacters(in: .whitespaces)
        guard encoded.utf8.count <= 4_096, let data = Data(base64Encoded: encoded),
              let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else { throw .init("The Authorization header's Basic credentials are malformed.") }
        let id = decode(text[..<colon])
        let secret = decode(text[text.index(after: colon)...])
        guard !id.isEmpty else { throw .init("The Authorization header's Basic credentials are malformed.") }
        return Auth0BasicCredentials(clientId: id, clientSecret: secret)
    }

    private static func decode(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
