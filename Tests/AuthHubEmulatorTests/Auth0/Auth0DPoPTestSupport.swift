import AuthHub
import AuthHubEmulator
import Crypto
import Foundation
import Testing

/// A DPoP key of the tests, making proofs (RFC 9449, section 4) by hand with swift-crypto, with no
/// client module: the emulator's checks are tested against this independent reading of the RFC.
struct DPoPTestKey {
    let key = P256.Signing.PrivateKey()

    /// `x` and `y` of the public key, base64url.
    var coordinates: (x: String, y: String) {
        let point = [UInt8](key.publicKey.x963Representation)
        return (Base64URL.encode(point[1..<33]), Base64URL.encode(point[33..<65]))
    }

    /// The public JWK.
    var jwk: [String: JSONValue] {
        ["kty": "EC", "crv": "P-256", "x": .string(coordinates.x), "y": .string(coordinates.y)]
    }

    /// The RFC 7638 thumbprint, computed here from the RFC's canonical member order.
    var thumbprint: String {
        let canonical = "{\"crv\":\"P-256\",\"kty\":\"EC\",\"x\":\"\(coordinates.x)\",\"y\":\"\(coordinates.y)\"}"
        return Base64URL.encode(SHA256.hash(data: Data(canonical.utf8)))
    }

    /// A proof for `method` on `url` (no query), with `iat` now, a fresh `jti`, and `nonce` and
    /// `ath` (of `accessToken`) when given. `header` and `claims` override or add members (a
    /// `.null` value removes one); `signer` signs in place of this key.
    func proof(
        _ method: String, _ url: String, iat: Date = Date(), jti: String = UUID().uuidString, nonce: String? = nil,
        accessToken: String? = nil, header: [String: JSONValue] = [:], claims: [String: JSONValue] = [:],
        signer: P256.Signing.PrivateKey? = nil
    ) throws -> String {
        var head: [String: JSONValue] = ["typ": "dpop+jwt", "alg": "ES256", "jwk": .object(jwk)]
        var body: [String: JSONValue] = [
            "htm": .string(method), "htu": .string(url), "iat": .number(iat.timeIntervalSince1970.rounded(.down)),
            "jti": .string(jti),
        ]
        if let nonce { body["nonce"] = .string(nonce) }
        if let accessToken { body["ath"] = .string(Base64URL.encode(SHA256.hash(data: Data(accessToken.utf8)))) }
        for (name, value) in header { head[name] = value == .null ? nil : value }
        for (name, value) in claims { body[name] = value == .null ? nil : value }
        let input = Base64URL.encode(try JSONEncoder().encode(JSONValue.object(head)))
            + "." + Base64URL.encode(try JSONEncoder().encode(JSONValue.object(body)))
        let signature = try (signer ?? key).signature(for: Data(input.utf8))
        return input + "." + Base64URL.encode(signature.rawRepresentation)
    }
}

extension Auth0Wire {
    /// `http://127.0.0.1:PORT<path>`, the `htu` of a request to `path`.
    func htu(_ path: String) -> String { emulator.url(path).absoluteString }

    /// The `DPoP` header field.
    static func dpop(_ proof: String) -> HTTPFields { [HTTPField.Name.constant("DPoP"): proof] }

    /// The password-realm grant (spec §3) with an optional DPoP proof.
    func dpopLogin(_ email: String, proof: String?, scope: String = "openid profile email offline_access") async throws -> Reply {
        try await post("/auth0/oauth/token", json: [
            "client_id": .string(Self.clientId), "grant_type": "http://auth0.com/oauth/grant-type/password-realm",
            "username": .string(email), "password": "correct horse battery", "realm": "Username-Password-Authentication",
            "scope": .string(scope),
        ], headerFields: proof.map(Self.dpop) ?? [:])
    }

    /// The refresh-token grant with an optional DPoP proof and audience.
    func dpopRefresh(_ token: String, proof: String?, audience: String? = nil, scope: String? = nil) async throws -> Reply {
        var body: [String: JSONValue] = [
            "client_id": .string(Self.clientId), "grant_type": "refresh_token", "refresh_token": .string(token),
        ]
        if let audience { body["audience"] = .string(audience) }
        if let scope { body["scope"] = .string(scope) }
        return try await post("/auth0/oauth/token", json: .object(body), headerFields: proof.map(Self.dpop) ?? [:])
    }

    /// `GET path` with `Authorization: <scheme> <token>` and an optional DPoP proof.
    func resource(_ path: String, scheme: String, token: String, proof: String?) async throws -> Reply {
        var fields: HTTPFields = [.authorization: "\(scheme) \(token)"]
        if let proof { fields[HTTPField.Name.constant("DPoP")] = proof }
        return try await get(path, headerFields: fields)
    }

    /// Turns DPoP nonce mode on or off (or rotates the nonce) through the emulator hook.
    func dpopNonceMode(_ on: Bool, rotate: Bool = false) async throws -> Reply {
        try await post("/auth0/__emulator/dpop", json: ["nonce_required": .bool(on), "rotate_nonce": .bool(rotate)])
    }
}

extension Auth0Wire.Reply {
    /// The `DPoP-Nonce` header.
    var dpopNonce: String? { headerFields[HTTPField.Name.constant("DPoP-Nonce")] }
    /// The `WWW-Authenticate` header.
    var challenge: String? { headerFields[.wwwAuthenticate] }
}
