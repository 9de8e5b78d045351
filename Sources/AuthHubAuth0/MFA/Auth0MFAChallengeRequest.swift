/// The JSON body of `POST /mfa/challenge`.
struct Auth0MFAChallengeRequest: Encodable, Sendable {
    var mfaToken: String
    var challengeType: String
    var authenticatorID: String

    enum CodingKeys: String, CodingKey { case mfaToken = "mfa_token", challengeType = "challenge_type", authenticatorID = "authenticator_id" }
}
