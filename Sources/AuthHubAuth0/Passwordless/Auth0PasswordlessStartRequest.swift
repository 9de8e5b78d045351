/// The JSON body of `POST /passwordless/start`: an email or a phone number.
struct Auth0PasswordlessStartRequest: Encodable, Sendable {
    var connection: String
    var send: String
    var email: String?
    var phoneNumber: String?

    enum CodingKeys: String, CodingKey { case connection, send, email, phoneNumber = "phone_number" }
}
