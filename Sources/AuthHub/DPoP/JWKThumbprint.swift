import Crypto
import Foundation

/// JSON Web Key thumbprints (RFC 7638): the SHA-256 of a key's required public members, written as
/// JSON with the members in lexicographic order and no whitespace, base64url-encoded.
public enum JWKThumbprint {
    /// The required members of each key type (RFC 7638, section 3.2).
    static let requiredMembers: [String: [String]] = ["EC": ["crv", "kty", "x", "y"], "RSA": ["e", "kty", "n"], "OKP": ["crv", "kty", "x"]]

    /// The SHA-256 thumbprint of a public JWK, base64url without padding.
    /// - Throws: ``AuthErrorCode/invalidRequest`` when `kty` is not EC, RSA or OKP, or a required
    ///   member is missing or not a string.
    public static func sha256(_ jwk: [String: JSONValue]) throws -> String {
        guard let kty = jwk["kty"]?.stringValue, let names = requiredMembers[kty] else {
            throw AuthError(.invalidRequest, message: "The key's type (kty) has no thumbprint here.", details: ["reason": "unsupportedKeyType"])
        }
        var members: [String: JSONValue] = [:]
        for name in names {
            guard let value = jwk[name]?.stringValue else {
                throw AuthError(.invalidRequest, message: "The key lacks its '\(name)' member.", details: ["reason": "incompleteKey"])
            }
            members[name] = .string(value)
        }
        // Sorted keys and no whitespace: the canonical form RFC 7638 hashes (the members are
        // base64url strings and fixed names, so no escaping differs between writers).
        return Base64URL.encode(SHA256.hash(data: try JSONValue.object(members).serialized()))
    }
}
