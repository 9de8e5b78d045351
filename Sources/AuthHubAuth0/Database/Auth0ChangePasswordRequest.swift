/// The JSON body of `POST /dbconnections/change_password` (the reply is text).
struct Auth0ChangePasswordRequest: Encodable, Sendable {
    var email: String
    var connection: String
    var organization: String?
}
