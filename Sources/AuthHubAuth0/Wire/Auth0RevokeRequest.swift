/// The JSON body of `POST /oauth/revoke` (the reply has no body).
struct Auth0RevokeRequest: Encodable, Sendable {
    /// The refresh token to revoke.
    var token: String
}
