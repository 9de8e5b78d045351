import AuthHub

extension Auth0Provider {
    /// The Management API user endpoints, with tokens from a credentials manager (<doc:Auth0Endpoints>: “Management API users”).
    public func management(credentials: Auth0CredentialsManager) -> Auth0ManagementAPI {
        Auth0ManagementAPI(provider: self, credentials: credentials)
    }

    /// The Management API user endpoints, with tokens from your own source.
    public func management(tokenProvider: @escaping Auth0ManagementAPI.TokenProvider) -> Auth0ManagementAPI {
        Auth0ManagementAPI(provider: self, tokenProvider: tokenProvider)
    }
}
