import AuthHub
import Foundation

/// An OpenID Provider's configuration, from `<issuer>/.well-known/openid-configuration`
/// (OpenID Connect Discovery 1.0).
///
/// Decoding is strict about what the code flow needs (`issuer`, `authorization_endpoint`,
/// `token_endpoint`, `jwks_uri`, each an absolute http(s) URL but the issuer) and lenient about the
/// rest; every problem is an ``AuthError`` naming the field.
public struct OIDCProviderMetadata: Sendable, Hashable {
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
    /// `scopes_supported` (empty when absent).
    public var scopesSupported: [String]
    /// `response_types_supported` (empty when absent).
    public var responseTypesSupported: [String]
    /// `id_token_signing_alg_values_supported` (empty when absent).
    public var idTokenSigningAlgValuesSupported: [String]
    /// `code_challenge_methods_supported` (empty when absent).
    public var codeChallengeMethodsSupported: [String]

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

    /// Decodes a discovery document.
    /// - Parameters:
    ///   - data: the document.
    ///   - expectedIssuer: the configured issuer; nil skips the comparison.
    /// - Throws: ``AuthErrorCode/invalidRequest`` for a document that is not a JSON object or has a
    ///   missing or malformed field (named in the message and in `details["field"]`);
    ///   ``AuthErrorCode/invalidConfiguration`` when its `issuer` differs from `expectedIssuer`.
    public init(json data: Data, expectedIssuer: String?) throws {
        guard let parsed = try? JSONValue.parse(data), let object = parsed.objectValue else {
            throw AuthError(.invalidRequest, message: "The OpenID configuration document is not a JSON object.")
        }
        func problem(_ field: String, _ what: String) -> AuthError {
            AuthError(.invalidRequest, message: "The OpenID configuration document \(what): \(field).", details: ["field": field])
        }
        func requiredURL(_ field: String) throws -> URL {
            guard let value = object[field] else { throw problem(field, "lacks a required field") }
            guard let url = Self.httpURL(value) else { throw problem(field, "has a field that is not an absolute http(s) URL") }
            return url
        }
        func optionalURL(_ field: String) throws -> URL? {
            guard let value = object[field], value != .null else { return nil }
            guard let url = Self.httpURL(value) else { throw problem(field, "has a field that is not an absolute http(s) URL") }
            return url
        }
        func strings(_ field: String) throws -> [String] {
            guard let value = object[field], value != .null else { return [] }
            guard let array = value.arrayValue else { throw problem(field, "has a field that is not an array of strings") }
            let values = array.compactMap(\.stringValue)
            guard values.count == array.count else { throw problem(field, "has a field that is not an array of strings") }
            return values
        }
        guard let issuerValue = object["issuer"] else { throw problem("issuer", "lacks a required field") }
        guard let issuer = issuerValue.stringValue, !issuer.isEmpty else { throw problem("issuer", "has a field that is not a string") }
        if let expectedIssuer, issuer != expectedIssuer {
            throw AuthError(.invalidConfiguration,
                            message: "The discovered issuer \(issuer) differs from the configured issuer \(expectedIssuer).",
                            details: ["field": "issuer", "expected": expectedIssuer, "actual": issuer])
        }
        self.init(issuer: issuer,
                  authorizationEndpoint: try requiredURL("authorization_endpoint"),
                  tokenEndpoint: try requiredURL("token_endpoint"),
                  jwksURI: try requiredURL("jwks_uri"),
                  userinfoEndpoint: try optionalURL("userinfo_endpoint"),
                  endSessionEndpoint: try optionalURL("end_session_endpoint"),
                  revocationEndpoint: try optionalURL("revocation_endpoint"),
                  scopesSupported: try strings("scopes_supported"),
                  responseTypesSupported: try strings("response_types_supported"),
                  idTokenSigningAlgValuesSupported: try strings("id_token_signing_alg_values_supported"),
                  codeChallengeMethodsSupported: try strings("code_challenge_methods_supported"))
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
    /// - Throws: the errors of ``init(json:expectedIssuer:)`` and of ``APIClient/send(_:)``.
    public static func fetch(issuer: URL, using api: APIClient) async throws -> OIDCProviderMetadata {
        let response = try await api.send(APIRequest(.get, discoveryURL(for: issuer).absoluteString))
        do {
            return try OIDCProviderMetadata(json: response.body, expectedIssuer: issuer.absoluteString)
        } catch let error as AuthError {
            throw error.attributed(to: api.provider).with(statusCode: response.status)
        }
    }

    private static func httpURL(_ value: JSONValue) -> URL? {
        guard let string = value.stringValue, let url = URL(string: string),
              let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
              let host = url.host, !host.isEmpty else { return nil }
        return url
    }
}
