/// The body of `PATCH /me/v1/authentication-methods/{id}`.
struct Auth0AuthenticationMethodUpdate: Encodable, Sendable {
    var name: String?
    var preferredAuthenticationMethod: String?

    enum CodingKeys: String, CodingKey { case name, preferredAuthenticationMethod = "preferred_authentication_method" }
}
