import AuthHub

/// What the second half of a passkey enrollment needs from the first (a
/// ``MethodEnrollmentChallenge``'s continuation): the challenge the passkey was created over
/// (base64url; `create_authenticators` sends it), the name the authenticator gets, and whose
/// enrollment it is (the sub-organization and user), so that another signed-in user cannot finish it.
struct TurnkeyPasskeyEnrollment: Codable, Sendable {
    var challenge: String
    var name: String
    var organizationId: String
    var userId: String
}
