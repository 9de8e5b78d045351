import AuthHub

/// The JSON body of `POST /dbconnections/signup`. `user_metadata` is open by nature (the
/// application's own data); root attributes (`given_name`, `name`, …) are added when sent.
struct Auth0SignupRequest: Encodable, Sendable {
    var email: String
    var password: String
    var connection: String
    var username: String?
    var userMetadata: [String: JSONValue]?

    enum CodingKeys: String, CodingKey { case email, password, connection, username, userMetadata = "user_metadata" }
}
