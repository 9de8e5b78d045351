import AuthHub

/// The body of the proxy's `POST /auth/createSubOrg` (tkhq/swift-sdk example backend
/// `CreateSubOrgParams`): `{email, passkey: {name, challenge, attestation: {credentialId,
/// clientDataJson, attestationObject, transports}}}`, every value base64url without padding.
struct TurnkeyCreateSubOrganizationRequest: Codable, Sendable {
    struct Passkey: Codable, Sendable {
        var name: String
        var challenge: String
        var attestation: TurnkeyAttestation
    }

    var email: String
    var passkey: Passkey
}
