import AuthHub
import Foundation

extension OIDCProvider: BrowserSignInProvider {}

extension OIDCProvider: BrowserSignOutProvider {
    /// OpenID Connect RP-Initiated Logout 1.0: the discovered `end_session_endpoint` with
    /// `client_id`, `id_token_hint` (the session's ID token, when there is one) and
    /// `post_logout_redirect_uri` (`returnTo`, which must be registered). `federated` has no
    /// meaning for a generic provider and is ignored.
    /// - Throws: ``AuthErrorCode/unsupported`` when discovery advertises no `end_session_endpoint`.
    public func browserSignOutURL(idToken: Secret<String>?, returnTo: URL?, federated: Bool) async throws -> URL {
        let metadata = try await metadata()
        guard let endpoint = metadata.endSessionEndpoint else {
            throw AuthError(.unsupported, message: "The OpenID provider '\(id)' advertises no end_session_endpoint (RP-Initiated Logout).",
                            provider: id)
        }
        return try OIDCLogoutRequest(endpoint: endpoint, clientId: configuration.clientId, returnTo: returnTo,
                                     idTokenHint: idToken).url()
    }
}
