import Crypto
import Foundation

/// The P-256 key a DPoP-bound session proves possession of (RFC 9449): made at sign-in, kept with
/// the session in its store (``Session/dpopKey``), and used to sign a proof for every request that
/// sends the session's tokens.
///
/// The private key never leaves this value except as the ``stored`` secret the session keeps
/// (sealed wherever the session store seals, like the tokens). `description` shows only the public
/// thumbprint.
public struct DPoPKey: Sendable, Hashable, CustomStringConvertible {
    /// The signing algorithm of every proof (RFC 7518: ECDSA with P-256 and SHA-256).
    public static let algorithm = "ES256"

    private let privateKey: P256.Signing.PrivateKey
    /// The public key as a JWK (`kty`, `crv`, `x`, `y`): what every proof's header carries.
    public let publicJWK: [String: JSONValue]
    /// The JWK SHA-256 thumbprint of the public key (RFC 7638), base64url: the `jkt` a server binds
    /// the tokens to (`cnf.jkt`) and the `dpop_jkt` of an authorization request.
    public let thumbprint: String
    /// The proofs' protected header, base64url-encoded (the same for every proof of this key).
    private let encodedHeader: String

    /// A new key from the system's secure random source.
    public init() {
        self.init(privateKey: P256.Signing.PrivateKey())
    }

    /// The key kept as ``stored`` (its private scalar, base64url).
    /// - Throws: ``AuthErrorCode/invalidRequest`` when the value is not a P-256 private key.
    public init(stored: Secret<String>) throws {
        guard let raw = Base64URL.decode(stored.revealed()), raw.count == 32,
              let key = try? P256.Signing.PrivateKey(rawRepresentation: raw) else {
            throw AuthError(.invalidRequest, message: "The session's DPoP key is not a P-256 private key.",
                            details: ["reason": "invalidDPoPKey"])
        }
        self.init(privateKey: key)
    }

    init(privateKey: P256.Signing.PrivateKey) {
        self.privateKey = privateKey
        let point = privateKey.publicKey.rawRepresentation  // x ‖ y, 32 bytes each
        let jwk: [String: JSONValue] = [
            "kty": "EC", "crv": "P-256",
            "x": .string(Base64URL.encode(point.prefix(32))), "y": .string(Base64URL.encode(point.suffix(32))),
        ]
        publicJWK = jwk
        // Both are made of base64url strings and fixed names: serializing cannot fail.
        thumbprint = (try? JWKThumbprint.sha256(jwk)) ?? ""
        let header: JSONValue = ["typ": "dpop+jwt", "alg": .string(Self.algorithm), "jwk": .object(jwk)]
        encodedHeader = Base64URL.encode((try? header.serialized()) ?? Data())
    }

    /// The private key as a secret string (its 32-byte scalar, base64url), for the session store.
    public var stored: Secret<String> { Secret(Base64URL.encode(privateKey.rawRepresentation)) }

    /// A DPoP proof (RFC 9449, section 4.2) for one request: a JWT with header `typ: dpop+jwt`,
    /// `alg: ES256` and the public `jwk`, and the claims `jti` (unique), `htm`, `htu` (the target
    /// URI without query and fragment), `iat`, and when given `nonce` and `ath` (the base64url
    /// SHA-256 of the access token the request carries).
    /// - Parameters:
    ///   - method: the request's HTTP method (`htm`).
    ///   - url: the request's URL; its query and fragment are left out of `htu`.
    ///   - accessToken: the access token sent with the request (resource requests), else nil.
    ///   - nonce: the server's latest `DPoP-Nonce` for this origin, if it gave one.
    ///   - now: the issue time.
    ///   - random: where the `jti` comes from (16 random bytes).
    public func proof(method: String, url: URL, accessToken: Secret<String>? = nil, nonce: String? = nil,
                      now: Date, random: any RandomSource = SystemRandom()) throws -> Secret<String> {
        var claims: [String: JSONValue] = [
            "jti": .string(Base64URL.encode(random.bytes(16))),
            "htm": .string(method),
            "htu": .string(Self.targetURI(url)),
            "iat": .number(now.timeIntervalSince1970.rounded(.down)),
        ]
        if let nonce { claims["nonce"] = .string(nonce) }
        if let accessToken { claims["ath"] = .string(Self.accessTokenHash(accessToken)) }
        let signingInput = encodedHeader + "." + Base64URL.encode(try JSONValue.object(claims).serialized())
        let signature = try privateKey.signature(for: Data(signingInput.utf8))
        return Secret(signingInput + "." + Base64URL.encode(signature.rawRepresentation))
    }

    /// `ath`: the base64url SHA-256 of an access token's ASCII bytes (RFC 9449, section 4.2).
    public static func accessTokenHash(_ accessToken: Secret<String>) -> String {
        var token = accessToken.revealed()
        return token.withUTF8 { Base64URL.encode(SHA256.hash(data: UnsafeRawBufferPointer($0))) }
    }

    /// `htu` for a URL: scheme, authority and path, without query and fragment (RFC 9449,
    /// section 4.2); the scheme and host lowercased and the scheme's default port left out, so a
    /// server normalizing the same way (RFC 3986, section 6) compares equal.
    public static func targetURI(_ url: URL) -> String {
        normalizedTarget(url.absoluteString) ?? url.absoluteString
    }

    /// The key a token reply bound the tokens to (RFC 9449, section 5): `key` when the reply's
    /// `token_type` is `DPoP` and a proof of `key` was sent, nil for any other token type (the
    /// server did not bind them: they are bearer tokens).
    /// - Throws: ``AuthErrorCode/invalidRequest`` for a `DPoP` token type when no proof was sent: the
    ///   tokens would be bound to a key this client does not have.
    public static func binding(tokenType: String, sent key: DPoPKey?, provider: String?) throws -> DPoPKey? {
        guard tokenType.caseInsensitiveCompare("DPoP") == .orderedSame else { return nil }
        guard let key else {
            throw AuthError(.invalidRequest, message: "The token reply says DPoP, but no DPoP proof was sent.", provider: provider,
                            details: ["reason": "unexpectedDPoPTokenType"])
        }
        return key
    }

    public static func == (lhs: DPoPKey, rhs: DPoPKey) -> Bool { lhs.thumbprint == rhs.thumbprint }
    public func hash(into hasher: inout Hasher) { hasher.combine(thumbprint) }

    /// `htu` as a server compares it, from a URI's text, read byte by byte (a resource server does
    /// this for every request; Foundation's URL parsing and `Character` scans cost more than the
    /// proof's signature check): scheme and host lowercased, the scheme's default port dropped,
    /// query and fragment left out, an empty path as `/`. Nil for anything that is not an absolute
    /// `http`/`https` URI with a plain ASCII authority (no user information, no blank).
    public static func normalizedTarget(_ uri: String) -> String? {
        guard uri.utf8.count <= 8_192 else { return nil }
        var uri = uri
        return uri.withUTF8(normalizedTarget(bytes:))
    }

    /// ``normalizedTarget(_:)`` of a request's parts: its scheme, authority (`Host`) and path (a
    /// query or fragment in it is left out). Nil for an empty or unusual authority or a path that
    /// does not start with `/`.
    public static func normalizedTarget(scheme: String, authority: String, path: String) -> String? {
        guard path.isEmpty || path.utf8.first == UInt8(ascii: "/"), path.utf8.count <= 8_192, !authority.isEmpty, authority.utf8.count <= 1_024,
              !authority.utf8.contains(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) else { return nil }
        var uri = scheme
        uri.reserveCapacity(scheme.utf8.count + 3 + authority.utf8.count + path.utf8.count)
        uri += "://"
        uri += authority
        uri += path
        return normalizedTarget(uri)
    }

    private static func normalizedTarget(bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let slash = UInt8(ascii: "/"), colon = UInt8(ascii: ":"), question = UInt8(ascii: "?"), hash = UInt8(ascii: "#")
        func lowered(_ byte: UInt8) -> UInt8 { byte | (byte >= 0x41 && byte <= 0x5A ? 0x20 : 0) }
        func spells(_ word: StaticString, from start: Int) -> Bool {
            guard start + word.utf8CodeUnitCount <= bytes.count else { return false }
            return word.withUTF8Buffer { letters in
                letters.indices.allSatisfy { lowered(bytes[start + $0]) == letters[$0] }
            }
        }
        // The scheme: `http` or `https` (any case), then "://". Read in place: no copies are made
        // before the one result (this runs twice per DPoP-protected request).
        var index = 0
        while index < bytes.count, bytes[index] != colon { index += 1 }
        guard index + 2 < bytes.count, bytes[index + 1] == slash, bytes[index + 2] == slash else { return nil }
        let https = index == 5 && spells("https", from: 0)
        guard https || (index == 4 && spells("http", from: 0)) else { return nil }
        // The authority: up to the path, query or fragment; ASCII, no user information, no blank.
        let authorityStart = index + 3
        var authorityEnd = authorityStart
        while authorityEnd < bytes.count, bytes[authorityEnd] != slash, bytes[authorityEnd] != question, bytes[authorityEnd] != hash {
            let byte = bytes[authorityEnd]
            guard byte > 0x20, byte < 0x7F, byte != UInt8(ascii: "@"), byte != UInt8(ascii: "\\") else { return nil }
            authorityEnd += 1
        }
        // The scheme's default port is left out (when something precedes it).
        var kept = authorityEnd
        let defaultPort: StaticString = https ? ":443" : ":80"
        if authorityEnd - authorityStart > defaultPort.utf8CodeUnitCount,
           spells(defaultPort, from: authorityEnd - defaultPort.utf8CodeUnitCount) {
            kept = authorityEnd - defaultPort.utf8CodeUnitCount
        }
        guard kept > authorityStart, bytes[kept - 1] != colon else { return nil }
        // The path, without query and fragment; `/` when empty.
        var pathEnd = authorityEnd
        while pathEnd < bytes.count, bytes[pathEnd] != question, bytes[pathEnd] != hash { pathEnd += 1 }
        // Scheme, "://" and authority (lowercased), then the path or "/".
        return String(unsafeUninitializedCapacity: kept + max(1, pathEnd - authorityEnd)) { out in
            var written = 0
            for offset in 0..<kept { out[written] = lowered(bytes[offset]); written += 1 }
            if pathEnd == authorityEnd {
                out[written] = slash
                written += 1
            } else {
                for offset in authorityEnd..<pathEnd { out[written] = bytes[offset]; written += 1 }
            }
            return written
        }
    }

    /// Shows the thumbprint only.
    public var description: String { "DPoPKey(jkt: \(thumbprint))" }
}

extension Session {
    /// The name of the session's secret extra that holds its DPoP key (``DPoPKey/stored``).
    public static let dpopKeyExtra = "authhub.dpopKey"

    /// The DPoP key the session's tokens are bound to; nil for a bearer session.
    /// - Throws: ``AuthErrorCode/invalidRequest`` when a stored key cannot be read.
    public func dpopKey() throws -> DPoPKey? {
        guard let stored = secretExtras[Self.dpopKeyExtra] else { return nil }
        return try DPoPKey(stored: stored)
    }

    /// The secret extras that keep `key` with a session (none for a bearer session).
    public static func secretExtras(dpopKey key: DPoPKey?) -> [String: Secret<String>] {
        key.map { [dpopKeyExtra: $0.stored] } ?? [:]
    }

    /// Whether the session's access token is DPoP-bound (`token_type` `DPoP`).
    public var isDPoPBound: Bool { tokenType.caseInsensitiveCompare("DPoP") == .orderedSame }
}
