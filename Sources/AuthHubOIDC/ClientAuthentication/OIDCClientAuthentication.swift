import AuthHub
import Crypto
import _CryptoExtras
import Foundation
import HTTPTypes

/// How a client proves its identity at the endpoints that authenticate it — token, pushed
/// authorization requests, revocation, device authorization (OpenID Connect Core 1.0, section 9;
/// RFC 7523): the `tokenEndpointAuthMethod` of an `oidc` entry.
public enum OIDCClientAuthentication: Sendable {
    /// A public client: `client_id` in the body, nothing else (PKCE protects its codes).
    case none
    /// `Authorization: Basic` of the form-encoded `client_id:client_secret` (RFC 6749, section 2.3.1).
    case clientSecretBasic(Secret<String>)
    /// `client_id` and `client_secret` in the body.
    case clientSecretPost(Secret<String>)
    /// A JWT signed with the client's private key (RFC 7523, section 2.2): `client_assertion_type`
    /// `urn:ietf:params:oauth:client-assertion-type:jwt-bearer` and `client_assertion`, with
    /// `iss` = `sub` = the client ID, `aud` the issuer (or the endpoint's URL: ``ClientAssertionAudience``),
    /// `iat`, `exp` 60 s later and a unique `jti`.
    case privateKeyJWT(ClientAssertionKey)

    /// The providers.json name of the method.
    public var methodName: String {
        switch self {
        case .none: "none"
        case .clientSecretBasic: "client_secret_basic"
        case .clientSecretPost: "client_secret_post"
        case .privateKeyJWT: "private_key_jwt"
        }
    }

    /// The `client_assertion_type` of a JWT assertion.
    public static let jwtBearerAssertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

    /// `Basic` of the form-encoded `client_id:client_secret` (RFC 6749, section 2.3.1).
    static func basicAuthorization(clientId: String, secret: Secret<String>) -> String {
        "Basic " + Data((FormEncoding.escape(clientId) + ":" + FormEncoding.escape(secret.revealed())).utf8).base64EncodedString()
    }

    /// The method names providers.json accepts.
    public static let methodNames = ["none", "client_secret_basic", "client_secret_post", "private_key_jwt"]

    /// Adds this client's credentials to a request: `client_id` always (in the body), then the
    /// method's own fields or header.
    /// - Parameters:
    ///   - clientId: the client ID.
    ///   - audience: the `aud` of a JWT assertion (the issuer identifier).
    ///   - fields: the form fields, `client_id` first if missing.
    ///   - headers: the request's header fields.
    ///   - now: the assertion's `iat`.
    ///   - random: where the assertion's `jti` comes from.
    public func apply(clientId: String, audience: String, fields: inout [(String, String)], headers: inout HTTPFields,
                      now: Date, random: any RandomSource) throws {
        if !fields.contains(where: { $0.0 == "client_id" }) { fields.insert(("client_id", clientId), at: 0) }
        switch self {
        case .none:
            break
        case .clientSecretBasic(let secret):
            headers[.authorization] = Self.basicAuthorization(clientId: clientId, secret: secret)
        case .clientSecretPost(let secret):
            fields.append(("client_secret", secret.revealed()))
        case .privateKeyJWT(let key):
            fields.append(("client_assertion_type", Self.jwtBearerAssertionType))
            fields.append(("client_assertion", try key.assertion(clientId: clientId, audience: audience, now: now, random: random).revealed()))
        }
    }
}

/// The `aud` of a `private_key_jwt` assertion (`clientAssertionAudience`). Servers differ: the
/// issuer identifier is what RFC 9126 and FAPI 2.0 ask for (Auth0, Okta, Keycloak accept it); some
/// servers (idpyoidc, for one) take only the URL of the endpoint the assertion is sent to, which is
/// also what RFC 7523 and OpenID Connect Core (section 9: "the URL of the Token Endpoint") describe.
public enum ClientAssertionAudience: String, Sendable, CaseIterable {
    /// The issuer identifier (the default).
    case issuer
    /// The URL of the endpoint each assertion is sent to: the token endpoint's at the token
    /// endpoint, the pushed-authorization endpoint's at that one, and so on.
    case endpoint
}

/// The private key of a `private_key_jwt` client (RFC 7523), read from a PEM: an EC P-256 key signs
/// ES256 assertions, an RSA key of 2,048 bits or more RS256 ones.
public struct ClientAssertionKey: Sendable, CustomStringConvertible {
    enum Material: Sendable {
        case p256(P256.Signing.PrivateKey)
        case rsa(_RSA.Signing.PrivateKey)
    }

    let material: Material
    /// The `kid` the assertions' header names (the key's id in the client's registered JWKS), if any.
    public let keyID: String?

    /// Reads a PEM private key (`-----BEGIN PRIVATE KEY-----` PKCS#8, `EC PRIVATE KEY` or `RSA PRIVATE KEY`).
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` when it is neither a P-256 key nor an RSA key
    ///   of 2,048 bits or more (the message never shows the key).
    public init(pem: Secret<String>, keyID: String? = nil) throws {
        let text = pem.revealed().replacingOccurrences(of: "\\n", with: "\n")
        if let key = try? P256.Signing.PrivateKey(pemRepresentation: text) {
            material = .p256(key)
        } else if let key = try? _RSA.Signing.PrivateKey(pemRepresentation: text), key.keySizeInBits >= 2048 {
            material = .rsa(key)
        } else {
            throw AuthError(.invalidConfiguration,
                            message: "The client assertion key is not a PEM P-256 or RSA (2048 bits or more) private key.",
                            details: ["field": "clientAssertionKey"])
        }
        self.keyID = keyID.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `ES256` or `RS256`.
    public var algorithm: String {
        switch material {
        case .p256: "ES256"
        case .rsa: "RS256"
        }
    }

    /// A signed client assertion for one request.
    public func assertion(clientId: String, audience: String, now: Date, random: any RandomSource) throws -> Secret<String> {
        var header: [String: JSONValue] = ["alg": .string(algorithm), "typ": "JWT"]
        if let keyID { header["kid"] = .string(keyID) }
        let iat = now.timeIntervalSince1970.rounded(.down)
        let claims: [String: JSONValue] = [
            "iss": .string(clientId), "sub": .string(clientId), "aud": .string(audience),
            "iat": .number(iat), "exp": .number(iat + 60), "jti": .string(Base64URL.encode(random.bytes(16))),
        ]
        let input = Base64URL.encode(try JSONValue.object(header).serialized()) + "." + Base64URL.encode(try JSONValue.object(claims).serialized())
        let signature: Data
        switch material {
        case .p256(let key):
            signature = try key.signature(for: Data(input.utf8)).rawRepresentation
        case .rsa(let key):
            signature = try key.signature(for: SHA256.hash(data: Data(input.utf8)), padding: .insecurePKCS1v1_5).rawRepresentation
        }
        return Secret(input + "." + Base64URL.encode(signature))
    }

    /// Shows the algorithm and key id only.
    public var description: String { "ClientAssertionKey(\(algorithm), kid: \(keyID ?? "-"))" }
}
