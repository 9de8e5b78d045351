/// The JSON body of `POST /otp/challenge` (database-connection OTP): an email, or a phone number
/// with its delivery method.
struct Auth0OTPChallengeRequest: Encodable, Sendable {
    var email: String?
    var phoneNumber: String?
    var deliveryMethod: String?
    var connection: String
    var allowSignup: Bool

    enum CodingKeys: String, CodingKey {
        case email, phoneNumber = "phone_number", deliveryMethod = "delivery_method", connection, allowSignup = "allow_signup"
    }
}
