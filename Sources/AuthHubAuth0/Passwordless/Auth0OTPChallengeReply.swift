/// The reply of `POST /otp/challenge` (database-connection OTP): the `auth_session` the login
/// sends back, required.
struct Auth0OTPChallengeReply: Decodable, Sendable {
    /// `auth_session`.
    var authSession: String

    enum CodingKeys: String, CodingKey { case authSession = "auth_session" }
}
