/// The reply of `GET /me/v1/authentication-methods`: `authentication_methods` (none when absent).
struct Auth0AuthenticationMethodList: Decodable, Sendable {
    var authenticationMethods: [Auth0AuthenticationMethod]?

    enum CodingKeys: String, CodingKey { case authenticationMethods = "authentication_methods" }
}
