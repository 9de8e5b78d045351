/// The JSON body of `POST /mfa/associate` (the MFA token goes in the `Authorization` header).
struct Auth0MFAAssociateRequest: Encodable, Sendable {
    var authenticatorTypes: [String]
    var oobChannels: [String]?
    var phoneNumber: String?
    var email: String?

    enum CodingKeys: String, CodingKey {
        case authenticatorTypes = "authenticator_types", oobChannels = "oob_channels", phoneNumber = "phone_number", email
    }

    init(_ factor: Auth0MFAEnrollmentRequest) {
        switch factor {
        case .sms(let phone): self.init(authenticatorTypes: ["oob"], oobChannels: ["sms"], phoneNumber: phone)
        case .email(let email): self.init(authenticatorTypes: ["oob"], oobChannels: ["email"], email: email)
        case .otp: self.init(authenticatorTypes: ["otp"])
        case .push: self.init(authenticatorTypes: ["oob"], oobChannels: ["auth0"])
        }
    }

    init(authenticatorTypes: [String], oobChannels: [String]? = nil, phoneNumber: String? = nil, email: String? = nil) {
        self.authenticatorTypes = authenticatorTypes
        self.oobChannels = oobChannels
        self.phoneNumber = phoneNumber
        self.email = email
    }
}
