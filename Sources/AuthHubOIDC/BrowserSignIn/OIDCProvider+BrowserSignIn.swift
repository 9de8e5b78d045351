import AuthHub
import Foundation

extension OIDCProvider: BrowserSignInProvider {}

extension OIDCProvider: BrowserSignOutProvider {
    /// OpenID Connect RP-Initiated Logout 1.0 with a fresh random `state` (32 bytes, base64url):
    /// see ``browserSignOutURL(idToken:returnTo:federated:state:)``. Call that one to learn the
    /// state, to check it on the post-logout redirect.
    public func browserSignOutURL(idToken: Secret<String>?, returnTo: URL?, federated: Bool) async throws -> URL {
        try await browserSignOutURL(idToken: idToken, returnTo: returnTo, federated: federated,
                                    state: OIDCAuthorizationRequest.randomToken(context.random))
    }

    /// OpenID Connect RP-Initiated Logout 1.0: the discovered `end_session_endpoint` with
    /// `id_token_hint` (the session's ID token, when there is one), `post_logout_redirect_uri`
    /// (`returnTo`, which must be registered), `client_id` and `state`, which the provider returns
    /// on the post-logout redirect (the specification recommends it, as for sign-in: the receiver
    /// can tell the redirect answers its own logout). `federated` has no meaning for a generic
    /// provider and is ignored.
    /// - Throws: ``AuthErrorCode/unsupported`` when discovery advertises no `end_session_endpoint`.
    public func browserSignOutURL(idToken: Secret<String>?, returnTo: URL?, federated: Bool, state: String) async throws -> URL {
        let metadata = try await metadata()
        guard let endpoint = metadata.endSessionEndpoint else {
            throw AuthError(.unsupported, message: "The OpenID provider '\(id)' advertises no end_session_endpoint (RP-Initiated Logout).",
                            provider: id)
        }
        return try OIDCLogoutRequest(endpoint: endpoint, clientId: configuration.clientId, returnTo: returnTo,
                                     idTokenHint: idToken, state: state).url()
    }
}
