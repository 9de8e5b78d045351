/// The body of `POST /me/v1/authentication-methods` for each ``Auth0EnrollmentRequest``.
struct Auth0EnrollmentStartRequest: Encodable, Sendable {
    var type: String
    var identityUserID: String?
    var connection: String?
    var email: String?
    var phoneNumber: String?
    var preferredAuthenticationMethod: String?

    enum CodingKeys: String, CodingKey {
        case type, identityUserID = "identity_user_id", connection, email, phoneNumber = "phone_number"
        case preferredAuthenticationMethod = "preferred_authentication_method"
    }

    init(_ request: Auth0EnrollmentRequest) {
        switch request {
        case .passkey(let user, let connection): self.init(type: "passkey", identityUserID: user, connection: connection)
        case .totp: self.init(type: "totp")
        case .pushNotification: self.init(type: "push-notification")
        case .email(let email): self.init(type: "email", email: email)
        case .phone(let number, let preferred): self.init(type: "phone", phoneNumber: number, preferredAuthenticationMethod: preferred)
        case .recoveryCode: self.init(type: "recovery-code")
        case .password(let user, let connection): self.init(type: "password", identityUserID: user, connection: connection)
        }
    }

    init(type: String, identityUserID: String? = nil, connection: String? = nil, email: String? = nil, phoneNumber: String? = nil,
         preferredAuthenticationMethod: String? = nil) {
        self.type = type
        self.identityUserID = identityUserID
        self.connection = connection
        self.email = email
        self.phoneNumber = phoneNumber
        self.preferredAuthenticationMethod = preferredAuthenticationMethod
    }
}
