import AuthHub

/// A JWKS document (`jwks_uri`): a `keys` array, required.
///
/// Each key is read leniently (``JSONWebKey``): a key that is not usable is skipped by
/// ``JWKSCache``, never a reason to reject the whole set, so that one exotic key published by a
/// provider does not stop sign-in with the others.
package struct JSONWebKeySet: Decodable, Sendable {
    /// `keys`.
    package var keys: [JSONWebKey]
}

/// One JWK of a ``JSONWebKeySet``: the members AuthHub reads, each nil when absent or not a string
/// (such a key is then unusable and skipped, as is an entry that is not an object).
package struct JSONWebKey: Decodable, Sendable {
    package var kid: String?
    package var kty: String?
    package var use: String?
    package var alg: String?
    /// RSA modulus and exponent (base64url).
    package var n: String?
    package var e: String?
    /// EC curve and coordinates (base64url).
    package var crv: String?
    package var x: String?
    package var y: String?

    enum CodingKeys: String, CodingKey { case kid, kty, use, alg, n, e, crv, x, y }

    package init(from decoder: any Decoder) throws {
        guard let container = try? decoder.container(keyedBy: CodingKeys.self) else { return }
        func string(_ key: CodingKeys) -> String? { (try? container.decodeIfPresent(String.self, forKey: key)) ?? nil }
        kid = string(.kid)
        kty = string(.kty)
        use = string(.use)
        alg = string(.alg)
        n = string(.n)
        e = string(.e)
        crv = string(.crv)
        x = string(.x)
        y = string(.y)
    }
}
