import AuthHub

/// The parameters of `ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2`: `{authenticators: [{authenticatorName,
/// challenge, attestation}], userId}`, the challenge base64url without padding.
struct TurnkeyCreateAuthenticatorsParameters: Codable, Sendable {
    struct Authenticator: Codable, Sendable {
        var authenticatorName: String
        var challenge: String
        var attestation: TurnkeyAttestation
    }

    var authenticators: [Authenticator]
    var userId: String
}
