import AuthHub
import Foundation

/// A browser logout URL: RP-Initiated Logout (`end_session_endpoint`) or a provider's own logout
/// endpoint such as Auth0's `/v2/logout` (<doc:OIDCFlows>: “Logout”).
///
/// The query, in order: a bare `federated` key (no value) when ``federated`` is set, then
/// `id_token_hint`, the return URL under ``returnToParameter``, `client_id`, `state`. Absent values
/// are left out. For Auth0: `OIDCLogoutRequest(endpoint: base/v2/logout, clientId: id,
/// returnTo: callback, returnToParameter: "returnTo", federated: flag)` gives
/// `…/v2/logout?[federated&]returnTo=…&client_id=…`.
public struct OIDCLogoutRequest: Sendable {
    /// The logout endpoint.
    public var endpoint: URL
    /// The client ID (`client_id`).
    public var clientId: String
    /// Where the browser returns after logout.
    public var returnTo: URL?
    /// The query name of ``returnTo``: `post_logout_redirect_uri` (OIDC, the default) or `returnTo` (Auth0).
    public var returnToParameter: String
    /// Also log out of the upstream identity provider (a bare `federated` key, first).
    public var federated: Bool
    /// The ID token as `id_token_hint`. It ends up in a URL the browser opens, so pass it only to
    /// providers that need it.
    public var idTokenHint: Secret<String>?
    /// An opaque `state` returned with the post-logout redirect.
    public var state: String?

    /// Creates a logout request.
    public init(endpoint: URL, clientId: String, returnTo: URL? = nil, returnToParameter: String = "post_logout_redirect_uri",
                federated: Bool = false, idTokenHint: Secret<String>? = nil, state: String? = nil) {
        self.endpoint = endpoint
        self.clientId = clientId
        self.returnTo = returnTo
        self.returnToParameter = returnToParameter
        self.federated = federated
        self.idTokenHint = idTokenHint
        self.state = state
    }

    /// The URL to open.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` when the endpoint is not an absolute URL.
    public func url() throws -> URL {
        var pairs: [(String, String)] = []
        if let idTokenHint { pairs.append(("id_token_hint", idTokenHint.revealed())) }
        if let returnTo { pairs.append((returnToParameter, returnTo.absoluteString)) }
        pairs.append(("client_id", clientId))
        if let state { pairs.append(("state", state)) }
        var query = FormEncoding.encode(pairs)
        if federated { query = "federated&" + query }
        return try OIDCAuthorizationRequest.url(endpoint, addingEncodedQuery: query)
    }
}
