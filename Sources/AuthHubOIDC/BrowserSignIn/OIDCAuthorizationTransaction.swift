import AuthHub
import Foundation

/// One authorization code + PKCE flow in progress: the URL to open and the values only this flow
/// knows (PKCE verifier, `state`, `nonce`).
///
/// Each transaction is a value of its own, so concurrent flows never share a verifier or a state:
/// a callback meant for one transaction fails ``parseCallback(_:)-(URL)`` on any other with
/// ``AuthErrorCode/stateMismatch``. Make one with ``OIDCAuthorizationRequest/makeTransaction(random:)``.
public struct OIDCAuthorizationTransaction: Sendable {
    /// The authorization URL to open in the browser.
    public let url: URL
    /// The client ID the URL carries.
    public let clientId: String
    /// The exact redirect URI string sent; the code exchange must send it again.
    public let redirectURI: String
    /// The PKCE code verifier (43 base64url characters), sent only with the code exchange.
    public let codeVerifier: Secret<String>
    /// The `state` sent; the callback must return it.
    public let state: Secret<String>
    /// The `nonce` sent; the ID token must carry it.
    public let nonce: Secret<String>?
    /// The `max_age` sent, if any; checked against the ID token's `auth_time`.
    public let maxAge: Int?
    /// The `organization` sent, if any; checked against the ID token.
    public let organization: String?
    /// The `scope` sent (with `openid`).
    public let scope: String?
    /// The DPoP key the code exchange proves (its thumbprint went out as `dpop_jkt`); nil without DPoP.
    public let dpopKey: DPoPKey?

    /// Creates a transaction from its parts (normally done by ``OIDCAuthorizationRequest``).
    public init(url: URL, clientId: String, redirectURI: String, codeVerifier: Secret<String>, state: Secret<String>,
                nonce: Secret<String>?, maxAge: Int? = nil, organization: String? = nil, scope: String? = nil,
                dpopKey: DPoPKey? = nil) {
        self.dpopKey = dpopKey
        self.url = url
        self.clientId = clientId
        self.redirectURI = redirectURI
        self.codeVerifier = codeVerifier
        self.state = state
        self.nonce = nonce
        self.maxAge = maxAge
        self.organization = organization
        self.scope = scope
    }

    /// The same transaction with another URL for the browser (a pushed request's `request_uri` URL).
    package func opening(_ url: URL) -> OIDCAuthorizationTransaction {
        OIDCAuthorizationTransaction(url: url, clientId: clientId, redirectURI: redirectURI, codeVerifier: codeVerifier, state: state,
                                     nonce: nonce, maxAge: maxAge, organization: organization, scope: scope, dpopKey: dpopKey)
    }

    /// Parses the redirect the browser made back to the app.
    ///
    /// The steps, in order: key/value pairs are read from the fragment and the query (query values
    /// win); the `state` must equal this transaction's; an `error` becomes its mapped
    /// ``AuthError`` (see ``OAuthErrorMapper/authorizationError(_:description:statusCode:)``);
    /// otherwise the `code` is returned.
    /// - Parameter url: the callback URL.
    /// - Returns: the authorization code and the other parameters.
    /// - Throws: ``AuthErrorCode/stateMismatch`` for a missing or different `state` (checked first,
    ///   so a forged error redirect is rejected as such); the mapped provider error (e.g.
    ///   ``AuthErrorCode/accessDenied`` for `access_denied`, with the raw code in
    ///   ``AuthError/providerCode``); ``AuthErrorCode/invalidRequest`` for a missing code or a
    ///   repeated parameter.
    public func parseCallback(_ url: URL) throws -> OIDCAuthorizationResponse {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw Self.malformed()
        }
        return try parse(components)
    }

    /// Parses the redirect given as a string; see ``parseCallback(_:)-(URL)``.
    /// - Throws: ``AuthErrorCode/invalidRequest`` when the string is not a URL, and everything
    ///   the URL variant throws.
    public func parseCallback(_ string: String) throws -> OIDCAuthorizationResponse {
        guard let components = URLComponents(string: string) else { throw Self.malformed() }
        return try parse(components)
    }

    private static func malformed() -> AuthError {
        AuthError(.invalidRequest, message: "The sign-in callback URL is malformed.")
    }

    private func parse(_ components: URLComponents) throws -> OIDCAuthorizationResponse {
        var values: [String: String] = [:]
        for part in [components.percentEncodedFragment, components.percentEncodedQuery] {
            guard let part, !part.isEmpty else { continue }
            var seen = Set<String>()
            for (name, value) in FormEncoding.decode(part) where !name.isEmpty {
                guard seen.insert(name).inserted else {
                    throw AuthError(.invalidRequest, message: "The sign-in callback repeats the parameter '\(name)'.")
                }
                values[name] = value
            }
        }
        guard let returned = values["state"], Secret(returned) == state else {
            throw AuthError(.stateMismatch,
                            message: "The sign-in callback does not belong to this sign-in attempt (state mismatch).")
        }
        if let error = values["error"] {
            let mapped = OAuthErrorMapper.authorizationError(error, description: values["error_description"], statusCode: 302)
            if let uri = values["error_uri"] { throw mapped.with(details: mapped.details.merging(["error_uri": uri]) { _, new in new }) }
            throw mapped
        }
        guard let code = values["code"], !code.isEmpty else {
            throw AuthError(.invalidRequest, message: "The authorization code is missing from the sign-in callback.")
        }
        values["code"] = nil
        values["state"] = nil
        return OIDCAuthorizationResponse(code: Secret(code), state: Secret(returned), parameters: values)
    }
}

extension OIDCAuthorizationResponse {
    /// Checks the `iss` parameter of the authorization response (RFC 9207): when present it must be
    /// the expected issuer (another one means the response came from another provider the client
    /// uses — a mix-up attack); when the provider says it sends one
    /// (`authorization_response_iss_parameter_supported`), it must be present.
    /// - Throws: ``AuthErrorCode/invalidRequest`` with `details["reason"]`
    ///   `mismatchedAuthorizationResponseIssuer` or `missingAuthorizationResponseIssuer`.
    public func checkIssuer(_ expected: String, required: Bool) throws {
        guard let iss = parameters["iss"] else {
            guard !required else {
                throw AuthError(.invalidRequest, message: "The sign-in callback lacks the iss parameter its provider says it sends (RFC 9207).",
                                details: ["reason": "missingAuthorizationResponseIssuer"])
            }
            return
        }
        guard iss == expected else {
            throw AuthError(.invalidRequest, message: "The sign-in callback names another issuer (iss) than the provider signed in with (RFC 9207).",
                            details: ["reason": "mismatchedAuthorizationResponseIssuer"])
        }
    }
}

/// A successful authorization callback.
public struct OIDCAuthorizationResponse: Sendable {
    /// The authorization code, to exchange once.
    public let code: Secret<String>
    /// The `state` returned (equal to the transaction's).
    public let state: Secret<String>
    /// The other callback parameters (without `code` and `state`), e.g. `iss` or `session_state`.
    public let parameters: [String: String]

    /// Creates a response.
    public init(code: Secret<String>, state: Secret<String>, parameters: [String: String] = [:]) {
        self.code = code
        self.state = state
        self.parameters = parameters
    }
}
