import AuthHub
import Crypto
import _CryptoExtras
import Foundation
import HTTPTypes

/// How a client proves its identity at the endpoints that authenticate it — token, pushed
/// authorization requests, revocation, device authorization (OpenID Connect Core 1.0, section 9;
/// RFC 7523): the `tokenEndpointAuthMethod` of an `oidc` entry.
public enum OIDCClientAuthentication: Sendable, Hashable {
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
    package static func basicAuthorization(clientId: String, secret: Secret<String>) -> String {
        "Basic " + Data((FormEncoding.escape(clientId) + ":" + FormEncoding.escape(secret.revealed())).utf8).base64EncodedString()
    }

    /// The method names providers.json accepts.
    public static let methodNames = ["none", "client_secret_basic", "client_secret_post", "private_key_jwt"]

    /// The method a providers.json entry chooses (`tokenEndpointAuthMethod`, with `clientSecret`,
    /// `clientAssertionKey` and `clientAssertionKeyID`); nil when it names none.
    /// - Parameter keyAlgorithms: the assertion algorithms the provider takes (`ES256`, `RS256`); a
    ///   key for another is a configuration error naming `clientAssertionKey`.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` naming the field at fault (never showing a secret).
    public static func configured(in configuration: ProviderConfiguration,
                                  keyAlgorithms: Set<String> = ["ES256", "RS256"]) throws -> OIDCClientAuthentication? {
        let secret = configuration.secret("clientSecret")
        switch configuration.string("tokenEndpointAuthMethod") {
        case nil: return nil
        case "none": return OIDCClientAuthentication.none
        case "client_secret_basic":
            guard let secret else { throw configuration.invalid("clientSecret", "is required by client_secret_basic") }
            return .clientSecretBasic(secret)
        case "client_secret_post":
            guard let secret else { throw configuration.invalid("clientSecret", "is required by client_secret_post") }
            return .clientSecretPost(secret)
        case "private_key_jwt":
            guard let pem = configuration.secret("clientAssertionKey") else {
                throw configuration.invalid("clientAssertionKey", "is required by private_key_jwt")
            }
            let key: ClientAssertionKey
            do {
                key = try ClientAssertionKey(pem: pem, keyID: configuration.string("clientAssertionKeyID"))
            } catch let error as AuthError {
                throw configuration.invalid("clientAssertionKey", error.message)
            }
            guard keyAlgorithms.contains(key.algorithm) else {
                throw configuration.invalid("clientAssertionKey", "is a key for \(key.algorithm) assertions, which this provider does not take "
                                            + "(it takes \(keyAlgorithms.sorted().joined(separator: ", ")))")
            }
            return .privateKeyJWT(key)
        case let other?:
            throw configuration.invalid("tokenEndpointAuthMethod", "must be one of \(methodNames.joined(separator: ", ")), not \(other)")
        }
    }

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
        fields += try credentials(clientId: clientId, audience: audience, headers: &headers, now: now, random: random)
    }

    /// The method's body members (none for `none` and `client_secret_basic`, whose header is set in `headers`).
    private func credentials(clientId: String, audience: String, headers: inout HTTPFields, now: Date,
                             random: any RandomSource) throws -> [(String, String)] {
        switch self {
        case .none:
            return []
        case .clientSecretBasic(let secret):
            headers[.authorization] = Self.basicAuthorization(clientId: clientId, secret: secret)
            return []
        case .clientSecretPost(let secret):
            return [("client_secret", secret.revealed())]
        case .privateKeyJWT(let key):
            return [("client_assertion_type", Self.jwtBearerAssertionType),
                    ("client_assertion", try key.assertion(clientId: clientId, audience: audience, now: now, random: random).revealed())]
        }
    }

    /// ``apply(clientId:audience:fields:headers:now:random:)`` for a JSON body (Auth0 takes every
    /// method's members in JSON): `client_id` when missing, then the method's members or header.
    public func apply(clientId: String, audience: String, members: inout [String: JSONValue], headers: inout HTTPFields,
                      now: Date, random: any RandomSource) throws {
        if members["client_id"] == nil { members["client_id"] = .string(clientId) }
        for (name, value) in try credentials(clientId: clientId, audience: audience, headers: &headers, now: now, random: random) {
            members[name] = .string(value)
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
public struct ClientAssertionKey: Sendable, Hashable, CustomStringConvertible {
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

    /// The public half, which identifies the key (equality and hashing never touch the private key).
    private var publicKeyBytes: Data {
        switch material {
        case .p256(let key): key.publicKey.x963Representation
        case .rsa(let key): key.publicKey.derRepresentation
        }
    }

    public static func == (lhs: ClientAssertionKey, rhs: ClientAssertionKey) -> Bool {
        lhs.keyID == rhs.keyID && lhs.publicKeyBytes == rhs.publicKeyBytes
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(keyID)
        hasher.combine(publicKeyBytes)
    }
}
