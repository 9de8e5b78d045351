import AuthHub
import Foundation

extension OpenfortAPI {
    // MARK: - Social

    /// Starts an OAuth sign-in: `POST /sign-in/social {provider, callbackURL, disableRedirect: true, …}`.
    /// - Parameters:
    ///   - provider: `google`, `apple`, `twitter`, `facebook`, `discord`, `epic_games`, `line`, …
    ///   - callbackURL: the app's redirect URL; the session arrives there as `access_token`/`user_id`.
    ///   - bearer: a guest's session token, to link the account to that guest.
    /// - Returns: the provider's authorization URL to open in a browser.
    package func startOAuth(provider socialProvider: String, callbackURL: String, scopes: [String]? = nil,
                           errorCallbackURL: String? = nil, newUserCallbackURL: String? = nil, loginHint: String? = nil,
                           bearer: Secret<String>? = nil) async throws -> URL {
        try await sendRequired(.post, "sign-in/social", body: OpenfortSocialSignInRequest(
            provider: socialProvider, callbackURL: callbackURL, disableRedirect: true, scopes: scopes, errorCallbackURL: errorCallbackURL,
            newUserCallbackURL: newUserCallbackURL, loginHint: loginHint),
                               bearer: bearer, operation: .signIn, as: OpenfortRedirectReply.self).url
    }

    /// Signs in with an ID token from Apple or Google: `POST /sign-in/social {provider, idToken: {token, nonce?, accessToken?}}`.
    package func signInWithIDToken(provider socialProvider: String, token: Secret<String>, nonce: String? = nil,
                                  accessToken: Secret<String>? = nil) async throws -> OpenfortAuthResponse {
        let idToken = OpenfortIDTokenCredential(token: token.revealed(), nonce: nonce, accessToken: accessToken?.revealed())
        return try await sendRequired(.post, "sign-in/social", body: OpenfortSocialSignInRequest(provider: socialProvider, idToken: idToken),
                                      retry: .never, operation: .signIn, as: OpenfortAuthResponse.self)
    }

    /// Links a social account to the signed-in user: `POST /link-social {provider, callbackURL, …}` with the session token.
    /// - Returns: the authorization URL to open (nil when the server linked at once, e.g. with an ID token) and `status`.
    package func linkSocial(provider socialProvider: String, callbackURL: String, scopes: [String]? = nil,
                           errorCallbackURL: String? = nil, idToken: Secret<String>? = nil,
                           bearer: Secret<String>) async throws -> (url: URL?, status: Bool?) {
        let reply = try await send(.post, "link-social", body: OpenfortLinkSocialRequest(
            provider: socialProvider, callbackURL: callbackURL, scopes: scopes, errorCallbackURL: errorCallbackURL,
            idToken: idToken.map { OpenfortIDTokenCredential(token: $0.revealed()) }),
                                   bearer: bearer, operation: .management, as: OpenfortLinkSocialReply.self)
        return (reply?.url, reply?.status)
    }

    /// Unlinks an account: `POST /unlink-account {providerId, accountId?}` with the session token.
    /// - Returns: the reply's `status`.
    @discardableResult
    package func unlinkAccount(providerID: String, accountID: String? = nil, bearer: Secret<String>) async throws -> Bool {
        try await send(.post, "unlink-account", body: OpenfortUnlinkAccountRequest(providerId: providerID, accountId: accountID),
                       bearer: bearer, operation: .management, as: OpenfortAcknowledgement.self)?.status ?? true
    }

    /// The accounts linked to the signed-in user: `GET /list-accounts`.
    package func listAccounts(bearer: Secret<String>) async throws -> [OpenfortLinkedAccount] {
        try await send(.get, "list-accounts", bearer: bearer, operation: .management, as: [OpenfortLinkedAccount].self) ?? []
    }
}
