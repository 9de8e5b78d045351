import AuthHub
import Foundation

/// An OpenID Provider's configuration, from `<issuer>/.well-known/openid-configuration`
/// (OpenID Connect Discovery 1.0).
///
/// Decoding is strict about what the code flow needs (`issuer`, `authorization_endpoint`,
/// `token_endpoint`, `jwks_uri`, each an absolute http(s) URL but the issuer) and lenient about the
/// rest; every problem is an ``AuthError`` naming the field. Every endpoint, optional ones included,
/// must use https unless its host is a loopback address (`127.0.0.0/8`, `::1`, `localhost`): a
/// document naming `http://` elsewhere is refused, as an `http://` issuer off loopback is.
public struct OIDCProviderMetadata: Sendable, Hashable, Decodable {
    /// `issuer`: must equal the configured issuer exactly.
    public var issuer: String
    /// `authorization_endpoint`.
    public var authorizationEndpoint: URL
    /// `token_endpoint`.
    public var tokenEndpoint: URL
    /// `jwks_uri`.
    public var jwksURI: URL
    /// `userinfo_endpoint`, if advertised.
    public var userinfoEndpoint: URL?
    /// `end_session_endpoint` (RP-Initiated Logout), if advertised.
    public var endSessionEndpoint: URL?
    /// `revocation_endpoint`, if advertised.
    public var revocationEndpoint: URL?
    /// `device_authorization_endpoint` (RFC 8628, section 4), when the provider offers device sign-in.
    public var deviceAuthorizationEndpoint: URL?
    /// `scopes_supported` (empty when absent).
    public var scopesSupported: [String]
    /// `response_types_supported` (empty when absent).
    public var responseTypesSupported: [String]
    /// `id_token_signing_alg_values_supported` (empty when absent).
    public var idTokenSigningAlgValuesSupported: [String]
    /// `code_challenge_methods_supported` (empty when absent).
    public var codeChallengeMethodsSupported: [String]
    /// `pushed_authorization_request_endpoint` (RFC 9126), if advertised.
    public var pushedAuthorizationRequestEndpoint: URL?
    /// `require_pushed_authorization_requests` (RFC 9126): false when absent or not a boolean.
    public var requirePushedAuthorizationRequests = false
    /// `authorization_response_iss_parameter_supported` (RFC 9207): false when absent or not a boolean.
    public var authorizationResponseIssParameterSupported = false
    /// `token_endpoint_auth_methods_supported` (empty when absent).
    public var tokenEndpointAuthMethodsSupported: [String] = []
    /// `dpop_signing_alg_values_supported` (RFC 9449; empty when absent).
    public var dpopSigningAlgValuesSupported: [String] = []

    /// Creates metadata from values.
    public init(issuer: String, authorizationEndpoint: URL, tokenEndpoint: URL, jwksURI: URL, userinfoEndpoint: URL? = nil,
                endSessionEndpoint: URL? = nil, revocationEndpoint: URL? = nil, scopesSupported: [String] = [],
                responseTypesSupported: [String] = [], idTokenSigningAlgValuesSupported: [String] = [],
                codeChallengeMethodsSupported: [String] = []) {
        self.issuer = issuer
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.jwksURI = jwksURI
        self.userinfoEndpoint = userinfoEndpoint
        self.endSessionEndpoint = endSessionEndpoint
        self.revocationEndpoint = revocationEndpoint
        self.scopesSupported = scopesSupported
        self.responseTypesSupported = responseTypesSupported
        self.idTokenSigningAlgValuesSupported = idTokenSigningAlgValuesSupported
        self.codeChallengeMethodsSupported = codeChallengeMethodsSupported
    }

    enum CodingKeys: String, CodingKey {
        case issuer, authorizationEndpoint = "authorization_endpoint", tokenEndpoint = "token_endpoint", jwksURI = "jwks_uri"
        case userinfoEndpoint = "userinfo_endpoint", endSessionEndpoint = "end_session_endpoint"
        case revocationEndpoint = "revocation_endpoint", scopesSupported = "scopes_supported"
        case deviceAuthorizationEndpoint = "device_authorization_endpoint"
        case responseTypesSupported = "response_types_supported"
        case idTokenSigningAlgValuesSupported = "id_token_signing_alg_values_supported"
        case codeChallengeMethodsSupported = "code_challenge_methods_supported"
        case pushedAuthorizationRequestEndpoint = "pushed_authorization_request_endpoint"
        case requirePushedAuthorizationRequests = "require_pushed_authorization_requests"
        case authorizationResponseIssParameterSupported = "authorization_response_iss_parameter_supported"
        case tokenEndpointAuthMethodsSupported = "token_endpoint_auth_methods_supported"
        case dpopSigningAlgValuesSupported = "dpop_signing_alg_values_supported"
    }

    /// Decodes a discovery document: the code flow's four fields are required (the issuer a
    /// non-empty string, the endpoints absolute http(s) URLs), the rest optional; a malformed field
    /// is a `DecodingError` at that key, which ``APIClient/decode(_:from:operation:)`` names.
    /// The issuer is compared with the configured one by ``decode(_:expectedIssuer:provider:)``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let issuer = try container.decode(String.self, forKey: .issuer)
        guard !issuer.isEmpty else {
            throw DecodingError.dataCorruptedError(forKey: .issuer, in: container, debugDescription: "empty issuer")
        }
        func requiredURL(_ key: CodingKeys) throws -> URL {
            try Self.httpURL(try container.decode(String.self, forKey: key), key, container)
        }
        func optionalURL(_ key: CodingKeys) throws -> URL? {
            try container.decodeIfPresent(String.self, forKey: key).map { try Self.httpURL($0, key, container) }
        }
        func strings(_ key: CodingKeys) throws -> [String] {
            do {
                return try container.decodeIfPresent([String].self, forKey: key) ?? []
            } catch {
                throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "not an array of strings")
            }
        }
        self.init(issuer: issuer,
                  authorizationEndpoint: try requiredURL(.authorizationEndpoint),
                  tokenEndpoint: try requiredURL(.tokenEndpoint),
                  jwksURI: try requiredURL(.jwksURI),
                  userinfoEndpoint: try optionalURL(.userinfoEndpoint),
                  endSessionEndpoint: try optionalURL(.endSessionEndpoint),
                  revocationEndpoint: try optionalURL(.revocationEndpoint),
                  scopesSupported: try strings(.scopesSupported),
                  responseTypesSupported: try strings(.responseTypesSupported),
                  idTokenSigningAlgValuesSupported: try strings(.idTokenSigningAlgValuesSupported),
                  codeChallengeMethodsSupported: try strings(.codeChallengeMethodsSupported))
        deviceAuthorizationEndpoint = try optionalURL(.deviceAuthorizationEndpoint)
        pushedAuthorizationRequestEndpoint = try optionalURL(.pushedAuthorizationRequestEndpoint)
        requirePushedAuthorizationRequests = (try? container.decodeIfPresent(Bool.self, forKey: .requirePushedAuthorizationRequests)) == true
        authorizationResponseIssParameterSupported =
            (try? container.decodeIfPresent(Bool.self, forKey: .authorizationResponseIssParameterSupported)) == true
        tokenEndpointAuthMethodsSupported = try strings(.tokenEndpointAuthMethodsSupported)
        dpopSigningAlgValuesSupported = try strings(.dpopSigningAlgValuesSupported)
    }

    /// Decodes a discovery document and checks its issuer.
    /// - Parameters:
    ///   - data: the document.
    ///   - expectedIssuer: the configured issuer; nil skips the comparison.
    ///   - provider: the provider id errors are attributed to.
    ///   - statusCode: the reply's status, kept in errors.
    /// - Throws: ``AuthErrorCode/invalidRequest`` for a document that is not a JSON object or has a
    ///   missing or malformed field (named in the message and in `details["field"]`);
    ///   ``AuthErrorCode/invalidConfiguration`` when its `issuer` differs from `expectedIssuer`.
    public static func decode(_ data: Data, expectedIssuer: String?, provider: String,
                              statusCode: Int? = nil) throws -> OIDCProviderMetadata {
        let metadata: OIDCProviderMetadata
        do {
            metadata = try JSONDecoder().decode(OIDCProviderMetadata.self, from: data)
        } catch {
            throw ReplyDecodingFailure.error(error, provider: provider, operation: .discovery, statusCode: statusCode,
                                             emptyBody: data.isEmpty)
        }
        if let expectedIssuer, metadata.issuer != expectedIssuer {
            throw AuthError(.invalidConfiguration,
                            message: "The discovered issuer \(metadata.issuer) differs from the configured issuer \(expectedIssuer).",
                            provider: provider, statusCode: statusCode,
                            details: ["field": "issuer", "expected": expectedIssuer, "actual": metadata.issuer])
        }
        return metadata
    }

    /// `<issuer without trailing slash>/.well-known/openid-configuration`.
    /// - Parameter issuer: the issuer identifier.
    public static func discoveryURL(for issuer: URL) -> URL {
        var base = issuer.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return URL(string: base + "/.well-known/openid-configuration") ?? issuer
    }

    /// Fetches and decodes the discovery document of `issuer` (GET, retried like any idempotent request).
    /// - Parameters:
    ///   - issuer: the issuer identifier; the document's `issuer` must equal its string exactly.
    ///   - api: the client to send with.
    /// - Throws: the errors of ``decode(_:expectedIssuer:provider:statusCode:)`` and of ``APIClient/send(_:)``.
    public static func fetch(issuer: URL, using api: APIClient) async throws -> OIDCProviderMetadata {
        let response = try await api.send(APIRequest(.get, discoveryURL(for: issuer).absoluteString, operation: .discovery))
        return try decode(response.body, expectedIssuer: issuer.absoluteString, provider: api.provider, statusCode: response.status)
    }

    private static func httpURL(_ string: String, _ key: CodingKeys,
                                _ container: KeyedDecodingContainer<CodingKeys>) throws -> URL {
        guard let url = URL(string: string), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
              let host = url.host, !host.isEmpty else {
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "not an absolute http(s) URL")
        }
        // Plain http only on loopback (the local emulator, a test server), as for the issuer itself: an
        // http endpoint elsewhere would carry codes, tokens and `id_token_hint` in clear text.
        guard ConfigValueFormat.isSecureOrLoopback(string) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "plain http off loopback (https is required)")
        }
        return url
    }
}
